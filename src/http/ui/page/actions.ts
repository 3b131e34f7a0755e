// What the buttons do: translate (also Ctrl+Enter and typing), detect line by line, copy, read the usage, get a
// free key. Each click sends exactly one request, with the key in the field at that moment; its answer's headers
// fill the usage panel and tell translate-as-you-type the key's limit, so nothing else is asked.
import {
  type ApiAnswer,
  ApiFailure,
  callApi,
  type DetectResponse,
  type SignupResponse,
  type TranslateResponse,
  type UsageResponse,
} from './api.ts';
import { ui } from './dom.ts';
import { clearError, isBusy, isWaiting, run, say, showError } from './feedback.ts';
import { accepted, keyForRequest, setKey } from './key-field.ts';
import { clearDetected, retargetFrom, savePair, showDetected, sourcePicker, targetPicker } from './language-choice.ts';
import { learnRate } from './live-translate.ts';
import { formatCount, formatPercent } from './messages.ts';
import { UsagePanel } from './usage-panel.ts';
import { chosenMemory, showMemoryOutcome } from './memory-choice.ts';
import { chosenModelKind, showModelUsed } from './model-kind.ts';

/** The /v1 limit on strings per request (DRAGOMAN_MAX_STRINGS default); extra lines are not sent. */
const MAX_LINES = 128;

export const usage = new UsagePanel(ui.usage);

/** What the translation shown was made from, so typing does not send the same request again. */
let shownFrom = '';

function format(): 'text' | 'html' {
  return document.querySelector<HTMLInputElement>('input[name="format"]:checked')?.value === 'html' ? 'html' : 'text';
}

/** After a successful request: the key works, and the answer's headers fill the usage panel (no extra request). */
function afterCharge(answer: ApiAnswer<unknown>): void {
  accepted();
  if (answer.quota) {
    usage.fromAnswer(answer.quota, answer.rate);
    learnRate(answer.rate ? answer.rate.limit : null);
  }
}

/**
 * Translate the text. `quiet` (typing): no words when there is nothing to translate yet, and nothing sent when the
 * translation shown already is of this text and pair. False when nothing could be sent.
 */
export async function translate(quiet = false): Promise<boolean> {
  const text = ui.text.value;
  const target = targetPicker.value;
  const source = sourcePicker.value;
  const memory = chosenMemory();
  const model = chosenModelKind();
  let from = JSON.stringify([text, source, target, format(), memory, model]);
  if (quiet && (text.trim() === '' || !target || from === shownFrom || isBusy() || isWaiting())) return false;
  const key = keyForRequest();
  if (key === undefined) return false;
  if (text.trim() === '') {
    showError('Type or paste some text to translate first.');
    ui.text.focus();
    return false;
  }
  if (!target) {
    showError('Choose the language to translate into.');
    targetPicker.focus();
    return false;
  }
  return run('Translating…', async () => {
    const body: Record<string, string> = { q: text, target, format: format() };
    if (source) body.source = source;
    if (memory) body.memory = memory;
    if (model) body.model = model;
    let answer = await callApi<TranslateResponse>('/v1/translate', key, body);
    let item = answer.body.data.translations[0]!;
    const confidence = answer.detectedConfidence[0];
    // Detected in the language the page itself had targeted: translated once more into the one it should be.
    const retarget = !source && item.detectedSourceLanguage ? retargetFrom(item.detectedSourceLanguage) : undefined;
    if (retarget) {
      afterCharge(answer);
      answer = await callApi<TranslateResponse>('/v1/translate', key, { ...body, target: retarget, source: item.detectedSourceLanguage! });
      item = { ...answer.body.data.translations[0]!, detectedSourceLanguage: item.detectedSourceLanguage };
      from = JSON.stringify([text, source, retarget, format(), memory, model]);
    }
    ui.result.value = item.translatedText;
    showMemoryOutcome(item.memory);
    showModelUsed(answer.model);
    noteSameText(text, item.translatedText, source || item.detectedSourceLanguage, retarget ?? target);
    shownFrom = from;
    ui.copy.disabled = false;
    savePair();
    afterCharge(answer);
    if (!source && item.detectedSourceLanguage) showDetected(item.detectedSourceLanguage, confidence);
    else clearDetected();
  });
}

/**
 * A translation that is the text itself, said in words: with the same language on both sides there is nothing to
 * translate, which otherwise looks like a translator that did nothing.
 */
function noteSameText(text: string, translated: string, from: string | undefined, target: string): void {
  const same = translated.trim() === text.trim();
  let note = '';
  if (same && from === target) {
    note = `The text is already in ${targetPicker.nameOf(target)}${sourcePicker.value ? '' : ' (detected)'}, so the translation is the text itself: choose another language under “To”.`;
  } else if (same) {
    note = 'The translation is the same as the text (names, numbers and code are kept as they are).';
  }
  ui.resultNote.textContent = note;
  ui.resultNote.hidden = note === '';
}

export function clearResultNote(): void {
  ui.resultNote.textContent = '';
  ui.resultNote.hidden = true;
}

export async function detectLines(): Promise<void> {
  const lines = ui.text.value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const key = keyForRequest();
  if (key === undefined) return;
  if (lines.length === 0) {
    showError('Type or paste some text first: each line is detected on its own.');
    ui.text.focus();
    return;
  }
  const sent = lines.slice(0, MAX_LINES);
  await run('Detecting…', async () => {
    const answer = await callApi<DetectResponse>('/v1/detect', key, { q: sent });
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
    say('');
    if (lines.length > MAX_LINES) {
      showError(`Only the first ${MAX_LINES} of ${formatCount(lines.length)} lines were detected.`);
    }
  });
}

/** GET /v1/usage ("Refresh usage"): like every call, one of the key's requests of the minute. */
export async function refreshUsage(): Promise<void> {
  const key = keyForRequest();
  if (key === undefined) return;
  await run('Reading usage…', async () => {
    try {
      const answer = await callApi<UsageResponse>('/v1/usage', key);
      usage.show(answer.body.data);
      learnRate(answer.body.data.requestsPerMinute);
      accepted();
    } catch (err) {
      if (err instanceof ApiFailure && err.kind === 'rate') {
        usage.note(`Usage can be read again in ${err.retryAfter} s (the key's per-minute limit).`);
        return;
      }
      throw err;
    }
  });
}

/**
 * After a document job of `key` ends: the usage panel reads the month again (its characters changed, or a failed
 * job's were given back), when `key` is still the one in the field. One of the key's requests of the minute.
 */
export async function usageAfterJob(key: string): Promise<void> {
  if (ui.key.value.trim() !== key) return;
  try {
    const answer = await callApi<UsageResponse>('/v1/usage', key);
    if (ui.key.value.trim() === key) usage.show(answer.body.data);
  } catch {
    // The panel keeps what it showed; "Refresh usage" reads it on demand.
  }
}

export async function copyResult(): Promise<void> {
  const text = ui.result.value;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API refused (permissions, older browser): copy the selection the old way.
    ui.result.select();
    document.execCommand('copy');
  }
  say('Translation copied.');
}

/** Both sides swapped, and the translation becomes the text to translate. */
export function swapped(): void {
  if (ui.result.value) {
    ui.text.value = ui.result.value;
    ui.result.value = '';
    ui.copy.disabled = true;
    shownFrom = '';
  }
  clearResultNote();
  clearError();
}

export async function signup(): Promise<void> {
  // A key in the field may be the only copy of it: replacing it is asked first.
  if (ui.key.value.trim() !== '' && !window.confirm('Replace the API key in the field with a new free key? Keep a copy of the one in the field first: it cannot be shown again.')) {
    say('The key in the field was kept; no new key was made.');
    return;
  }
  await run('Creating a key…', async () => {
    const answer = await callApi<SignupResponse>('/v1/signup', null, {});
    setKey(answer.body.data.key, `A new ${answer.body.data.plan}-plan key is in the field above. Store it now: it is shown only once.`);
    ui.key.type = 'text';
  });
}
