// Units through the service layer: the same path as /v1/translate with format=html. Each unit is planned once
// (its sentences cut and its tags noted), when the document is checked: the plans give the characters charged
// and are handed to the service with the units, which would otherwise plan them again. Units go in large batches,
// a couple in flight so the engine always has the next one queued; progress is reported as batches finish.
import { codePoints } from '../service/validate.ts';
import { Slices } from '../service/slices.ts';
import type { Service } from '../service/index.ts';
import type { AnyPlan, TranslateOptions } from '../service/types.ts';
import type { Language } from '../languages/types.ts';
import { fragmentText } from './formats/fragment.ts';
import type { TextUnit, UnitNote } from './formats/types.ts';

/**
 * Units per service call (one call is one engine request: the engine translates each distinct sentence of it once)
 * and sentences per call, so that a document of very long paragraphs still reports progress.
 */
const BATCH_UNITS = 64;
const BATCH_SEGMENTS = 1024;
/** Batches at the engine at once for one document (as many workers, each putting its last batch together meanwhile). */
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
 * batches finish, without holding up the next batch; `signal` stops before the next batch; `options` go to every
 * call (a glossary).
 *
 * Each of the IN_FLIGHT workers keeps one batch at the engine: when a batch's sentences come back, the worker sends
 * its next batch first and only then puts the units together. The engine is never left waiting for that work, and
 * batches that come back together leave together (the engine joins sentences that arrive together into one run).
 */
export async function translateUnits(
  service: Service,
  units: readonly TextUnit[],
  source: Language,
  target: Language,
  onProgress: (done: number, total: number) => void | Promise<void>,
  signal?: AbortSignal,
  options: TranslateOptions = {},
  /** Filled with what the memory did for each unit (when options name one). */
  notes?: (UnitNote | undefined)[],
): Promise<string[]> {
  const planned = units.every(isPlanned) ? units : (await planUnits(service, units)).units;
  const out = new Array<string>(planned.length);
  const queue = batches(planned);
  let done = 0;
  // Progress writes run one after another, beside the translation: a slow store never delays a batch.
  let progress: Promise<void> = Promise.resolve();
  let progressError: unknown;

  /** A batch through the service: each unit's sentence translations (undefined: the service left it as it was). */
  const send = ([from, to]: [number, number]): Promise<(string[] | undefined)[]> => {
    signal?.throwIfAborted();
    const batch = planned.slice(from, to);
    const sentences = new Array<string[] | undefined>(batch.length);
    // The service is handed plans that keep the sentences' translations; the units' own plans put them together.
    const plans = batch.map((u, k): AnyPlan => ({
      segments: u.plan.segments,
      assemble: (translations) => {
        sentences[k] = translations;
        return '';
      },
    }));
    const strings = batch.map((u) => u.html);
    const sent = service
      .translate({ strings, single: false, target, source, format: 'html', chars: 0, options, plans }, signal)
      .then((result) => {
        if (notes) {
          for (const [k, t] of result.translations.entries()) {
            const m = t.memory;
            notes[from + k] = m && { origin: m.segments > 0 && m.exact === m.segments ? 'memory' : 'machine', matches: m.matches.map(({ source, target, similarity }) => ({ source, target, similarity })) };
          }
        }
        return sentences;
      });
    sent.catch(() => undefined); // awaited by its worker; it may fail while the worker puts the previous batch together
    return sent;
  };

  const worker = async () => {
    const slices = new Slices();
    let batch = queue.shift();
    let sent = batch && send(batch);
    while (batch && sent) {
      const sentences = await sent;
      const [from, to] = batch;
      batch = queue.shift();
      sent = batch && send(batch);
      for (const [k, translations] of sentences.entries()) {
        const unit = planned[from + k]!;
        const text = translations === undefined ? unit.html : unit.plan.assemble(translations);
        out[from + k] = typeof text === 'string' ? text : await text;
        await slices.next();
      }
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
