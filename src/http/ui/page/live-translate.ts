// Translate as you type: one request per pause in typing (600 ms), never while a request is on its way (the pause
// that came meanwhile is translated when it is back). A setting kept on this device, on by default, but only
// active once the key's requests per minute are known to be more than 10: a free key (10 a minute) is not spent
// by typing. The limit comes with each answer (X-RateLimit-Limit, none = unlimited), from the shared key's
// settings, or from "Refresh usage"; a new key in the field makes it unknown again.
import { ui } from './dom.ts';
import { formatCount } from './messages.ts';

const SLOT = 'dragoman.liveTranslate';
export const PAUSE_MS = 600;
/** At or below this many requests a minute, typing does not translate. */
export const LIVE_MIN_RPM = 10;

/** The key's requests per minute: a number, null = unlimited, undefined = not known yet. */
let rpm: number | null | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
let pending = false;

function wanted(): boolean {
  try {
    return localStorage.getItem(SLOT) !== 'off';
  } catch {
    return true;
  }
}

function allowed(): boolean {
  return rpm === null || (rpm !== undefined && rpm > LIVE_MIN_RPM);
}

function render(): void {
  ui.live.disabled = !allowed();
  ui.live.checked = allowed() && wanted();
  ui.liveHint.textContent =
    rpm === undefined
      ? 'Translating as you type starts after your first translation, once the key’s requests per minute are known.'
      : !allowed()
        ? `Translating as you type is off: this key allows ${formatCount(rpm ?? 0)} requests a minute, each pause in typing would spend one.`
        : ui.live.checked
          ? 'Each pause in typing translates (one request).'
          : '';
}

/** The key's requests per minute as far as known (null = unlimited, undefined = not known yet). */
export function knownRate(): number | null | undefined {
  return rpm;
}

/** What the key allows a minute (null = unlimited), or undefined when another key makes it unknown again. */
export function learnRate(limit: number | null | undefined): void {
  rpm = limit;
  render();
}

/**
 * Wire the setting and the text field. `translate` is the page's translate action in its quiet form: it sends
 * nothing when the text and languages are those of the translation shown, and false when busy.
 */
export function setupLiveTranslate(translate: () => Promise<boolean>, busy: () => boolean): { idle: () => void; changed: () => void } {
  const fire = (): void => {
    timer = undefined;
    if (!ui.live.checked) return;
    if (busy()) {
      pending = true;
      return;
    }
    pending = false;
    void translate();
  };
  const changed = (): void => {
    if (!ui.live.checked) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(fire, PAUSE_MS);
  };
  ui.live.addEventListener('change', () => {
    try {
      localStorage.setItem(SLOT, ui.live.checked ? 'on' : 'off');
    } catch {
      // Kept for this visit only.
    }
    render();
    changed();
  });
  ui.text.addEventListener('input', changed);
  render();
  // A pause that came while a request was on its way is translated once it is back (unless typing goes on).
  return { idle: () => pending && timer === undefined && fire(), changed };
}
