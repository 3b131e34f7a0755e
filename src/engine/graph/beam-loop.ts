// Beam search's steps in an ONNX Loop, as greedy-loop.ts does for greedy search. One step a run costs more than the
// same steps inside a Loop: each run copies the whole cache out to JavaScript and back, and wakes the threads again
// (what it earns: docs/tuning.md, `npm run bench:passes`).
//
// Each iteration reorders the cache by the previous choice (Gather on the rows), runs the step model (with its search
// outputs, top-candidates.ts) and chooses exactly as beam.ts does from the decoder's m best logits: log-probability
// f32(f32(x − max) − logSum), plus the beam's score (float32), banned ids out; the 2 × beams best of each sentence by
// (score desc, flat index asc); the first `beams` become the next beams. The loop ends after the step where beam.ts
// must decide itself: an EOS among a sentence's first `beams` candidates (a finished hypothesis), or the boundary
// check failing (a beam's unread logits could tie the 2 × beams-th: beam.ts scans all logits, which this step then
// leaves in `lastLogits`). beam.ts follows the graph's choices (tokens, and scores from the scan outputs) and makes
// the last step's choice itself (and reorders the cache by it).
import {
  bodyFields, greedyLoopPart, int64Scalar, loopPart, loopsModel, renamedInfo, scalarInitializer, stepModelIo, type LoopPart, type StepModelIo,
} from './greedy-loop.ts';
import {
  BOOL, FLOAT, GRAPH, INT64, concat, int64InitializerField, intAttribute, lenField, nodeField, raw, tensorInfoField,
} from './onnx-proto.ts';
import { statSync } from 'node:fs';
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import { cacheUnder, feedsFor, loopRun, searchFeeds, testFeeds, twoBeams, WHOLE_ROW as FED_WHOLE_ROW } from './loop-io.ts';
import type { GraphPass } from './passes.ts';
import { SEARCH, TOP_IDS } from './top-candidates.ts';
import { checkGreedyLoop, checkLoop } from './greedy-loop.ts';

/** The beam loop model's own inputs and outputs (its other inputs are the step model's, by the same names). */
export const BEAM_LOOP = {
  /** int64 scalar: steps to run at most. */
  steps: 'beam/steps',
  /** int64 [1]: beams per sentence (rows = sentences × beams, grouped). */
  beams: 'beam/beams',
  /** The first step's tokens [rows, 1], each row's beam score [rows] (float32) and the rows of finished sentences [rows, 1]. */
  ids: 'beam/ids',
  scores: 'beam/scores',
  done: 'beam/done',
  /** int64 [rows]: the row of the cache each row continues (identity for the first step: beam.ts reorders before). */
  from: 'beam/from',
  /** float [vocab]: 0, or -Infinity for a banned token (the same for every row and step of the run). */
  ban: 'beam/ban',
  /** float [rows, 1, 0]: nothing in; out, the last step's logits when its boundary check failed (else [rows, 1, 0]). */
  lastLogits: 'beam/last_logits',
  lastLogitsOut: 'beam/last_logits_out',
  /** Scan outputs, one row per step: the step model's search outputs, and the graph's choice (row followed, token). */
  values: 'beam/top_values',
  topIds: 'beam/top_ids',
  max: 'beam/max',
  logSum: 'beam/log_sum',
  chosenFrom: 'beam/chosen_from',
  chosenIds: 'beam/chosen_ids',
  /** Cache in (`past_key_values.N.decoder.*`) and out (`present.N.decoder.*`) under the step model's names with this prefix. */
  prefix: 'beam/',
} as const;

/** Beyond any vocabulary: Slice clamps it to the row. */
const WHOLE_ROW = 2 ** 40;

/**
 * The beam loop model alone, or undefined when the step model is not one this can wrap (no search outputs, not exactly
 * the self-attention cache as `past_key_values.N.decoder.*` in and `present.N.decoder.*` out).
 */
export function withBeamLoop(model: Uint8Array, padId: number, eosId: number): Uint8Array | undefined {
  const io = stepModelIo(model);
  return io && loopsModel(io, 'beam_loop', [beamLoopPart(io, padId, eosId)]);
}

/**
 * Greedy search's and beam search's Loops in one model over one copy of the step's weights (loopsModel): what the
 * engine runs (the beam-loop pass). Undefined as for withBeamLoop.
 */
export function withSearchLoops(model: Uint8Array, padId: number, eosId: number): Uint8Array | undefined {
  const io = stepModelIo(model);
  return io && loopsModel(io, 'search_loops', [greedyLoopPart(io, padId, eosId), beamLoopPart(io, padId, eosId)]);
}

/** Beam search's Loop over the step model (see the top of this file). */
export function beamLoopPart(io: StepModelIo, padId: number, eosId: number): LoopPart {
  const { graph, inName, selfPast, idsInput, present, outputOf } = io;

  const p = BEAM_LOOP.prefix;
  const B = BEAM_LOOP.beams;
  const m = SEARCH.k;
  const n = (op: string, ins: string[], out: string, attrs: Uint8Array[] = []) => nodeField(op, ins, [out], out, attrs);
  const body = concat([
    // The cache rows the previous step's choice continues.
    ...selfPast.map((f) => nodeField('Gather', [`${p}in/${inName(f)}`, `${p}from_in`], [inName(f)], `${p}reorder/${inName(f)}`, [intAttribute('axis', 0)])),
    ...bodyFields(io),
    lenField(GRAPH.name, 'beam_step'),
    int64Scalar(`${p}pad`, padId),
    int64Scalar(`${p}eos`, eosId),
    int64Scalar(`${p}zero`, 0),
    int64Scalar(`${p}one`, 1),
    scalarInitializer(`${p}zero_f`, FLOAT, new Uint8Array(4)),
    int64InitializerField(`${p}zero1`, [0]),
    int64InitializerField(`${p}one1`, [1]),
    int64InitializerField(`${p}two1`, [2]),
    int64InitializerField(`${p}minus1`, [-1]),
    int64InitializerField(`${p}axes12`, [1, 2]),
    int64InitializerField(`${p}whole`, [WHOLE_ROW]),
    // Each candidate's score as beam.ts computes it: f32(f32(f32(x − max) − logSum) + beam score); banned ids −∞.
    n('Sub', [SEARCH.values, SEARCH.max], `${p}shifted`),
    n('Sub', [`${p}shifted`, SEARCH.logSum], `${p}logprob`),
    n('Unsqueeze', [`${p}scores_in`, `${p}axes12`], `${p}base`),
    n('Add', [`${p}logprob`, `${p}base`], `${p}score`),
    n('Gather', [BEAM_LOOP.ban, SEARCH.ids], `${p}cand_ban`),
    n('Add', [`${p}score`, `${p}cand_ban`], `${p}cand_score`),
    // Per sentence, its beams' candidates side by side [sentences, beams × m]: the 2 × beams best, ties to the lower flat index.
    n('Mul', [B, m], `${p}bm`),
    n('Concat', [`${p}minus1`, `${p}bm`], `${p}flat_shape`, [intAttribute('axis', 0)]),
    n('Reshape', [`${p}cand_score`, `${p}flat_shape`], `${p}flat`),
    n('Mul', [B, `${p}two1`], `${p}k2`),
    nodeField('TopK', [`${p}flat`, `${p}k2`], [`${p}top_v`, `${p}top_i`], `${p}top`, [intAttribute('axis', 1), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    n('Reshape', [SEARCH.ids, `${p}flat_shape`], `${p}flat_ids`),
    nodeField('GatherElements', [`${p}flat_ids`, `${p}top_i`], [`${p}top_tok`], `${p}top_tok`, [intAttribute('axis', 1)]),
    n('Div', [`${p}top_i`, m], `${p}top_beam`),
    // The first `beams` of them continue (none is EOS, or the loop ends at this step).
    n('Slice', [`${p}top_tok`, `${p}zero1`, B, `${p}one1`], `${p}tok_b`),
    n('Slice', [`${p}top_beam`, `${p}zero1`, B, `${p}one1`], `${p}beam_b`),
    n('Slice', [`${p}top_v`, `${p}zero1`, B, `${p}one1`], `${p}score_b`),
    n('Shape', [`${p}scores_in`], `${p}rows_shape`),
    n('Div', [`${p}rows_shape`, B], `${p}sentences1`),
    n('Squeeze', [`${p}sentences1`, `${p}zero1`], `${p}sentences`),
    n('Range', [`${p}zero`, `${p}sentences`, `${p}one`], `${p}sentence_ids`),
    n('Mul', [`${p}sentence_ids`, B], `${p}first_rows`),
    n('Unsqueeze', [`${p}first_rows`, `${p}one1`], `${p}first_rows2`),
    n('Add', [`${p}first_rows2`, `${p}beam_b`], `${p}from_b`),
    n('Concat', [`${p}sentences1`, B], `${p}sb_shape`, [intAttribute('axis', 0)]),
    n('Expand', [`${p}first_rows2`, `${p}sb_shape`], `${p}first_b`),
    n('Reshape', [`${p}from_b`, `${p}rows_shape`], `${p}from_r`),
    n('Reshape', [`${p}first_b`, `${p}rows_shape`], `${p}first_r`),
    n('Reshape', [`${p}tok_b`, `${p}rows_shape`], `${p}tok_r`),
    n('Reshape', [`${p}score_b`, `${p}rows_shape`], `${p}score_r`),
    n('Reshape', [`${p}done_in`, `${p}rows_shape`], `${p}done_r`),
    // A finished sentence's rows follow its first row with padding and score 0 (beam.ts's pad(beams, 0)).
    n('Where', [`${p}done_r`, `${p}first_r`, `${p}from_r`], `${p}next_from`),
    n('Where', [`${p}done_r`, `${p}pad`, `${p}tok_r`], `${p}next_tok`),
    n('Where', [`${p}done_r`, `${p}zero_f`, `${p}score_r`], `${p}next_score`),
    n('Unsqueeze', [`${p}next_tok`, `${p}one1`], `${p}next_ids`),
    // Stop after this step: an EOS the sentence would keep as a hypothesis, or a beam whose m-th candidate reaches the
    // 2 × beams-th score kept (its unread logits might too: beam.ts's boundary check, then its scan over all logits).
    n('Equal', [`${p}tok_r`, `${p}eos`], `${p}is_eos`),
    n('Not', [`${p}done_r`], `${p}live`),
    n('And', [`${p}is_eos`, `${p}live`], `${p}eos_live`),
    n('Sub', [m, `${p}one1`], `${p}last_at`),
    n('Slice', [`${p}score`, `${p}last_at`, m, `${p}two1`], `${p}unread`),
    n('Reshape', [`${p}unread`, `${p}sb_shape`], `${p}unread_sb`),
    n('Sub', [`${p}k2`, `${p}one1`], `${p}kth_at`),
    n('Slice', [`${p}top_v`, `${p}kth_at`, `${p}k2`, `${p}one1`], `${p}kth`),
    n('Less', [`${p}unread_sb`, `${p}kth`], `${p}inside`),
    n('Reshape', [`${p}inside`, `${p}rows_shape`], `${p}inside_r`),
    n('Not', [`${p}inside_r`], `${p}outside_r`),
    n('And', [`${p}outside_r`, `${p}live`], `${p}fail`),
    n('Cast', [`${p}fail`], `${p}fail_i`, [intAttribute('to', INT64)]),
    nodeField('ReduceSum', [`${p}fail_i`, `${p}zero1`], [`${p}fails`], `${p}fails`, [intAttribute('keepdims', 0)]),
    n('Or', [`${p}eos_live`, `${p}fail`], `${p}stop`),
    n('Cast', [`${p}stop`], `${p}stop_i`, [intAttribute('to', INT64)]),
    nodeField('ReduceSum', [`${p}stop_i`, `${p}zero1`], [`${p}stops`], `${p}stops`, [intAttribute('keepdims', 0)]),
    n('Equal', [`${p}stops`, `${p}zero`], `${p}cond_out`),
    n('Greater', [`${p}fails`, `${p}zero`], `${p}any_fail`),
    n('Where', [`${p}any_fail`, `${p}whole`, `${p}zero1`], `${p}logits_end`),
    n('Slice', ['logits', `${p}zero1`, `${p}logits_end`, `${p}two1`], `${p}last_logits_out`),
    n('Identity', [`${p}done_in`], `${p}done_out`),
    n('Identity', [`${p}next_from`], `${p}chosen_from`),
    n('Identity', [`${p}next_tok`], `${p}chosen_ids`),
    tensorInfoField(GRAPH.input, `${p}iter`, INT64, []),
    tensorInfoField(GRAPH.input, `${p}cond_in`, BOOL, []),
    raw(graph, idsInput),
    ...selfPast.map((f) => renamedInfo(GRAPH.input, f, `${p}in/${inName(f)}`)),
    tensorInfoField(GRAPH.input, `${p}from_in`, INT64, ['batch_size']),
    tensorInfoField(GRAPH.input, `${p}scores_in`, FLOAT, ['batch_size']),
    tensorInfoField(GRAPH.input, `${p}done_in`, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.input, `${p}last_logits_in`, FLOAT, ['batch_size', 1, 'logits_len']),
    tensorInfoField(GRAPH.output, `${p}cond_out`, BOOL, []),
    tensorInfoField(GRAPH.output, `${p}next_ids`, INT64, ['batch_size', 1]),
    ...present.map((name) => raw(graph, outputOf(name))),
    tensorInfoField(GRAPH.output, `${p}next_from`, INT64, ['batch_size']),
    tensorInfoField(GRAPH.output, `${p}next_score`, FLOAT, ['batch_size']),
    tensorInfoField(GRAPH.output, `${p}done_out`, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.output, `${p}last_logits_out`, FLOAT, ['batch_size', 1, 'logits_len']),
    raw(graph, outputOf(SEARCH.values)),
    raw(graph, outputOf(SEARCH.ids)),
    raw(graph, outputOf(SEARCH.max)),
    raw(graph, outputOf(SEARCH.logSum)),
    tensorInfoField(GRAPH.output, `${p}chosen_from`, INT64, ['batch_size']),
    tensorInfoField(GRAPH.output, `${p}chosen_ids`, INT64, ['batch_size']),
  ]);
  const carried = {
    in: [BEAM_LOOP.from, BEAM_LOOP.scores, BEAM_LOOP.done, BEAM_LOOP.lastLogits],
    out: [`${p}last_from`, `${p}last_scores`, `${p}last_done`, BEAM_LOOP.lastLogitsOut],
  };
  const scans = [BEAM_LOOP.values, BEAM_LOOP.topIds, BEAM_LOOP.max, BEAM_LOOP.logSum, BEAM_LOOP.chosenFrom, BEAM_LOOP.chosenIds];
  return loopPart(io, p, BEAM_LOOP, body, carried, scans, [
    tensorInfoField(GRAPH.input, BEAM_LOOP.from, INT64, ['batch_size']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.scores, FLOAT, ['batch_size']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.done, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.input, BEAM_LOOP.lastLogits, FLOAT, ['batch_size', 1, 'logits_len']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.ban, FLOAT, ['vocab']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.beams, INT64, [1]),
    tensorInfoField(GRAPH.output, BEAM_LOOP.lastLogitsOut, FLOAT, ['batch_size', 1, 'logits_len']),
    tensorInfoField(GRAPH.output, BEAM_LOOP.values, FLOAT, ['steps', 'batch_size', 1, 'k']),
    tensorInfoField(GRAPH.output, BEAM_LOOP.topIds, INT64, ['steps', 'batch_size', 1, 'k']),
    tensorInfoField(GRAPH.output, BEAM_LOOP.max, FLOAT, ['steps', 'batch_size', 1, 1]),
    tensorInfoField(GRAPH.output, BEAM_LOOP.logSum, FLOAT, ['steps', 'batch_size', 1, 1]),
    tensorInfoField(GRAPH.output, BEAM_LOOP.chosenFrom, INT64, ['steps', 'batch_size']),
    tensorInfoField(GRAPH.output, BEAM_LOOP.chosenIds, INT64, ['steps', 'batch_size']),
  ]);
}

/**
 * Beam search's Loop sits beside greedy search's in the step model's one session, on the same weights. Its cost, one
 * worker, resident after single beam-4 sentences: int8 files +20-35 MB (bench-marian-base, 56 MB decoder file) and
 * +25-50 MB (a random model of OPUS-MT-big's size, 163 MB); fp32 +150-180 MB (bench-marian-base, 221 MB: onnxruntime
 * keeps fp32 products' packed weights once per Loop). So an int8 decoder file up to the first bound gets it (OPUS-MT
 * base and big), an fp32 one up to the second (small models only). NLLB-200-distilled-600M's size (466 MB int8, a
 * random-weight model) with the Loop: +326 MB resident a worker after load, and a beam-4 sentence no faster (23.1 s
 * against 16.3 s without, one pair on a loaded 2-core machine; docs/performance-nllb.md): it stays without.
 */
export const MAX_BEAM_LOOP_INT8_DECODER_BYTES = 256 * 1024 * 1024;
export const MAX_BEAM_LOOP_FP32_DECODER_BYTES = 64 * 1024 * 1024;

/** Whether this decoder file gets beam search's Loop (int8 is the layout's `*_quantized.onnx`). */
export function beamLoopFits(decoderPath: string, bytes = statSync(decoderPath).size): boolean {
  const bound = /_quantized\.onnx$/.test(decoderPath) ? MAX_BEAM_LOOP_INT8_DECODER_BYTES : MAX_BEAM_LOOP_FP32_DECODER_BYTES;
  return bytes <= bound;
}

/** The pass: greedy search's Loop model replaced by both Loops over one copy of the weights, checked as each alone. */
export const beamLoopPass: GraphPass = {
  name: 'beam-loop',
  version: 1,
  wanted: (ctx, g) => !!g.facts.loop && beamLoopFits(ctx.decoderPath, ctx.decoderBytes),
  async run(g, ctx) {
    const looped = withSearchLoops(g.step, ctx.padId, ctx.eosId!);
    if (!looped) return undefined;
    const vocab = await checkLoop(looped, g.step, ctx, async (loop, step, padId, eosId, crossKv, dims) => {
      const v = await checkGreedyLoop(loop, step, padId, eosId, crossKv, dims);
      await checkBeamLoop(loop, step, padId, crossKv, dims);
      return v;
    });
    return { ...g, model: looped, facts: { ...g.facts, loop: { vocab, beam: true } } };
  },
};

/**
 * Beam search's Loop must read, on its first step of a two-row batch (one sentence, two beams, one row padded), the
 * candidates the step model gives, and run a second step on the reordered cache.
 */
export async function checkBeamLoop(
  session: ort.InferenceSession, step: ort.InferenceSession, padId: number, crossKv: ort.InferenceSession, dims: DecoderDims,
): Promise<void> {
  const feeds = await testFeeds(crossKv, dims);
  // 2 × beams candidates and beam.ts's margin of 8: the boundary check holds, so the run goes on to its second step.
  const search = searchFeeds(12, FED_WHOLE_ROW);
  const ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(padId), BigInt(padId)), [2, 1]);
  const first = await step.run(feedsFor(step, { ...feeds, ...search, input_ids: ids }));
  const vocab = (first.logits as ort.Tensor).dims[2]!;
  const run = { ...cacheUnder(BEAM_LOOP.prefix, feeds), ...search, ...twoBeams(2, ids, vocab) };
  const out = await session.run(loopRun(session, run, {}, BEAM_LOOP.prefix, dims), [BEAM_LOOP.topIds, BEAM_LOOP.chosenFrom]);
  const top = (out[BEAM_LOOP.topIds] as ort.Tensor).data as BigInt64Array;
  const want = (first[TOP_IDS] as ort.Tensor).data as BigInt64Array;
  if (want.some((id, i) => top[i] !== id)) throw new Error('beam loop: other candidates');
  const from = out[BEAM_LOOP.chosenFrom] as ort.Tensor;
  if (from.dims[0] !== 2 || (from.data as BigInt64Array).some((r) => r !== 0n && r !== 1n)) throw new Error('beam loop: not two steps on rows 0 and 1');
}
