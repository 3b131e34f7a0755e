// The language pair: the two pickers, their languages (named in the browser's language), the pair kept from the
// last visit, swapping, and what auto-detection found.
import { ApiFailure, callApi, type LanguagesResponse } from './api.ts';
import { ui } from './dom.ts';
import { showError } from './feedback.ts';
import { LanguagePicker } from './language-picker.ts';
import { formatPercent } from './messages.ts';

const LAST_PAIR = 'dragoman.languages';
/** The API's isReliable rule (src/detect/detector.ts RELIABLE_CONFIDENCE; the page bundle does not import the detector). */
const RELIABLE = 0.8;

export const sourcePicker = new LanguagePicker(ui.source, ui.sourceList, 'Detect language');
export const targetPicker = new LanguagePicker(ui.target, ui.targetList, null);

/** What auto-detect found in the last translation, so swap can use it. */
let lastDetected: string | null = null;

/** The browser's languages, most preferred first, each as given (`zh-TW`) and then its base (`zh`). */
function browserLanguages(): string[] {
  const all = navigator.languages?.length ? navigator.languages : [navigator.language];
  return [...new Set(all.filter(Boolean).flatMap((l) => [l, l.split('-')[0]!.toLowerCase()]))];
}

export async function loadLanguages(): Promise<void> {
  // Names in the browser's first language: `zh-TW` gets Traditional names, not those of `zh`; a language the
  // server has no names for falls back to its base, then to English.
  const [tag, base] = browserLanguages();
  let answer;
  for (const display of [...new Set([tag, base, undefined])]) {
    try {
      // The page's keyless copy of /v1/languages (ui/index.ts): loading the pickers spends none of the key's requests.
      answer = await callApi<LanguagesResponse>(display ? `/ui/languages?target=${encodeURIComponent(display)}` : '/ui/languages', null);
      break;
    } catch (err) {
      if (!(err instanceof ApiFailure) || err.kind !== 'invalid' || !display) throw err;
    }
  }
  const languages = answer!.body.data.languages;
  sourcePicker.setLanguages(languages);
  targetPicker.setLanguages(languages);
  const saved = readPair();
  if (saved && (saved.source === '' || sourcePicker.has(saved.source))) sourcePicker.value = saved.source;
  const preferredTarget = [saved?.target, ...browserLanguages()]
    .map((c) => (c ? targetPicker.match(c) : undefined))
    .find((c) => c !== undefined);
  if (preferredTarget) targetPicker.value = preferredTarget;
  if (languages.length === 0) {
    showError('No translation model is installed on this server yet: ask the operator to install one.');
  }
}

function readPair(): { source: string; target: string } | null {
  try {
    const v = JSON.parse(localStorage.getItem(LAST_PAIR) ?? 'null') as unknown;
    if (v && typeof v === 'object' && 'source' in v && 'target' in v) {
      return { source: String(v.source), target: String(v.target) };
    }
  } catch {
    // No saved pair.
  }
  return null;
}

export function savePair(): void {
  try {
    localStorage.setItem(LAST_PAIR, JSON.stringify({ source: sourcePicker.value, target: targetPicker.value }));
  } catch {
    // Not kept; harmless.
  }
}

export function clearDetected(): void {
  lastDetected = null;
  ui.detected.textContent = '';
}

/**
 * "Detected: English (98 %)", from the confidence /v1/translate sends in X-Dragoman-Detected-Confidence (no second
 * request: every click costs the key one request). Below 0.8 (the API's isReliable rule) it says it is unsure.
 */
export function showDetected(language: string, confidence: number | undefined): void {
  if (language === 'und') {
    clearDetected();
    ui.detected.textContent = 'Detected: no language recognised.';
    return;
  }
  lastDetected = language;
  const share = confidence === undefined ? '' : ` (${formatPercent(confidence)}${confidence >= RELIABLE ? '' : ', not sure'})`;
  ui.detected.textContent = `Detected: ${sourcePicker.nameOf(language)}${share}`;
}

/**
 * Swap the two sides so both stay valid: the source side takes the target; the target side takes the source, or
 * with auto-detect what was detected. With nothing detected yet there is no language to put on the target side.
 * True when swapped.
 */
export function swapLanguages(): boolean {
  const from = sourcePicker.value || lastDetected;
  const to = targetPicker.value;
  if (!from || !to || !targetPicker.has(from)) return false;
  sourcePicker.value = to;
  targetPicker.value = from;
  clearDetected();
  savePair();
  return true;
}
