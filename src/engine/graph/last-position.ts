// A decoder-only graph computes its logits at every position it is fed, but a prompt's prefill is read at its last
// position only (left padding: every row's prompt ends there). The output projection over the vocabulary is the
// largest single product of the graph — 151,936 × 1,024 for Qwen3-0.6B, a quarter of a prefill's multiply-adds and a
// [rows, prompt, vocabulary] float tensor (1.6 GB for 32 prompts of 84 tokens). This rewrite slices the projection's
// input to the last position, so logits come out [rows, 1, vocabulary] for a prefill as for a step.
//
// It is exact: the projection and the elementwise operators after it (a cast, a scale, a bias, a soft cap) treat each
// position alone. For int8 the slice is put on the projection's quantized input, after the per-tensor
// DynamicQuantizeLinear, so the scale is still taken over every position as before; MatMulNBits quantizes its input
// per row and block. A graph whose logits do not come from such a projection is left as it is.
import {
  GRAPH, MODEL, NODE, TENSOR, concat, fields, graphNodes, int64InitializerField, lenField, modelGraph, nameOf, nodeField, raw,
  VALUE_INFO_NAME, type Field,
} from '../model/onnx-proto.ts';

/** Its name in DRAGOMAN_SKIP_PASSES, which leaves it out. */
export const LAST_POSITION = 'last-position';

/** Bumped whenever the rewrite's output changes: part of the prepared file's cache key. */
export const LAST_POSITION_VERSION = 1;

/** Products over the vocabulary the rewrite slices the input of (the activation is their first input). */
const PROJECTIONS = new Set(['MatMul', 'MatMulNBits', 'MatMulInteger']);
/** What may lie between the projection and `logits`: operators that treat each position alone. */
const ELEMENTWISE = new Set(['Identity', 'Cast', 'Add', 'Sub', 'Mul', 'Div', 'Tanh']);

const SLICED = 'dragoman_last_position';

/**
 * The model with its output projection's input sliced to the last position, as the pieces to write one after the
 * other (the weights are slices of `model`, never copied), or undefined when the graph has no such projection, keeps
 * its weights in another file, or reads the projection's values elsewhere too.
 */
export function lastPositionLogits(model: Uint8Array): Uint8Array[] | undefined {
  const top = modelGraph(model);
  if (!top) return undefined;
  const { graph, fields: graphFields } = top;
  // Weights in an external file are found relative to the model's own folder: a copy elsewhere would lose them.
  if (graphFields.some((f) => f.no === GRAPH.initializer && isExternal(f))) return undefined;
  const outputs = graphFields.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f, VALUE_INFO_NAME));
  if (!outputs.includes('logits')) return undefined;
  const nodeFields = graphFields.filter((f) => f.no === GRAPH.node);
  const nodes = graphNodes(graph, graphFields);
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => n.outputs.forEach((o) => producer.set(o, i)));
  const readers = new Map<string, number[]>();
  nodes.forEach((n, i) => n.inputs.forEach((x) => readers.set(x, [...(readers.get(x) ?? []), i])));

  // Back from logits through elementwise operators to the one projection on the way.
  const path: number[] = [];
  let head: number | undefined;
  const queue = [producer.get('logits')];
  while (queue.length) {
    const at = queue.shift();
    if (at === undefined || path.includes(at)) continue;
    const node = nodes[at]!;
    if (PROJECTIONS.has(node.opType)) {
      if (head !== undefined && head !== at) return undefined; // two projections: not the pattern
      head = at;
      continue;
    }
    if (!ELEMENTWISE.has(node.opType)) continue; // a scale or bias computed elsewhere (DynamicQuantizeLinear's scale)
    path.push(at);
    for (const x of node.inputs) queue.push(producer.get(x));
  }
  if (head === undefined) return undefined;
  // Nothing but the way to logits may read what the projection and the operators after it compute.
  const onPath = new Set([head, ...path]);
  for (const i of onPath) {
    for (const o of nodes[i]!.outputs) {
      if (o !== 'logits' && outputs.includes(o)) return undefined;
      if ((readers.get(o) ?? []).some((r) => !onPath.has(r))) return undefined;
    }
  }

  const projection = nodes[head]!;
  const activation = projection.inputs[0]!;
  const names = { starts: `${SLICED}_starts`, ends: `${SLICED}_ends`, axes: `${SLICED}_axes`, out: `${SLICED}_input` };
  const slice = nodeField('Slice', [activation, names.starts, names.ends, names.axes], [names.out], SLICED);
  const rewired = withFirstInput(nodeFields[head]!, names.out);
  const added = [
    int64InitializerField(names.starts, [-1]), int64InitializerField(names.ends, [Number.MAX_SAFE_INTEGER]), int64InitializerField(names.axes, [1]),
  ];
  // The graph's fields in their order, the projection's node preceded by the slice and replaced by its rewired copy.
  const body: Uint8Array[] = [...added];
  for (const f of graphFields) {
    if (f === nodeFields[head]) body.push(slice, rewired);
    else body.push(raw(graph, f));
  }
  const length = body.reduce((n, b) => n + b.length, 0);
  const rest = fields(model).filter((f) => f.no !== MODEL.graph).map((f) => raw(model, f));
  return [...rest, lenHead(MODEL.graph, length), ...body];
}

/** An initializer whose data lies in another file (TensorProto.data_location = EXTERNAL). */
function isExternal(f: Field): boolean {
  return fields(f.value).some((t) => t.no === TENSOR.dataLocation && t.varint === 1);
}

/** The node field with its first input renamed. */
function withFirstInput(node: Field, input: string): Uint8Array {
  let renamed = false;
  const parts = fields(node.value).map((f) => {
    if (f.no !== NODE.input || renamed) return raw(node.value, f);
    renamed = true;
    return lenField(NODE.input, input);
  });
  return lenField(GRAPH.node, concat(parts));
}

/** The tag and length of a length-delimited field whose payload is written after it. */
function lenHead(no: number, length: number): Uint8Array {
  const bytes: number[] = [];
  for (let n = no * 8 + 2; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      bytes.push(n);
      break;
    }
    bytes.push((n % 128) | 0x80);
  }
  for (let n = length; ; n = Math.floor(n / 128)) {
    if (n < 0x80) {
      bytes.push(n);
      break;
    }
    bytes.push((n % 128) | 0x80);
  }
  return Uint8Array.from(bytes);
}
