// Beam search's steps in an ONNX Loop, as greedy-loop.ts does for greedy search. One step a run costs more than the
// same steps inside a Loop: each run copies the whole cache out to JavaScript and back, and wakes the threads again
// (what it earns: docs/tuning.md, `npm run bench:passes`).
//
// Each iteration reorders the cache by the previous choice (Gather on the rows: the first iteration by the `from`
// it is given), runs the step model (its search outputs: each row's k best logits and log-softmax statistics) and
// ranks the step with beam-rank.ts's nodes, the ranking beam search always uses. The first `beams` candidates of each sentence become its next beams, as beam.ts takes them when none of
// them is EOS; the Loop ends after a step where one is (a finished hypothesis, beam.ts's to keep). Every step's ranking
// is a scan output, so beam.ts keeps its hypotheses' tokens and scores, and chooses after the last step itself.
import {
  bodyFields, int64Scalar, loopPart, loopsModel, greedyLoopPart, renamedInfo, scalarInitializer, stepModelIo, type LoopPart, type StepModelIo,
} from './greedy-loop.ts';
import { BOOL, FLOAT, GRAPH, INT64, concat, int64InitializerField, intAttribute, lenField, nodeField, raw, tensorInfoField } from '../model/onnx-proto.ts';
import { statSync } from 'node:fs';
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import { BEAM_RANK, beamRankModel, rankNodes } from './beam-rank.ts';
import { feedsFor, testFeeds } from '../graph/check-feeds.ts';
import { BEAM_LOOP, cacheUnder, loopRun, searchFeeds, twoBeams, WHOLE_ROW } from './loop-io.ts';
import type { GraphPass } from '../graph/pass.ts';
import { SEARCH } from './top-candidates.ts';
import { checkGreedyLoop, checkLoop } from './greedy-loop.ts';

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
  const n = (op: string, ins: string[], out: string, attrs: Uint8Array[] = []) => nodeField(op, ins, [out], out, attrs);
  const body = concat([
    // The cache rows the previous step's choice continues.
    ...selfPast.map((f) => nodeField('Gather', [`${p}in/${inName(f)}`, `${p}from_in`], [inName(f)], `${p}reorder/${inName(f)}`, [intAttribute('axis', 0)])),
    ...bodyFields(io),
    lenField(GRAPH.name, 'beam_step'),
    int64Scalar(`${p}pad`, padId),
    int64Scalar(`${p}eos`, eosId),
    scalarInitializer(`${p}zero_f`, FLOAT, new Uint8Array(4)),
    int64InitializerField(`${p}zero1`, [0]),
    int64InitializerField(`${p}one1`, [1]),
    ...rankNodes(`${p}rank/`, {
      logits: 'logits', candValues: SEARCH.values, candIds: SEARCH.ids, max: SEARCH.max, logSum: SEARCH.logSum,
      scores: `${p}scores_in`, mask: BEAM_LOOP.mask, forced: BEAM_LOOP.forced, done: `${p}done_in`, beams: B,
      values: `${p}ranked_values`, from: `${p}ranked_from`, ids: `${p}ranked_ids`,
    }),
    // The first `beams` candidates of each sentence continue, a row each.
    n('Slice', [`${p}ranked_ids`, `${p}zero1`, B, `${p}one1`], `${p}tok_b`),
    n('Slice', [`${p}ranked_from`, `${p}zero1`, B, `${p}one1`], `${p}from_b`),
    n('Slice', [`${p}ranked_values`, `${p}zero1`, B, `${p}one1`], `${p}score_b`),
    n('Shape', [`${p}scores_in`], `${p}rows_shape`),
    n('Reshape', [`${p}tok_b`, `${p}rows_shape`], `${p}tok_r`),
    n('Reshape', [`${p}from_b`, `${p}rows_shape`], `${p}from_r`),
    n('Reshape', [`${p}score_b`, `${p}rows_shape`], `${p}score_r`),
    n('Reshape', [`${p}done_in`, `${p}rows_shape`], `${p}done_r`),
    // A finished sentence's rows follow its first row with padding and score 0 (beam.ts's pad(beams, 0)).
    n('Div', [`${p}from_r`, B], `${p}sentence_r`),
    n('Mul', [`${p}sentence_r`, B], `${p}first_r`),
    n('Where', [`${p}done_r`, `${p}first_r`, `${p}from_r`], `${p}next_from`),
    n('Where', [`${p}done_r`, `${p}pad`, `${p}tok_r`], `${p}next_tok`),
    n('Where', [`${p}done_r`, `${p}zero_f`, `${p}score_r`], `${p}next_score`),
    n('Unsqueeze', [`${p}next_tok`, `${p}one1`], `${p}next_ids`),
    // Stop after a step where a live sentence keeps an EOS among its first `beams`: a hypothesis for beam.ts.
    n('Equal', [`${p}tok_r`, `${p}eos`], `${p}is_eos`),
    n('Not', [`${p}done_r`], `${p}live`),
    n('And', [`${p}is_eos`, `${p}live`], `${p}eos_live`),
    n('Cast', [`${p}eos_live`], `${p}eos_i`, [intAttribute('to', INT64)]),
    nodeField('ReduceSum', [`${p}eos_i`, `${p}zero1`], [`${p}eos_count`], `${p}eos_count`, [intAttribute('keepdims', 0)]),
    n('Equal', [`${p}eos_count`, `${p}zero`], `${p}cond_out`),
    int64Scalar(`${p}zero`, 0),
    n('Identity', [`${p}done_in`], `${p}done_out`),
    tensorInfoField(GRAPH.input, `${p}iter`, INT64, []),
    tensorInfoField(GRAPH.input, `${p}cond_in`, BOOL, []),
    raw(graph, idsInput),
    ...selfPast.map((f) => renamedInfo(GRAPH.input, f, `${p}in/${inName(f)}`)),
    tensorInfoField(GRAPH.input, `${p}from_in`, INT64, ['batch_size']),
    tensorInfoField(GRAPH.input, `${p}scores_in`, FLOAT, ['batch_size']),
    tensorInfoField(GRAPH.input, `${p}done_in`, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.output, `${p}cond_out`, BOOL, []),
    tensorInfoField(GRAPH.output, `${p}next_ids`, INT64, ['batch_size', 1]),
    ...present.map((name) => raw(graph, outputOf(name))),
    tensorInfoField(GRAPH.output, `${p}next_from`, INT64, ['batch_size']),
    tensorInfoField(GRAPH.output, `${p}next_score`, FLOAT, ['batch_size']),
    tensorInfoField(GRAPH.output, `${p}done_out`, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.output, `${p}ranked_values`, FLOAT, ['sentences', 'candidates']),
    tensorInfoField(GRAPH.output, `${p}ranked_from`, INT64, ['sentences', 'candidates']),
    tensorInfoField(GRAPH.output, `${p}ranked_ids`, INT64, ['sentences', 'candidates']),
  ]);
  const carried = {
    in: [BEAM_LOOP.from, BEAM_LOOP.scores, BEAM_LOOP.done],
    out: [`${p}last_from`, `${p}last_scores`, `${p}last_done`],
  };
  const scans = [BEAM_LOOP.values, BEAM_LOOP.rankedFrom, BEAM_LOOP.rankedIds];
  return loopPart(io, p, BEAM_LOOP, body, carried, scans, [
    tensorInfoField(GRAPH.input, BEAM_LOOP.from, INT64, ['batch_size']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.scores, FLOAT, ['batch_size']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.done, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.input, BEAM_LOOP.mask, FLOAT, ['rule_rows', 1, 'vocab']),
    tensorInfoField(GRAPH.input, BEAM_LOOP.forced, INT64, ['rule_rows', 1, 1]),
    tensorInfoField(GRAPH.input, BEAM_LOOP.beams, INT64, [1]),
    tensorInfoField(GRAPH.output, BEAM_LOOP.values, FLOAT, ['steps', 'sentences', 'candidates']),
    tensorInfoField(GRAPH.output, BEAM_LOOP.rankedFrom, INT64, ['steps', 'sentences', 'candidates']),
    tensorInfoField(GRAPH.output, BEAM_LOOP.rankedIds, INT64, ['steps', 'sentences', 'candidates']),
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
  // 3: the Loop ranks with beam-rank.ts and stops only at a hypothesis. 4: the ranking's If branches share nodes.
  version: 4,
  wanted: (ctx, g) => !!g.facts.loop && beamLoopFits(ctx.decoderPath, ctx.decoderBytes),
  async run(g, ctx) {
    const looped = withSearchLoops(g.step, ctx.padId, ctx.eosId!);
    if (!looped) return undefined;
    const vocab = await checkLoop(looped, g.step, ctx, async (loop, step, padId, eosId, crossKv, dims) => {
      const v = await checkGreedyLoop(loop, step, padId, eosId, crossKv, dims);
      await checkBeamLoop(loop, step, padId, eosId, crossKv, dims);
      return v;
    });
    return { ...g, model: looped, facts: { ...g.facts, loop: { vocab, beam: true } } };
  },
};

/**
 * Beam search's Loop must rank its first step of a two-row batch (one sentence, two beams, one row padded) as
 * beam-rank.ts's model ranks the step model's logits, and, EOS banned, run a second step on the reordered cache.
 */
export async function checkBeamLoop(
  session: ort.InferenceSession, step: ort.InferenceSession, padId: number, eosId: number, crossKv: ort.InferenceSession, dims: DecoderDims,
): Promise<void> {
  const feeds = await testFeeds(crossKv, dims);
  // Twelve candidates a row, as beam.ts asks for two beams (2 × beams, a ban, a margin of 8).
  const search = searchFeeds(12, WHOLE_ROW);
  const ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(padId), BigInt(padId)), [2, 1]);
  const first = await step.run(feedsFor(step, { ...feeds, ...search, input_ids: ids }));
  const logits = first.logits as ort.Tensor;
  const own = twoBeams(2, ids, logits.dims[2]!, eosId);
  const run = { ...cacheUnder(BEAM_LOOP.prefix, feeds), ...search, ...own };
  const out = await session.run(loopRun(session, run, {}, BEAM_LOOP.prefix, dims), [BEAM_LOOP.values, BEAM_LOOP.rankedIds]);
  const rank = await ort.InferenceSession.create(beamRankModel(), { logSeverityLevel: 3 });
  try {
    const want = await rank.run({
      [BEAM_RANK.logits]: logits, [BEAM_RANK.k]: search[SEARCH.k]!, [BEAM_RANK.scores]: own[BEAM_LOOP.scores]!, [BEAM_RANK.mask]: own[BEAM_LOOP.mask]!,
      [BEAM_RANK.forced]: own[BEAM_LOOP.forced]!, [BEAM_RANK.done]: own[BEAM_LOOP.done]!, [BEAM_RANK.beams]: own[BEAM_LOOP.beams]!,
    });
    const ranked = (out[BEAM_LOOP.rankedIds] as ort.Tensor);
    if (ranked.dims[0] !== 2) throw new Error('beam loop: not two steps');
    const same = (a: ArrayLike<unknown>, b: ArrayLike<unknown>) => Array.from(b).every((x, i) => a[i] === x);
    if (!same((out[BEAM_LOOP.values] as ort.Tensor).data as Float32Array, want[BEAM_RANK.values]!.data as Float32Array)
      || !same(ranked.data as BigInt64Array, want[BEAM_RANK.ids]!.data as BigInt64Array)) throw new Error('beam loop: another ranking');
  } finally {
    await rank.release();
  }
}
