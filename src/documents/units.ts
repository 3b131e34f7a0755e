// Units through the service layer: the same path as /v1/translate with format=html. Each unit was planned once, on
// a document worker, when the document was checked (its sentences cut, its characters counted); its sentences go
// to the service with plans that keep their translations, and the worker puts each unit together when it writes
// the file. Units go in large batches, a couple in flight so the engine always has the next one queued; progress
// is reported as batches finish. Units are bulk work: the engine serves interactive requests before them.
import { Slices } from '../service/slices.ts';
import type { Service } from '../service/index.ts';
import type { AnyPlan, MemoryOutcome, TranslateOptions } from '../service/types.ts';
import type { UnitNote } from './formats/types.ts';
import type { Language } from '../languages/types.ts';
import { SegmentTableBuilder, SegmentTableReader, type SegmentTable } from './segment-table.ts';

/**
 * Units per service call (one call is one engine request: the engine translates each distinct sentence of it once)
 * and sentences per call, so that a document of very long paragraphs still reports progress.
 */
const BATCH_UNITS = 64;
const BATCH_SEGMENTS = 1024;
/** Batches at the engine at once for one document (as many workers, each putting its last batch together meanwhile). */
const IN_FLIGHT = 2;

function batches(units: SegmentTableReader): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let segments = 0;
  for (let i = 0; i < units.units; i++) {
    const n = units.countOf(i);
    if (i > start && (i - start >= BATCH_UNITS || segments + n > BATCH_SEGMENTS)) {
      out.push([start, i]);
      start = i;
      segments = 0;
    }
    segments += n;
  }
  if (start < units.units) out.push([start, units.units]);
  return out;
}

/**
 * Each unit's translated sentences, in order (none: the service left the unit as it was). `onProgress(done, total)`
 * counts units as batches finish, without holding up the next batch; `signal` stops before the next batch;
 * `options` go to every call (a glossary; `documentContext`: each batch gets the sentences before it as well).
 *
 * Each of the IN_FLIGHT workers keeps one batch at the engine: when a batch's sentences come back, the worker sends
 * its next batch first and only then files the translations. The engine is never left waiting for that work, and
 * batches that come back together leave together (the engine joins sentences that arrive together into one run).
 */
export async function translateUnits(
  service: Service,
  segments: SegmentTable,
  source: Language,
  target: Language,
  onProgress: (done: number, total: number) => void | Promise<void>,
  signal?: AbortSignal,
  options: TranslateOptions = {},
): Promise<SegmentTable> {
  const units = new SegmentTableReader(segments);
  const out = new Array<string[] | undefined>(units.units);
  const queue = batches(units);
  let done = 0;
  // Progress writes run one after another, beside the translation: a slow store never delays a batch.
  let progress: Promise<void> = Promise.resolve();
  let progressError: unknown;

  /** A batch through the service: each unit's sentence translations (undefined: the service left it as it was). */
  const notes = options.memory ? new Array<UnitNote | undefined>(units.units) : undefined;
  let memoryChars = 0;
  const send = ([from, to]: [number, number]): Promise<(string[] | undefined)[]> => {
    signal?.throwIfAborted();
    const sentences = new Array<string[] | undefined>(to - from);
    // The service is handed plans that keep the sentences' translations (the units themselves stay on the worker).
    const plans = Array.from({ length: to - from }, (_, k): AnyPlan => ({
      segments: units.segmentsOf(from + k) ?? [],
      assemble: (translations) => {
        sentences[k] = translations;
        return '';
      },
    }));
    const strings = plans.map(() => '');
    // An LLM translator reads each sentence's earlier sentences as context: those of earlier batches come along.
    const documentContext = options.documentContext && { ...options.documentContext, before: earlierSegments(units, from, options.documentContext.chars) };
    const sent = service
      .translate({
        strings, single: false, target, source, format: 'html', chars: 0, options: { ...options, priority: 'bulk', ...(documentContext ? { documentContext } : {}) }, plans,
      }, signal)
      .then((result) => {
        if (notes) {
          memoryChars += result.memoryChars;
          for (const [k, t] of result.translations.entries()) if (t.memory?.origins.length && sentences[k]) notes[from + k] = noteOf(t.memory);
        }
        return sentences;
      });
    sent.catch(() => undefined); // awaited by its worker; it may fail while the worker files the previous batch
    return sent;
  };

  const worker = async () => {
    let batch = queue.shift();
    let sent = batch && send(batch);
    while (batch && sent) {
      const sentences = await sent;
      const [from, to] = batch;
      batch = queue.shift();
      sent = batch && send(batch);
      for (const [k, translations] of sentences.entries()) out[from + k] = translations;
      done += to - from;
      const now = done;
      progress = progress.then(() => onProgress(now, units.units)).catch((err: unknown) => {
        progressError ??= err;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, queue.length) }, worker));
  await progress;
  if (progressError !== undefined) throw progressError;
  const table = new SegmentTableBuilder();
  const slices = new Slices();
  for (const translations of out) {
    table.add(translations);
    await slices.next();
  }
  return notes ? { ...table.build(), notes, memoryChars } : table.build();
}

/** The sentences just before unit `from`, in order, about `chars` characters of them (the service takes the latest that fit). */
function earlierSegments(units: SegmentTableReader, from: number, chars: number): string[] {
  const out: string[] = [];
  let used = 0;
  for (let u = from - 1; u >= 0 && used < chars; u--) {
    const sentences = units.segmentsOf(u) ?? [];
    for (let j = sentences.length - 1; j >= 0 && used < chars; j--) {
      out.unshift(sentences[j]!);
      used += sentences[j]!.length + 1;
    }
  }
  return out;
}

/** Most fuzzy matches a unit reports (its sentences' best first). */
const UNIT_MATCHES = 3;

/** What the memory did for a unit: where its translation came from, and its sentences' fuzzy matches. */
function noteOf(m: MemoryOutcome): UnitNote {
  const origin = m.origins.every((o) => o === 'reviewed') ? 'reviewed' : m.origins.every((o) => o !== 'machine') ? 'learned' : 'machine';
  const matches = m.matches
    .filter((x) => x.similarity < 100 && m.origins[x.sentence] === 'machine')
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, UNIT_MATCHES)
    .map((x) => ({ source: x.source, target: x.target, similarity: x.similarity }));
  return { origin, matches };
}

/** Every unit left as it was (nothing to translate: no source language, or no characters). */
export function untranslated(segments: SegmentTable): SegmentTable {
  return { text: '', lengths: new Uint32Array(0), counts: new Int32Array(segments.counts.length).fill(-1) };
}
