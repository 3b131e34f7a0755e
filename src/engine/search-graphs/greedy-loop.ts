// The with-past step model (with its search outputs, top-candidates.ts) wrapped in an ONNX Loop, so that greedy
// search runs many steps in one onnxruntime run. Each step as its own run cost, besides the step itself, a copy of
// every output into a fresh JavaScript buffer, fresh input buffers the next step, and the threads' sleep and wake-up between runs; inside a Loop the cache stays in onnxruntime's buffers and
// the threads spin from one step to the next. Same tokens, faster (what it earns: docs/tuning.md, `npm run
// bench:passes`).
//
// One model serves every search: a run of M = 1 is the plain step (its top ids, or its logits: M = 1 rows of each
// scan output), a run of M > 1 is greedy search over steps whose rules only ban (the same tokens banned for
// every row: pad always, EOS while a minimum length holds), chosen in the graph exactly as greedy.ts chooses from the
// candidates: the best of the k best logits that is not banned (ties to the lower id).
import {
  BOOL, FLOAT, GRAPH, INT64, TENSOR, VALUE_INFO_NAME, concat, fields, graphAttribute, intAttribute, lenField, modelGraph, nameOf, nodeField, raw,
  tensorInfoField, varintField, type Field,
} from '../model/onnx-proto.ts';
import { statSync } from 'node:fs';
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import { feedsFor, testFeeds } from '../graph/check-feeds.ts';
import { cacheUnder, DROP_FINISHED_SHARE, greedyLoopInputs, LOOP, loopRun, NO_SEARCH, noLogits } from './loop-io.ts';
import type { GraphPass } from '../graph/pass.ts';
import { SEARCH, TOP_IDS } from './top-candidates.ts';

function scalarInfo(field: number, name: string, elemType: number): Uint8Array {
  return tensorInfoField(field, name, elemType, []);
}

export function int64Scalar(name: string, value: number): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt(value), true);
  return scalarInitializer(name, INT64, bytes);
}

/** A graph initializer without dims (a scalar). */
export function scalarInitializer(name: string, dataType: number, bytes: Uint8Array): Uint8Array {
  return lenField(GRAPH.initializer, concat([varintField(TENSOR.dataType, dataType), lenField(TENSOR.name, name), lenField(TENSOR.rawData, bytes)]));
}

/** Renames a ValueInfoProto field (keeps its type). */
export function renamedInfo(field: number, info: Field, name: string): Uint8Array {
  const parts = fields(info.value).filter((f) => f.no !== VALUE_INFO_NAME).map((f) => raw(info.value, f));
  return lenField(field, concat([lenField(VALUE_INFO_NAME, name), ...parts]));
}

/**
 * What a Loop around the step model takes from it, or undefined when it is not one a Loop can wrap (no search outputs,
 * not exactly the self-attention cache as `past_key_values.N.decoder.*` in and `present.N.decoder.*` out, any other
 * output). greedy-loop.ts and beam-loop.ts both build on it.
 */
export function stepModelIo(model: Uint8Array) {
  const parsed = modelGraph(model);
  if (!parsed) return undefined;
  const { graph, fields: main } = parsed;
  const inputs = main.filter((f) => f.no === GRAPH.input);
  const outputs = main.filter((f) => f.no === GRAPH.output);
  const inName = (f: Field) => nameOf(f, VALUE_INFO_NAME);
  const outNames = outputs.map(inName);
  const searchOutputs = ['logits', SEARCH.values, SEARCH.ids, SEARCH.max, SEARCH.logSum];
  for (const n of searchOutputs) if (!outNames.includes(n)) return undefined;
  const selfPast = inputs.filter((f) => /^past_key_values\.\d+\.decoder\.(key|value)$/.test(inName(f)));
  const idsInput = inputs.find((f) => inName(f) === 'input_ids');
  if (!idsInput || selfPast.length === 0) return undefined;
  const present = selfPast.map((f) => inName(f).replace(/^past_key_values\./, 'present.'));
  if (present.some((p) => !outNames.includes(p))) return undefined;
  // Every other output must be one the loop passes on (logits and the search outputs) — anything else is unknown.
  if (outNames.some((n) => !present.includes(n) && !searchOutputs.includes(n))) return undefined;
  const outer = inputs.filter((f) => f !== idsInput && !selfPast.includes(f));
  const outputOf = (name: string) => outputs.find((f) => inName(f) === name)!;
  return { parsed, graph, main, inName, selfPast, idsInput, present, outer, outputOf };
}

export type StepModelIo = NonNullable<ReturnType<typeof stepModelIo>>;

/** One Loop of a loops model: its node, and what it adds to the model's graph (its own initializers, inputs and outputs). */
export interface LoopPart {
  node: Uint8Array;
  top: Uint8Array[];
}

/**
 * The step model's Loops as one model: the step's weights once, in the outer graph, read by every Loop's body from
 * there; the inputs the Loops share (cross-attention K/V, mask, search inputs) once. One onnxruntime session then
 * holds one copy of the weights whatever the Loops: two sessions of OPUS-MT-base int8 cost ~240 MB more resident
 * than one, a second Loop in the same session ~28 MB, and runs alternating between the two Loops were as fast as runs
 * of one (docs/tuning.md). Every run feeds every Loop's inputs: a Loop given zero steps and empty
 * tensors only passes them through.
 */
export function loopsModel(io: StepModelIo, name: string, parts: LoopPart[]): Uint8Array {
  const { parsed, graph, main, outer } = io;
  return parsed.withGraph(concat([
    lenField(GRAPH.name, name),
    ...main.filter((f) => f.no === GRAPH.initializer || f.no === GRAPH.sparseInitializer).map((f) => raw(graph, f)),
    ...parts.map((part) => part.node),
    ...outer.map((f) => raw(graph, f)),
    ...parts.flatMap((part) => part.top),
  ]));
}

/** The step graph's nodes and value infos for a Loop's body: all but its inputs, outputs, name and weights (loopsModel's). */
export function bodyFields(io: StepModelIo): Uint8Array[] {
  const kept = (no: number) => no !== GRAPH.input && no !== GRAPH.output && no !== GRAPH.name && no !== GRAPH.initializer && no !== GRAPH.sparseInitializer;
  return io.main.filter((f) => kept(f.no)).map((f) => raw(io.graph, f));
}

/**
 * What every Loop of a loops model has: a node running `body` for up to `steps` iterations (condition `true`), whose
 * carried values are the tokens, the self-attention cache under `prefix`, then `carried`; in the outer graph, its trip
 * count, first tokens (`ids`) and cache as inputs and its last cache as outputs, then the Loop's `own` inputs and
 * outputs (value infos).
 */
export function loopPart(
  io: StepModelIo, prefix: string, names: { steps: string; ids: string }, body: Uint8Array,
  carried: { in: string[]; out: string[] }, scans: string[], own: Uint8Array[],
): LoopPart {
  const { inName, selfPast, idsInput, present, outputOf } = io;
  const carriedIn = [names.ids, ...selfPast.map((f) => prefix + inName(f)), ...carried.in];
  const carriedOut = [`${prefix}last_ids`, ...present.map((n) => prefix + n), ...carried.out];
  return {
    node: nodeField('Loop', [names.steps, `${prefix}true`, ...carriedIn], [...carriedOut, ...scans], `${prefix}loop`, [graphAttribute('body', body)]),
    top: [
      scalarInitializer(`${prefix}true`, BOOL, Uint8Array.of(1)),
      scalarInfo(GRAPH.input, names.steps, INT64),
      renamedInfo(GRAPH.input, idsInput, names.ids),
      ...selfPast.map((f) => renamedInfo(GRAPH.input, f, prefix + inName(f))),
      ...present.map((n) => renamedInfo(GRAPH.output, outputOf(n), prefix + n)),
      ...own,
    ],
  };
}

/** The loop model, or undefined when the step model is not one stepModelIo accepts. */
export function withGreedyLoop(model: Uint8Array, padId: number, eosId: number): Uint8Array | undefined {
  const io = stepModelIo(model);
  return io && loopsModel(io, 'greedy_loop', [greedyLoopPart(io, padId, eosId)]);
}

/** Greedy search's Loop over the step model (see the top of this file). */
export function greedyLoopPart(io: StepModelIo, padId: number, eosId: number): LoopPart {
  const { graph, selfPast, idsInput, present, outputOf } = io;

  const p = 'loop/';
  // The body: the step graph with the loop's inputs first (iteration, condition, then the carried values) and its
  // outputs in the Loop's order (condition, carried values, scan outputs).
  const body = concat([
    ...bodyFields(io),
    lenField(GRAPH.name, 'greedy_step'),
    int64Scalar(`${p}pad`, padId),
    int64Scalar(`${p}eos`, eosId),
    int64Scalar(`${p}zero`, 0),
    int64Scalar(`${p}four`, DROP_FINISHED_SHARE),
    // The candidates' bans, the best one left (first of the sorted k: ties to the lower id), padding for a done row.
    nodeField('Gather', [LOOP.ban, SEARCH.ids], [`${p}cand_ban`], `${p}cand_ban`),
    nodeField('Add', [SEARCH.values, `${p}cand_ban`], [`${p}cand_score`], `${p}cand_score`),
    nodeField('ArgMax', [`${p}cand_score`], [`${p}best_at`], `${p}best_at`, [intAttribute('axis', 2), intAttribute('keepdims', 1)]),
    nodeField('GatherElements', [SEARCH.ids, `${p}best_at`], [`${p}best3`], `${p}best`, [intAttribute('axis', 2)]),
    nodeField('Squeeze', [`${p}best3`, 'search/axes'], [`${p}best`], `${p}squeeze`),
    nodeField('Where', [`${p}done_in`, `${p}pad`, `${p}best`], [`${p}next`], `${p}next`),
    nodeField('Equal', [`${p}next`, `${p}eos`], [`${p}is_eos`], `${p}is_eos`),
    nodeField('Or', [`${p}done_in`, `${p}is_eos`], [`${p}done_out`], `${p}done_out`),
    // Go on while fewer than a quarter of the rows are done: where greedy.ts drops finished rows from the batch. An
    // int8 row's activations are quantized with its batch's, so the loop must end where single steps change the batch.
    nodeField('Cast', [`${p}done_out`], [`${p}done_i`], `${p}done_i`, [intAttribute('to', INT64)]),
    nodeField('ReduceSum', [`${p}done_i`], [`${p}finished`], `${p}finished`, [intAttribute('keepdims', 0)]),
    nodeField('Mul', [`${p}finished`, `${p}four`], [`${p}finished4`], `${p}finished4`),
    nodeField('Shape', [`${p}done_out`], [`${p}shape`], `${p}shape`),
    nodeField('Gather', [`${p}shape`, `${p}zero`], [`${p}rows`], `${p}rows`),
    nodeField('Less', [`${p}finished4`, `${p}rows`], [`${p}cond_out`], `${p}cond_out`),
    nodeField('Identity', [`${p}next`], [`${p}chosen_step`], `${p}chosen_step`),
    nodeField('Slice', ['logits', 'search/zero', LOOP.logitsLen, 'search/axes'], [`${p}logits_part`], `${p}logits_part`),
    scalarInfo(GRAPH.input, `${p}iter`, INT64),
    scalarInfo(GRAPH.input, `${p}cond_in`, BOOL),
    raw(graph, idsInput),
    ...selfPast.map((f) => raw(graph, f)),
    tensorInfoField(GRAPH.input, `${p}done_in`, BOOL, ['batch_size', 1]),
    scalarInfo(GRAPH.output, `${p}cond_out`, BOOL),
    tensorInfoField(GRAPH.output, `${p}next`, INT64, ['batch_size', 1]),
    ...present.map((n) => raw(graph, outputOf(n))),
    tensorInfoField(GRAPH.output, `${p}done_out`, BOOL, ['batch_size', 1]),
    tensorInfoField(GRAPH.output, `${p}chosen_step`, INT64, ['batch_size', 1]),
    raw(graph, outputOf(SEARCH.ids)),
    tensorInfoField(GRAPH.output, `${p}logits_part`, FLOAT, ['batch_size', 1, 'logits_len']),
  ]);
  // LOOP.pastPrefix and LOOP.presentPrefix are `p`: loopPart names the cache under it.
  return loopPart(io, p, LOOP, body, { in: [LOOP.done], out: [`${p}last_done`] },
    [LOOP.chosen, LOOP.topIds, LOOP.logits], [
      tensorInfoField(GRAPH.input, LOOP.done, BOOL, ['batch_size', 1]),
      tensorInfoField(GRAPH.input, LOOP.ban, FLOAT, ['vocab']),
      tensorInfoField(GRAPH.input, LOOP.logitsLen, INT64, [1]),
      tensorInfoField(GRAPH.output, LOOP.chosen, INT64, ['steps', 'batch_size', 1]),
      tensorInfoField(GRAPH.output, LOOP.topIds, INT64, ['steps', 'batch_size', 1, 'k']),
      tensorInfoField(GRAPH.output, LOOP.logits, FLOAT, ['steps', 'batch_size', 1, 'logits_len']),
    ]);
}

/**
 * The Loop's cost grows with the weights: onnxruntime keeps the step's initializers and, beside them, the Loop body's
 * prepacked products. NLLB-200-distilled-600M's size (466 MB int8 decoder file, random weights), the step model alone
 * in a process: 1084 MB resident with the Loop, 733 MB without; a worker after load 1904 MB against 1426 MB
 * (docs/performance-nllb.md). The Loop's gain there is small: one 30-token sentence 7372 ms with it, 7963 ms without
 * (medians of 6 pairs in turns, loaded 2-core machine): 7 % of latency for 25 % of a worker's memory, and memory
 * decides how many workers a host runs. OPUS-MT base and big (56 and 163 MB) keep it.
 */
export const MAX_GREEDY_LOOP_INT8_DECODER_BYTES = 256 * 1024 * 1024;
export const MAX_GREEDY_LOOP_FP32_DECODER_BYTES = 1024 * 1024 * 1024;

/** Whether this decoder file gets greedy search's Loop (int8 is the layout's `*_quantized.onnx`). */
export function greedyLoopFits(decoderPath: string, bytes = statSync(decoderPath).size): boolean {
  const bound = /_quantized\.onnx$/.test(decoderPath) ? MAX_GREEDY_LOOP_INT8_DECODER_BYTES : MAX_GREEDY_LOOP_FP32_DECODER_BYTES;
  return bytes <= bound;
}

/** The pass: the step model (with its search outputs) inside greedy search's Loop, checked by checkGreedyLoop. */
export const greedyLoopPass: GraphPass = {
  name: 'greedy-loop',
  // 2: not for decoder files past greedyLoopFits (a cache entry made by version 1 may hold the Loop for them).
  // 3: no scan outputs of the search statistics (beam search's Loop ranks its steps itself).
  version: 3,
  wanted: (ctx, g) => g.facts.search && ctx.eosId !== undefined && greedyLoopFits(ctx.decoderPath, ctx.decoderBytes),
  async run(g, ctx) {
    const looped = withGreedyLoop(g.step, ctx.padId, ctx.eosId!);
    if (!looped) return undefined;
    const vocab = await checkLoop(looped, g.step, ctx, checkGreedyLoop);
    return { ...g, model: looped, facts: { ...g.facts, loop: { vocab, beam: false } } };
  },
};

/** Opens the Loop model and the step model and runs `check` on them; both released after. */
export async function checkLoop<T>(
  looped: Uint8Array, step: Uint8Array, ctx: Parameters<GraphPass['run']>[1],
  check: (loop: ort.InferenceSession, step: ort.InferenceSession, padId: number, eosId: number, crossKv: ort.InferenceSession, dims: DecoderDims) => Promise<T>,
): Promise<T> {
  const loop = await ctx.open(looped);
  const stepSession = await ctx.open(step).catch(async (err) => {
    await loop.release();
    throw err;
  });
  try {
    return await check(loop, stepSession, ctx.padId, ctx.eosId!, ctx.crossKv, ctx.dims);
  } finally {
    await loop.release();
    await stepSession.release();
  }
}

/**
 * Greedy search's Loop must run three steps of a two-row batch (one row padded) exactly as the step model `step` runs
 * them one by one; returns the length of the logits (the ban vector must cover every id).
 */
export async function checkGreedyLoop(
  session: ort.InferenceSession, step: ort.InferenceSession, padId: number, eosId: number, crossKv: ort.InferenceSession, dims: DecoderDims,
): Promise<number> {
  // The step model one step at a time, padding fed first, each row's best candidate (nothing banned) next.
  const feeds = await testFeeds(crossKv, dims);
  // The same batch for the Loop, its cache inputs under the Loop's names (taken before the steps below fill them).
  const loopFeeds = cacheUnder(LOOP.pastPrefix, feeds);
  let ids = BigInt64Array.of(BigInt(padId), BigInt(padId));
  const expected: bigint[] = [];
  let vocab = 0;
  for (let s = 0; s < 3; s++) {
    const out = await step.run(feedsFor(step, { ...feeds, ...NO_SEARCH, input_ids: new ort.Tensor('int64', ids, [2, 1]) }));
    vocab = (out.logits as ort.Tensor).dims[2]!;
    ids = BigInt64Array.from((out[TOP_IDS] as ort.Tensor).data as BigInt64Array);
    expected.push(...ids);
    for (let i = 0; i < dims.layers; i++) {
      for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`] as ort.Tensor;
    }
  }
  const own = {
    ...NO_SEARCH,
    ...greedyLoopInputs(3, new ort.Tensor('int64', BigInt64Array.of(BigInt(padId), BigInt(padId)), [2, 1]), new Uint8Array(2),
      new ort.Tensor('float32', new Float32Array(vocab), [vocab]), noLogits),
  };
  const out = await session.run(loopRun(session, { ...loopFeeds, ...own }, {}, LOOP.pastPrefix, dims), [LOOP.chosen]);
  const chosen = (out[LOOP.chosen] as ort.Tensor).data as BigInt64Array;
  // A row that chose EOS is fed padding afterwards: steps are compared up to the first that holds an EOS.
  for (let s = 0; s < 3; s++) {
    const want = expected.slice(2 * s, 2 * s + 2);
    if (chosen[2 * s] !== want[0] || chosen[2 * s + 1] !== want[1]) throw new Error('greedy loop: other tokens');
    if (want.includes(BigInt(eosId))) break;
  }
  return vocab;
}
