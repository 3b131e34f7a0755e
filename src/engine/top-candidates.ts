// Greedy search needs one token per row, not 58,101 logits: copying the logits out of onnxruntime (a fresh
// ArrayBuffer per step and row, which onnxruntime-node cannot write into a buffer of ours) and scanning them in
// JavaScript cost 12-23 % of an OPUS-MT-base step (src/engine/README.md, fifth pass). This adds a TopK node on the
// logits to the with-past decoder: `top_ids` holds each row's k best token ids, best first, ties to the lower id
// (ONNX TopK, like our arg-max). The generation rules of a step only ever force one token or ban a few, so with k
// larger than the number of tokens they can ban, the best allowed token is among those k: the same choice as the
// arg-max of the processed logits (greedy.ts). The logits stay an output for beam search.
import { ATTRIBUTE, ATTRIBUTE_INT, GRAPH, MODEL, NODE, OPSET, TENSOR, VALUE_INFO_NAME, concat, fields, lenField, modelGraph, nameOf, raw, varintField } from './onnx-proto.ts';

export const TOP_IDS = 'top_ids';

const INT64 = 7;
/** ValueInfoProto.type, TypeProto.tensor_type, TypeProto.Tensor's elem_type and shape, a shape's dim, a dim's value or name. */
const VALUE_INFO_TYPE = 2;
const TYPE_TENSOR = 1;
const TENSOR_TYPE = { elemType: 1, shape: 2 } as const;
const SHAPE_DIM = 1;
const DIM = { value: 1, param: 2 } as const;

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
  const kBytes = new Uint8Array(8);
  new DataView(kBytes.buffer).setBigInt64(0, BigInt(k), true);
  const initializer = lenField(GRAPH.initializer, concat([
    varintField(TENSOR.dims, 1), varintField(TENSOR.dataType, INT64), lenField(TENSOR.name, kName), lenField(TENSOR.rawData, kBytes),
  ]));
  const intAttr = (name: string, value: number) => lenField(NODE.attribute, concat([
    lenField(ATTRIBUTE.name, name), varintField(ATTRIBUTE.i, value), varintField(ATTRIBUTE.type, ATTRIBUTE_INT),
  ]));
  const node = lenField(GRAPH.node, concat([
    lenField(NODE.input, 'logits'), lenField(NODE.input, kName),
    lenField(NODE.output, 'top_candidates/values'), lenField(NODE.output, TOP_IDS),
    lenField(NODE.name, 'top_candidates'), lenField(NODE.opType, 'TopK'),
    intAttr('axis', 2), intAttr('largest', 1), intAttr('sorted', 1),
  ]));
  const output = lenField(GRAPH.output, concat([
    lenField(VALUE_INFO_NAME, TOP_IDS),
    lenField(VALUE_INFO_TYPE, lenField(TYPE_TENSOR, concat([
      varintField(TENSOR_TYPE.elemType, INT64),
      lenField(TENSOR_TYPE.shape, concat([
        lenField(SHAPE_DIM, lenField(DIM.param, 'batch_size')), lenField(SHAPE_DIM, varintField(DIM.value, 1)), lenField(SHAPE_DIM, varintField(DIM.value, k)),
      ])),
    ]))),
  ]));
  return parsed.withGraph(concat([...main.map((f) => raw(graph, f)), initializer, node, output]));
}
