// Units through the service layer: the same path as /v1/translate with format=html. Each unit is planned once
// (its sentences cut and its tags noted), when the document is checked: the plans give the characters charged
// and are handed to the service with the units, which would otherwise plan them again. Units go in large batches,
// a couple in flight so the engine always has the next one queued; progress is reported as batches finish.
import { codePoints } from '../service/validate.ts';
import { Slices } from '../service/slices.ts';
import type { Service } from '../service/index.ts';
import type { AnyPlan } from '../service/types.ts';
import type { Language } from '../languages/types.ts';
import { fragmentText } from './formats/fragment.ts';
import type { TextUnit } from './formats/types.ts';

/**
 * Units per service call (one call is one engine request: the engine translates each distinct sentence of it once)
 * and sentences per call, so that a document of very long paragraphs still reports progress.
 */
const BATCH_UNITS = 64;
const BATCH_SEGMENTS = 1024;
/** Calls in flight at once for one document: while one is put back together, the next is in the engine. */
const IN_FLIGHT = 2;

/** A unit with the service's plan of it, made once. */
export interface PlannedUnit extends TextUnit {
  plan: AnyPlan;
}

const isPlanned = (u: TextUnit): u is PlannedUnit => 'plan' in u && (u as PlannedUnit).plan !== undefined;

/**
 * Every unit planned by the service's html planner, and the code points of the text they send to translation
 * (their sentences, without markup). Long units are planned on the text worker, all at once; short ones here, in
 * slices that leave the event loop to other requests.
 */
export async function planUnits(service: Service, units: readonly TextUnit[]): Promise<{ units: PlannedUnit[]; characters: number }> {
  const slices = new Slices();
  const pending: (AnyPlan | Promise<AnyPlan>)[] = [];
  for (const u of units) {
    pending.push(isPlanned(u) ? u.plan : service.deps.planners.html(u.html));
    await slices.next();
  }
  const plans = await Promise.all(pending);
  let characters = 0;
  for (const plan of plans) for (const s of plan.segments) characters += codePoints(s);
  return { units: units.map((u, i) => ({ html: u.html, plan: plans[i]! })), characters };
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

function batches(units: readonly PlannedUnit[]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let segments = 0;
  units.forEach((u, i) => {
    const n = u.plan.segments.length;
    if (i > start && (i - start >= BATCH_UNITS || segments + n > BATCH_SEGMENTS)) {
      out.push([start, i]);
      start = i;
      segments = 0;
    }
    segments += n;
  });
  if (start < units.length) out.push([start, units.length]);
  return out;
}

/**
 * Translations of `units` in order (planned here if they were not). `onProgress(done, total)` counts units as
 * batches finish, without holding up the next batch; `signal` stops before the next batch.
 */
export async function translateUnits(
  service: Service,
  units: readonly TextUnit[],
  source: Language,
  target: Language,
  onProgress: (done: number, total: number) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<string[]> {
  const planned = units.every(isPlanned) ? units : (await planUnits(service, units)).units;
  const out = new Array<string>(planned.length);
  const queue = batches(planned);
  let done = 0;
  // Progress writes run one after another, beside the translation: a slow store never delays a batch.
  let progress: Promise<void> = Promise.resolve();
  let progressError: unknown;
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      signal?.throwIfAborted();
      const [from, to] = next;
      const batch = planned.slice(from, to);
      const strings = batch.map((u) => u.html);
      const plans = batch.map((u) => u.plan);
      const result = await service.translate(
        { strings, single: false, target, source, format: 'html', chars: 0, options: {}, plans },
        signal,
      );
      result.translations.forEach((t, k) => (out[from + k] = t.translatedText));
      done += to - from;
      const now = done;
      progress = progress.then(() => onProgress(now, planned.length)).catch((err: unknown) => {
        progressError ??= err;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, queue.length) }, worker));
  await progress;
  if (progressError !== undefined) throw progressError;
  return out;
}
