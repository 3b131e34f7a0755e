// Units through the service layer: the same path as /v1/translate with format=html, one call per batch of units,
// a few batches in flight so the engine can fill its own batches, progress reported as batches finish.
import { codePoints } from '../service/validate.ts';
import type { Service } from '../service/index.ts';
import type { TranslateOptions } from '../service/types.ts';
import type { Language } from '../languages/types.ts';
import { fragmentText } from './formats/fragment.ts';
import type { TextUnit } from './formats/types.ts';

/** Units per service call, and characters of markup per call (one call is one engine request). */
const BATCH_UNITS = 64;
const BATCH_CHARS = 16_000;
/** Calls in flight at once for one document. */
const IN_FLIGHT = 2;

/** Code points of the text a unit sends to translation (its sentences, without markup). */
export async function unitCharacters(service: Service, unit: TextUnit): Promise<number> {
  let n = 0;
  for (const s of (await service.deps.planners.html(unit.html)).segments) n += codePoints(s);
  return n;
}

/** The document's first few thousand characters of text, to detect its language from. */
export function textSample(units: readonly TextUnit[], chars = 4000): string {
  let out = '';
  for (const u of units) {
    if (out.length >= chars) break;
    out += fragmentText(u.html).replace(/\s+/g, ' ').trim() + '\n';
  }
  return out.slice(0, chars);
}

function batches(units: readonly TextUnit[]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let chars = 0;
  units.forEach((u, i) => {
    if (i > start && (i - start >= BATCH_UNITS || chars + u.html.length > BATCH_CHARS)) {
      out.push([start, i]);
      start = i;
      chars = 0;
    }
    chars += u.html.length;
  });
  if (start < units.length) out.push([start, units.length]);
  return out;
}

/**
 * Translations of `units` in order. `onProgress(done, total)` counts units as batches finish; `signal` stops
 * before the next batch; `options` go to every call (a glossary).
 */
export async function translateUnits(
  service: Service,
  units: readonly TextUnit[],
  source: Language,
  target: Language,
  onProgress: (done: number, total: number) => void | Promise<void>,
  signal?: AbortSignal,
  options: TranslateOptions = {},
): Promise<string[]> {
  const out = new Array<string>(units.length);
  const queue = batches(units);
  let done = 0;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      signal?.throwIfAborted();
      const [from, to] = next;
      const strings = units.slice(from, to).map((u) => u.html);
      const result = await service.translate(
        { strings, single: false, target, source, format: 'html', chars: 0, options },
        signal,
      );
      result.translations.forEach((t, k) => (out[from + k] = t.translatedText));
      done += to - from;
      await onProgress(done, units.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, queue.length) }, worker));
  return out;
}
