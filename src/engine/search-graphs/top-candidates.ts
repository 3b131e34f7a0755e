// What search reads of a decoder step, computed by onnxruntime beside the logits (docs/tuning.md): each row's best
// logits and their ids (greedy search), and its log-softmax statistics (beam search's ranking in its Loop).
import {
  FLOAT, GRAPH, INT64, MODEL, OPSET, concat, fields, int64InitializerField, intAttribute, intsAttribute, modelGraph, nameOf,
  nodeField, raw, tensorInfoField, VALUE_INFO_NAME,
} from '../model/onnx-proto.ts';
import type { GraphPass } from '../graph/pass.ts';

export const TOP_IDS = 'top_ids';

/**
 * The inputs and outputs this adds. Inputs: `k` (how many best logits per row) and `statsLen` (how much of each row
 * the statistics read: 1 for greedy search, which does not need them; ≥ vocab for beam search's Loop). Outputs: per row its
 * k best logits `values` and their token `ids`, and `max` and `logSum` = log Σ exp(x − max) of the row.
 */
export const SEARCH = {
  k: 'search/k', statsLen: 'search/stats_len',
  values: 'top_values', ids: TOP_IDS, max: 'search_max', logSum: 'search_log_sum',
} as const;

/** The default-domain opset of a model (0 when it has none). */
function defaultOpset(model: Uint8Array): number {
  const opset = fields(model).filter((f) => f.no === MODEL.opsetImport).map((f) => fields(f.value))
    .find((o) => !o.some((x) => x.no === OPSET.domain && x.value.length > 0));
  return opset?.find((x) => x.no === OPSET.version)?.varint ?? 0;
}

/**
 * The with-past decoder with what search reads instead of all 58,101 logits per row (copying those out and scanning
 * them in JavaScript cost ~90 µs a row and step for greedy search):
 *   TopK(logits, k)                          → values, ids   [rows, 1, k], best first, ties to the lower id
 *   s = logits[:, :, :statsLen]; max(s), log Σ exp(s − max)  [rows, 1, 1], in float32 as PyTorch's log_softmax
 * Greedy search asks for k = candidatesNeeded (its rules only force one token or ban a few, so the best allowed token
 * is among them: greedy.ts) and statsLen 1; beam search's Loop (beam-loop.ts) for k = 1 and the whole row, whose
 * statistics its ranking reads. onnxruntime runs every node whatever is fetched: the inputs keep each search's unused
 * share to one element. Opset 13-17 (ReduceSum's axes input, ReduceMax's attribute); undefined otherwise or without
 * a `logits` output. The logits stay an output.
 */
export function withSearchOutputs(model: Uint8Array): Uint8Array | undefined {
  const parsed = modelGraph(model);
  if (!parsed) return undefined;
  const { graph, fields: main } = parsed;
  const outputs = main.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f, VALUE_INFO_NAME));
  if (!outputs.includes('logits') || outputs.includes(SEARCH.ids)) return undefined;
  const version = defaultOpset(model);
  if (version < 13 || version > 17) return undefined;
  const p = 'search/';
  return parsed.withGraph(concat([
    ...main.map((f) => raw(graph, f)),
    int64InitializerField(`${p}zero`, [0]),
    nodeField('TopK', ['logits', SEARCH.k], [SEARCH.values, SEARCH.ids], `${p}top`,
      [intAttribute('axis', 2), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    nodeField('Slice', ['logits', `${p}zero`, SEARCH.statsLen, `${p}axes`], [`${p}stats_in`], `${p}slice`),
    ...softmaxStatsNodes(p, `${p}stats_in`, SEARCH.max, SEARCH.logSum),
    tensorInfoField(GRAPH.input, SEARCH.k, INT64, [1]),
    tensorInfoField(GRAPH.input, SEARCH.statsLen, INT64, [1]),
    tensorInfoField(GRAPH.output, SEARCH.values, FLOAT, ['batch_size', 1, 'k']),
    tensorInfoField(GRAPH.output, SEARCH.ids, INT64, ['batch_size', 1, 'k']),
    tensorInfoField(GRAPH.output, SEARCH.max, FLOAT, ['batch_size', 1, 1]),
    tensorInfoField(GRAPH.output, SEARCH.logSum, FLOAT, ['batch_size', 1, 1]),
  ]));
}

/**
 * max and log Σ exp(x − max) over the last axis of `input` [rows, 1, n], kept as [rows, 1, 1], in float32 as
 * PyTorch's log_softmax computes them (with the initializer `${p}axes` = [2] they need).
 */
export function softmaxStatsNodes(p: string, input: string, max: string, logSum: string): Uint8Array[] {
  const keep = intAttribute('keepdims', 1);
  return [
    int64InitializerField(`${p}axes`, [2]),
    nodeField('ReduceMax', [input], [max], `${p}max`, [intsAttribute('axes', [2]), keep]),
    nodeField('Sub', [input, max], [`${p}shifted`], `${p}shift`),
    nodeField('Exp', [`${p}shifted`], [`${p}exp`], `${p}exp`),
    nodeField('ReduceSum', [`${p}exp`, `${p}axes`], [`${p}sum`], `${p}sum`, [keep]),
    nodeField('Log', [`${p}sum`], [logSum], `${p}log`),
  ];
}

/** The pass: the model must load and declare the outputs (both searches then read them). */
export const searchOutputsPass: GraphPass = {
  name: 'search-outputs',
  version: 1,
  wanted: () => true,
  async run(g, ctx) {
    const model = withSearchOutputs(g.step);
    if (!model) return undefined;
    const session = await ctx.open(model);
    const declared = session.outputNames.includes(SEARCH.ids);
    await session.release();
    return declared ? { ...g, step: model, model, facts: { ...g.facts, search: true } } : undefined;
  },
};
