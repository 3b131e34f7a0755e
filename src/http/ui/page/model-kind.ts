// Quality or speed: where an LLM translator and an encoder-decoder model both serve the chosen pair (/ui/languages'
// `modelChoices`), the page offers the choice, first set to the kind the usual route takes; elsewhere it is hidden
// and the request carries no `model`. After each translation the page says which model answered (X-Dragoman-Model).
import { ui } from './dom.ts';

export type ModelKind = 'quality' | 'speed';

/** `source>target` (public codes) -> the kind the usual route takes, for the pairs both kinds serve. */
let choices: Record<string, ModelKind> = {};
/** The pair the choice was last set for: another pair sets it to that pair's usual kind again. */
let shownPair = '';

function radios(): HTMLInputElement[] {
  return Array.from(ui.modelKind.querySelectorAll<HTMLInputElement>('input[name="model-kind"]'));
}

export function learnModelChoices(known: Record<string, ModelKind> | undefined): void {
  choices = known ?? {};
  shownPair = '';
}

/** Shows the choice for a pair both kinds serve (a detected source: not known yet, so hidden). */
export function fitModelKind(source: string, target: string): void {
  const pair = `${source}>${target}`;
  const usual = source ? choices[pair] : undefined;
  ui.modelKind.hidden = usual === undefined;
  if (usual && pair !== shownPair) for (const r of radios()) r.checked = r.value === usual;
  shownPair = usual ? pair : '';
}

/** The kind to ask for, or undefined when the choice is not offered. */
export function chosenModelKind(): ModelKind | undefined {
  if (ui.modelKind.hidden) return undefined;
  const value = radios().find((r) => r.checked)?.value;
  return value === 'quality' || value === 'speed' ? value : undefined;
}

/** X-Dragoman-Model in words: the model, a pivot as "a, then b", or nothing when no model was needed. */
export function showModelUsed(header: string | null): void {
  const routes = (header ?? '').split(',').map((r) => r.trim()).filter((r) => r && r !== 'none');
  ui.modelUsed.textContent = routes.length ? `Translated by ${routes.map((r) => r.split('>').join(', then ')).join('; ')}.` : '';
}

export function setupModelKind(changed: () => void): void {
  for (const r of radios()) r.addEventListener('change', changed);
}
