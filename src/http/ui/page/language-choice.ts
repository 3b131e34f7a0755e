// The language pair: the two pickers, their languages (named in the browser's language), the pair kept from the
// last visit, swapping, and what auto-detection found.
import { learnModelChoices } from './model-kind.ts';
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

/** Per source language, the targets the installed models reach from it; with detection, every language some model writes. */
const reachable = new Map<string, Set<string>>();
let writable = new Set<string>();
/** The target to prefer when the chosen one cannot be reached: the remembered one, then the browser's languages. */
let preferredTargets: string[] = [];

/** The targets reachable from `source` ("" = detect: any language some model writes), never `source` itself. */
export function targetsFrom(source: string): Set<string> {
  const all = source === '' ? writable : (reachable.get(source) ?? new Set<string>());
  return new Set([...all].filter((c) => c !== source));
}

/** Widely read languages, tried after the browser's own when none of those can be the target. */
const COMMON_TARGETS = ['en', 'es', 'fr', 'de', 'pt', 'zh-CN'];
/** The target on the page was put there by the page (not chosen by the user): a better one may replace it. */
let targetByPage = true;

/**
 * Keeps the target one the models reach from the chosen source (never the source itself): the user's choice while
 * it is reachable, else the first preferred one that is (the remembered one, the browser's languages, widely read
 * ones), else the first reachable. True when it changed.
 */
export function fitTarget(): boolean {
  const reach = targetsFrom(sourcePicker.value);
  const current = targetPicker.value;
  if (current && reach.has(current) && !targetByPage) return false;
  const next =
    [...preferredTargets, ...COMMON_TARGETS].map((c) => targetPicker.match(c)).find((c) => c !== undefined && reach.has(c)) ??
    (current && reach.has(current) ? current : [...reach].sort()[0]);
  if (next === undefined || next === current) return false;
  targetPicker.value = next;
  targetByPage = true;
  return true;
}

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
  const { languages, targetSets = [], modelChoices } = answer!.body.data;
  learnModelChoices(modelChoices);
  const sets = targetSets.map((codes) => new Set(codes));
  reachable.clear();
  for (const l of languages) if (l.reach !== undefined && sets[l.reach]) reachable.set(l.language, sets[l.reach]!);
  // A server without the reach fields: every language both ways.
  const known = languages.some((l) => l.writes !== undefined || l.reach !== undefined);
  writable = new Set(languages.filter((l) => !known || l.writes).map((l) => l.language));
  if (!known) for (const l of languages) reachable.set(l.language, writable);
  sourcePicker.setLanguages(languages);
  // The target side lists only what some model writes: an en→de server offers German, not English.
  targetPicker.setLanguages(languages.filter((l) => writable.has(l.language)));
  const saved = readPair();
  if (saved && (saved.source === '' || sourcePicker.has(saved.source))) sourcePicker.value = saved.source;
  preferredTargets = [saved?.target ?? '', ...browserLanguages()].filter((c) => c !== '');
  fitTarget();
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
 * With "Detect language", the text turned out to be in the language the page had put on the target side (the
 * browser's own, usually): the target becomes the preferred one the models reach from the detected language. Not
 * when the user chose the target. The new target, or undefined when it stays.
 */
export function retargetFrom(detected: string): string | undefined {
  if (!targetByPage || sourcePicker.value !== '' || targetPicker.value !== detected) return undefined;
  const reach = targetsFrom(detected);
  const next =
    [...preferredTargets, ...COMMON_TARGETS].map((c) => targetPicker.match(c)).find((c) => c !== undefined && reach.has(c)) ??
    [...reach].sort()[0];
  if (next === undefined) return undefined;
  targetPicker.value = next;
  return next;
}

/** The user chose this target: it is the one to come back to when another source makes it unreachable for a while. */
export function targetChosen(code: string): void {
  targetByPage = false;
  preferredTargets = [code, ...preferredTargets.filter((c) => c !== code)];
}

/**
 * Swap the two sides so both stay valid: the source side takes the target; the target side takes the source, or
 * with auto-detect what was detected. Null when swapped, else why not, in words.
 */
export function swapLanguages(): string | null {
  const from = sourcePicker.value || lastDetected;
  const to = targetPicker.value;
  if (!from || !to) return 'Choose a source language (or translate once with detection) before swapping.';
  if (!sourcePicker.has(to) || !targetsFrom(to).has(from)) {
    return `The installed models do not translate from ${sourcePicker.nameOf(to)} into ${sourcePicker.nameOf(from)}.`;
  }
  sourcePicker.value = to;
  targetPicker.value = from;
  targetByPage = false;
  clearDetected();
  savePair();
  return null;
}
