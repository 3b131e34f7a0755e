// Greedy search needs one token per row, not 58,101 logits: copying the logits out of onnxruntime (a fresh
// ArrayBuffer per step and row, which onnxruntime-node cannot write into a buffer of ours) and scanning them in
// JavaScript cost ~90 µs a row and step (src/engine/README.md, fifth pass). This adds a TopK node on the logits to
// the with-past decoder: `top_ids` holds each row's k best token ids, best first, ties to the lower id (ONNX TopK,
// like our arg-max). The generation rules of a step only ever force one token or ban a few, so with k larger than
// the number of tokens they can ban, the best allowed token is among those k: the same choice as the arg-max of the
// processed logits (greedy.ts). The logits stay an output for beam search.
import {
  GRAPH, INT64, MODEL, OPSET, concat, fields, int64InitializerField, intAttribute, modelGraph, nameOf, nodeField, raw,
  tensorInfoField, VALUE_INFO_NAME,
} from './onnx-proto.ts';

export const TOP_IDS = 'top_ids';

/** The model with `top_ids` ([rows, 1, k] int64, over axis 2 of logits [rows, 1, vocab]) beside its outputs, or undefined if it has no `logits` output. */
export function withTopCandidates(model: Uint8Array, k: number): Uint8Array | undefined {
  const parsed = modelGraph(model);
  if (!parsed || !Number.isInteger(k) || k < 1) return undefined;
  const { graph, fields: main } = parsed;
  const outputs = main.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f, VALUE_INFO_NAME));
  if (!outputs.includes('logits') || outputs.includes(TOP_IDS)) return undefined;
  // TopK with k as an input and the `largest`/`sorted` attributes: opset 11 or later of the default domain.
  const opset = fields(model).filter((f) => f.no === MODEL.opsetImport).map((f) => fields(f.value))
    .find((o) => !o.some((x) => x.no === OPSET.domain && x.value.length > 0));
  const version = opset?.find((x) => x.no === OPSET.version)?.varint ?? 0;
  if (version < 11) return undefined;

  const kName = 'top_candidates/k';
  return parsed.withGraph(concat([
    ...main.map((f) => raw(graph, f)),
    int64InitializerField(kName, [k]),
    nodeField('TopK', ['logits', kName], ['top_candidates/values', TOP_IDS], 'top_candidates',
      [intAttribute('axis', 2), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    tensorInfoField(GRAPH.output, TOP_IDS, INT64, ['batch_size', 1, k]),
  ]));
}
