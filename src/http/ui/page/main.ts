// The page at `/`: wires the controls of index.html to the /v1 API. One module, no framework: the page is
// small and must run offline under a strict Content-Security-Policy (no inline scripts or styles).
import {
  type ApiAnswer,
  ApiFailure,
  callApi,
  type DetectResponse,
  type LanguagesResponse,
  type SignupResponse,
  type TranslateResponse,
  type UsageResponse,
} from './api.ts';
import { forgetKey, loadKey, saveKey } from './key-store.ts';
import { LanguagePicker } from './language-picker.ts';
import { explain, formatCount, formatPercent, RATE_AFTER, RATE_BEFORE, TRY_AGAIN_NOW } from './messages.ts';
import { setupTheme } from './theme.ts';
import { UsagePanel } from './usage-panel.ts';

/** The /v1 limit on strings per request (DRAGOMAN_MAX_STRINGS default); extra lines are not sent. */
const MAX_LINES = 128;
const LAST_PAIR = 'dragoman.languages';
const KEY_SAVED = 'Key saved: it is checked by your first translation.';
const USAGE_LATER = 'Usage appears with your first translation (“Refresh usage” reads it now; like every call, it counts as one of the key’s requests per minute).';

function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing from index.html`);
  return el as T;
}

const ui = {
  keyForm: $<HTMLFormElement>('key-form'),
  key: $<HTMLInputElement>('key'),
  remember: $<HTMLInputElement>('remember'),
  keyForget: $<HTMLButtonElement>('key-forget'),
  keyStatus: $('key-status'),
  signup: $<HTMLButtonElement>('signup'),
  source: $<HTMLSelectElement>('source'),
  target: $<HTMLSelectElement>('target'),
  swap: $<HTMLButtonElement>('swap'),
  detected: $('detected'),
  text: $<HTMLTextAreaElement>('text'),
  result: $<HTMLTextAreaElement>('result'),
  charCount: $('char-count'),
  progressText: $('progress-text'),
  translate: $<HTMLButtonElement>('translate'),
  detect: $<HTMLButtonElement>('detect'),
  copy: $<HTMLButtonElement>('copy'),
  busy: $('busy'),
  error: $('error'),
  errorText: $('error-text'),
  retry: $<HTMLButtonElement>('retry'),
  detections: $('detections'),
  detectionsBody: $('detections-body'),
  usageRefresh: $<HTMLButtonElement>('usage-refresh'),
};

const sourcePicker = new LanguagePicker(ui.source, $<HTMLInputElement>('source-filter'), 'Detect language');
const targetPicker = new LanguagePicker(ui.target, $<HTMLInputElement>('target-filter'), null);
const usage = new UsagePanel($('usage'));

let apiKey: string | null = null;
let busy = false;
/** Date.now() until which a 429 told us to wait; 0 when not waiting. */
let blockedUntil = 0;
let countdown: ReturnType<typeof setInterval> | undefined;
let lastAction: (() => Promise<void>) | null = null;
/** What auto-detect found in the last translation, so swap can use it. */
let lastDetected: string | null = null;

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function format(): 'text' | 'html' {
  return document.querySelector<HTMLInputElement>('input[name="format"]:checked')?.value === 'html' ? 'html' : 'text';
}

// ── status, errors, busy state ───────────────────────────────────────────────────────────────────────────

function clearError(): void {
  ui.error.hidden = true;
  ui.errorText.textContent = '';
  ui.retry.hidden = true;
}

function showError(text: string, retry: boolean): void {
  ui.errorText.textContent = text;
  ui.retry.hidden = !retry;
  ui.error.hidden = false;
}

function updateButtons(): void {
  const waiting = blockedUntil > Date.now();
  ui.translate.disabled = busy || waiting;
  ui.detect.disabled = busy || waiting;
  ui.translate.setAttribute('aria-busy', String(busy));
  ui.busy.hidden = !busy;
}

function setBusy(on: boolean, what = ''): void {
  busy = on;
  ui.progressText.textContent = on ? what : '';
  updateButtons();
}

function secondsUntil(until: number): number {
  return Math.max(0, Math.ceil((until - Date.now()) / 1000));
}

/** 429: count down from Retry-After, then let the buttons work again. */
function startCountdown(seconds: number): void {
  blockedUntil = Date.now() + seconds * 1000;
  if (countdown !== undefined) clearInterval(countdown);
  // The sentence is announced once (role=alert); the seconds change inside a part marked aria-live=off so a
  // screen reader is not interrupted every second. At zero the "try again now" sentence is announced.
  const counter = document.createElement('span');
  counter.setAttribute('aria-live', 'off');
  counter.textContent = String(secondsUntil(blockedUntil));
  showError('', false);
  ui.errorText.replaceChildren(RATE_BEFORE, counter, RATE_AFTER);
  const tick = (): void => {
    const left = secondsUntil(blockedUntil);
    counter.textContent = String(left);
    if (left === 0) {
      clearInterval(countdown);
      countdown = undefined;
      blockedUntil = 0;
      showError(TRY_AGAIN_NOW, false);
    }
    updateButtons();
  };
  tick();
  countdown = setInterval(tick, 1000);
}

function fail(err: unknown): void {
  const failure = err instanceof ApiFailure ? err : new ApiFailure('network', String(err), 0, 0);
  if (failure.kind === 'rate') {
    startCountdown(failure.retryAfter);
    return;
  }
  if (failure.kind === 'auth') ui.keyStatus.textContent = 'Key not accepted.';
  const { text, retry, focusKey } = explain(failure);
  showError(text, retry);
  if (focusKey) ui.key.focus();
}

function needKey(): boolean {
  if (apiKey) return false;
  showError('Enter your API key first (or get a free one), then translate.', false);
  ui.key.focus();
  return true;
}

async function run(what: string, action: () => Promise<void>): Promise<void> {
  if (busy || blockedUntil > Date.now()) return;
  lastAction = action;
  clearError();
  // Disabling the focused button drops the focus to <body>; give it back afterwards (unless an error moved it on
  // purpose, e.g. to the key field, or the button stays disabled for a countdown).
  const focused = document.activeElement;
  setBusy(true, what);
  try {
    await action();
  } catch (err) {
    fail(err);
  } finally {
    setBusy(false);
    if (focused instanceof HTMLButtonElement && !focused.disabled && document.activeElement === document.body) focused.focus();
  }
}

// ── key, languages, usage ─────────────────────────────────────────────────────────────────────────────

/** The browser's languages, most preferred first, each as given (`zh-TW`) and then its base (`zh`). */
function browserLanguages(): string[] {
  const all = navigator.languages?.length ? navigator.languages : [navigator.language];
  return [...new Set(all.filter(Boolean).flatMap((l) => [l, l.split('-')[0]!.toLowerCase()]))];
}

async function loadLanguages(): Promise<void> {
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
    showError('No translation model is installed on this server yet: ask the operator to install one.', false);
  }
}

async function loadUsage(): Promise<void> {
  try {
    const answer = await callApi<UsageResponse>('/v1/usage', apiKey);
    usage.show(answer.body.data);
    keyWorked();
  } catch (err) {
    if (err instanceof ApiFailure && err.kind === 'rate') {
      usage.note(`Usage can be read again in ${err.retryAfter} s (the key's per-minute limit).`);
      return;
    }
    throw err;
  }
}

async function useKey(key: string): Promise<void> {
  apiKey = key;
  usage.clear(USAGE_LATER);
  await run('Loading languages…', async () => {
    await loadLanguages();
    // Not checked here: every keyed call, /v1/usage too, spends one of the key's requests of the minute, and a
    // 1-request key must be able to translate on its first click. The first translation checks it.
    ui.keyStatus.textContent = KEY_SAVED;
  });
}

/** A keyed call succeeded: the key entered is accepted (a one-time warning after signup stays in view). */
function keyWorked(): void {
  if (ui.keyStatus.textContent === KEY_SAVED) ui.keyStatus.textContent = 'Key accepted.';
}

/** After a successful keyed call: the key works, and the answer's headers fill the usage panel (no extra request). */
function afterCharge(answer: ApiAnswer<unknown>): void {
  keyWorked();
  if (answer.quota) usage.fromAnswer(answer.quota, answer.rate);
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

function savePair(): void {
  try {
    localStorage.setItem(LAST_PAIR, JSON.stringify({ source: sourcePicker.value, target: targetPicker.value }));
  } catch {
    // Not kept; harmless.
  }
}

// ── actions ───────────────────────────────────────────────────────────────────────────────────────────

async function translate(): Promise<void> {
  if (needKey()) return;
  const text = ui.text.value;
  if (text.trim() === '') {
    showError('Type or paste some text to translate first.', false);
    ui.text.focus();
    return;
  }
  const target = targetPicker.value;
  if (!target) {
    showError('Choose the language to translate into.', false);
    ui.target.focus();
    return;
  }
  const source = sourcePicker.value;
  await run('Translating…', async () => {
    ui.detected.textContent = '';
    const body: Record<string, string> = { q: text, target, format: format() };
    if (source) body.source = source;
    const answer = await callApi<TranslateResponse>('/v1/translate', apiKey, body);
    const item = answer.body.data.translations[0]!;
    ui.result.value = item.translatedText;
    ui.copy.disabled = false;
    savePair();
    afterCharge(answer);
    if (!source && item.detectedSourceLanguage) showDetected(item.detectedSourceLanguage, answer.detectedConfidence[0]);
  });
}

/** The API's isReliable rule (src/detect/detector.ts RELIABLE_CONFIDENCE; the page bundle does not import the detector). */
const RELIABLE = 0.8;

/**
 * The detected language with the confidence /v1/translate sends in X-Dragoman-Detected-Confidence (no second
 * request: every click costs the key one request). isReliable is the API's rule, confidence >= 0.8.
 */
function showDetected(language: string, confidence: number | undefined): void {
  lastDetected = language === 'und' ? null : language;
  const name = language === 'und' ? 'an undetermined language' : `${sourcePicker.nameOf(language)} (${language})`;
  ui.detected.textContent =
    confidence === undefined || language === 'und'
      ? `Detected ${name}.`
      : `Detected ${name}, confidence ${formatPercent(confidence)}` + (confidence >= RELIABLE ? '.' : ' (not reliable).');
}

async function detectLines(): Promise<void> {
  if (needKey()) return;
  const lines = ui.text.value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) {
    showError('Type or paste some text first: each line is detected on its own.', false);
    ui.text.focus();
    return;
  }
  const sent = lines.slice(0, MAX_LINES);
  await run('Detecting…', async () => {
    const answer = await callApi<DetectResponse>('/v1/detect', apiKey, { q: sent });
    afterCharge(answer);
    const rows = answer.body.data.detections.map((d, i) => {
      const tr = document.createElement('tr');
      const cells = [
        sent[i] ?? d.input,
        d.language === 'und' ? 'undetermined (und)' : `${sourcePicker.nameOf(d.language)} (${d.language})`,
        formatPercent(d.confidence),
        d.isReliable ? 'yes' : 'no',
      ];
      for (const c of cells) {
        const td = document.createElement('td');
        td.textContent = c;
        tr.append(td);
      }
      return tr;
    });
    ui.detectionsBody.replaceChildren(...rows);
    ui.detections.hidden = false;
    ui.progressText.textContent = '';
    if (lines.length > MAX_LINES) {
      showError(`Only the first ${MAX_LINES} of ${formatCount(lines.length)} lines were detected.`, false);
    }
  });
}

async function copyResult(): Promise<void> {
  const text = ui.result.value;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API refused (permissions, older browser): copy the selection the old way.
    ui.result.select();
    document.execCommand('copy');
  }
  ui.progressText.textContent = 'Translation copied.';
}

function swap(): void {
  const from = sourcePicker.value || lastDetected;
  const to = targetPicker.value;
  if (!from) {
    ui.progressText.textContent = 'Choose a source language (or translate once with detection) before swapping.';
    return;
  }
  sourcePicker.value = to;
  targetPicker.value = from;
  if (ui.result.value) {
    ui.text.value = ui.result.value;
    ui.result.value = '';
    ui.copy.disabled = true;
    updateCount();
  }
  ui.detected.textContent = '';
  savePair();
}

async function signup(): Promise<void> {
  let created = '';
  await run('Creating a key…', async () => {
    const answer = await callApi<SignupResponse>('/v1/signup', null, {});
    ui.key.value = answer.body.data.key;
    ui.key.type = 'text';
    saveKey(answer.body.data.key, ui.remember.checked);
    created = `A new ${answer.body.data.plan}-plan key is in the field above. Store it now: it is shown only once.`;
    ui.keyStatus.textContent = created;
  });
  if (!ui.key.value) return;
  await useKey(ui.key.value);
  // useKey says the key is saved; the one-time warning is what must stay in view.
  if (created && ui.keyStatus.textContent === KEY_SAVED) ui.keyStatus.textContent = created;
}

function updateCount(): void {
  const n = codePoints(ui.text.value);
  ui.charCount.textContent = `${formatCount(n)} ${n === 1 ? 'character' : 'characters'}`;
}

// ── wiring ────────────────────────────────────────────────────────────────────────────────────────────

setupTheme($<HTMLButtonElement>('theme-toggle'));

ui.keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = ui.key.value.trim();
  if (!key) {
    ui.keyStatus.textContent = 'Enter a key first.';
    ui.key.focus();
    return;
  }
  // A key is printable ASCII (dk_ + letters, digits, "_", "-"); anything else — quotes or an invisible character
  // picked up when copying — could not even be sent in a header (the browser would refuse the request).
  if (!/^[\x21-\x7e]+$/.test(key)) {
    ui.keyStatus.textContent =
      'This key has characters an API key never has (quotes, spaces or invisible characters): paste the key again, just the dk_… part.';
    ui.key.focus();
    return;
  }
  saveKey(key, ui.remember.checked);
  ui.key.type = 'password';
  void useKey(key);
});
ui.remember.addEventListener('change', () => {
  if (apiKey) saveKey(apiKey, ui.remember.checked);
});
ui.keyForget.addEventListener('click', () => {
  forgetKey();
  apiKey = null;
  ui.key.value = '';
  ui.keyStatus.textContent = 'Key forgotten in this browser.';
  usage.clear();
  ui.key.focus();
});
ui.signup.addEventListener('click', () => void signup());
ui.usageRefresh.addEventListener('click', () => void run('Reading usage…', loadUsage));
ui.translate.addEventListener('click', () => void translate());
ui.detect.addEventListener('click', () => void detectLines());
ui.copy.addEventListener('click', () => void copyResult());
ui.swap.addEventListener('click', swap);
ui.retry.addEventListener('click', () => {
  if (lastAction) void run('Trying again…', lastAction);
});
ui.source.addEventListener('change', () => (ui.detected.textContent = ''));
ui.text.addEventListener('input', updateCount);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    void translate();
  }
});

updateCount();
const stored = loadKey();
ui.remember.checked = stored.remembered;
if (stored.key) {
  ui.key.value = stored.key;
  void useKey(stored.key);
}
