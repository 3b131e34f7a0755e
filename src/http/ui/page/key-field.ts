// The API key field. Whatever is in it is the key of the next request: no separate "use" step. It is kept as it
// is typed (key-store.ts: this tab, or this device when "remember" is ticked), and what happens to it is said right
// below it: refused by the server, or with characters no key has. Empty, the page uses the server's shared key
// when the operator set one (DRAGOMAN_UI_KEY), and says whose it is.
import type { SharedKey } from './api.ts';
import { ui } from './dom.ts';
import { forgetKey, loadKey, saveKey } from './key-store.ts';
import { formatCount } from './messages.ts';

let shared: SharedKey | null = null;
/** The status holds a note that must stay in view until the key changes (a new key's "store it now"). */
let pinned = false;
const changeListeners: (() => void)[] = [];

/** The key for the next request: a string, null for "none, use the shared key", or undefined when there is none to use (said by the field). */
export function keyForRequest(): string | null | undefined {
  const key = ui.key.value.trim();
  if (key === '') {
    if (shared) return null;
    refuse('Enter your API key first (or get a free one), then translate.');
    return undefined;
  }
  // A key is printable ASCII (dk_ + letters, digits, "_", "-"); anything else — quotes or an invisible character
  // picked up when copying — could not even be sent in a header (the browser would refuse the request).
  if (!/^[\x21-\x7e]+$/.test(key)) {
    refuse('This key has characters an API key never has (quotes, spaces or invisible characters): paste the key again, just the dk_… part.');
    return undefined;
  }
  return key;
}

/** The key in use is the shared one (the field is empty and the server has one). */
export function usingSharedKey(): boolean {
  return ui.key.value.trim() === '' && shared !== null;
}

export function sharedKey(): SharedKey | null {
  return shared;
}

/** The server refused the key (its words, without the hint meant for programs), said by the field, which gets the focus. */
export function refuse(message: string): void {
  pinned = false;
  const reason = message.replace(/\s*Pass a valid API key in the X-API-Key header\.?\s*$/, '').replace(/\.$/, '');
  ui.keyStatus.textContent = /^(Enter|This key has)/.test(message) ? message : `Key not accepted: ${reason}.`;
  ui.keyStatus.classList.add('refused');
  ui.key.setAttribute('aria-invalid', 'true');
  ui.key.focus();
}

/** A request with the key succeeded: the key works (a one-time note, such as a new key's warning, stays). */
export function accepted(): void {
  if (!pinned) setStatus(usingSharedKey() ? '' : 'Key accepted.');
  ui.key.removeAttribute('aria-invalid');
}

export function setStatus(text: string): void {
  ui.keyStatus.classList.remove('refused');
  ui.keyStatus.textContent = text;
}

/** Another key is in the field (typed, pasted, forgotten, or a new free one). */
export function onKeyChange(listener: () => void): void {
  changeListeners.push(listener);
}

function changed(): void {
  pinned = false;
  ui.key.removeAttribute('aria-invalid');
  ui.keyStatus.classList.remove('refused');
  ui.keyStatus.textContent = '';
  const key = ui.key.value.trim();
  if (key === '') forgetKey();
  else if (/^[\x21-\x7e]+$/.test(key)) saveKey(key, ui.remember.checked);
  for (const listener of changeListeners) listener();
}

/** Put `key` in the field as if typed (a new free key); `note` is said below it. */
export function setKey(key: string, note: string): void {
  ui.key.value = key;
  changed();
  setStatus(note);
  pinned = true;
}

/** The server's shared key (GET /ui/settings), said below the field so the page says whose quota it spends. */
export function setSharedKey(key: SharedKey | null): void {
  shared = key;
  ui.sharedKey.hidden = key === null;
  if (key) {
    const who = key.name ? `“${key.name}” (${key.id})` : key.id;
    const rpm = key.requestsPerMinute === null ? 'no limit of requests a minute' : `${formatCount(key.requestsPerMinute)} requests a minute`;
    const chars = key.characterLimit === null ? 'no monthly limit of characters' : `${formatCount(key.characterLimit)} characters a month`;
    ui.sharedKey.textContent =
      `No key needed on this server: with the field empty, translations count on the server's shared key ${who}, ` +
      `${key.plan} plan (${rpm}, ${chars}, shared by everyone using this page). Enter your own key to use yours instead.`;
  }
  for (const listener of changeListeners) listener();
}

export function setupKeyField(): void {
  const stored = loadKey();
  ui.remember.checked = stored.remembered;
  if (stored.key) ui.key.value = stored.key;
  ui.key.addEventListener('input', changed);
  ui.keyForm.addEventListener('submit', (event) => {
    // Enter in the field: nothing to send (the next translation uses the key); just say whether it can be used.
    event.preventDefault();
    if (keyForRequest() !== undefined) setStatus(usingSharedKey() ? '' : 'Key ready: it is checked by your first translation.');
  });
  ui.remember.addEventListener('change', () => {
    const key = ui.key.value.trim();
    if (key) saveKey(key, ui.remember.checked);
  });
  ui.keyForget.addEventListener('click', () => {
    ui.key.value = '';
    changed();
    setStatus('Key forgotten in this browser.');
    ui.key.focus();
  });
}
