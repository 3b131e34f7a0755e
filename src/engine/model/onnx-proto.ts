// Just enough of the protobuf wire format to take an ONNX model apart and put pieces of it back together without
// decoding tensors: every message we do not edit is copied as its original bytes (a 56 MB decoder is sliced, never
// parsed into objects). Field numbers are those of onnx/onnx.proto.

/** One field of a message: its number, wire type, and where its value lies in the buffer. */
export interface Field {
  no: number;
  wire: number;
  /** The whole field (tag + value), for copying it as it is. */
  start: number;
  end: number;
  /** Length-delimited value (wire type 2): its payload. */
  value: Uint8Array;
  /** Varint value (wire type 0). */
  varint: number;
}

export function readVarint(buf: Uint8Array, pos: number): [number, number] {
  const start = pos;
  let result = 0;
  let scale = 1;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated protobuf varint');
    const byte = buf[pos++]!;
    result += (byte & 0x7f) * scale;
    if (byte < 0x80) return pos - start < 9 ? [result, pos] : [int64(buf.subarray(start, pos)), pos];
    scale *= 128;
  }
}

/** A varint past 2^56 is a negative int64 in ONNX (dims, axes, perms): decoded exactly, as a signed number. */
function int64(bytes: Uint8Array): number {
  let v = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) v = (v << 7n) | BigInt(bytes[i]! & 0x7f);
  return Number(BigInt.asIntN(64, v));
}

export function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const start = pos;
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const no = Math.floor(tag / 8);
    const wire = tag & 7;
    let value = buf.subarray(0, 0);
    let varint = 0;
    if (wire === 0) [varint, pos] = readVarint(buf, pos);
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      value = buf.subarray(p2, p2 + len);
      pos = p2 + len;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (pos > buf.length) throw new Error('truncated protobuf field');
    out.push({ no, wire, start, end: pos, value, varint });
  }
  return out;
}

const text = new TextDecoder();
const utf8 = new TextEncoder();

export const str = (f: Field) => text.decode(f.value);
export const strings = (fs: Field[], no: number) => fs.filter((f) => f.no === no).map(str);

function varintBytes(n: number): number[] {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  bytes.push(n);
  return bytes;
}

/** A varint field (`no`, wire type 0). */
export function varintField(no: number, value: number): Uint8Array {
  return Uint8Array.from([...varintBytes(no * 8), ...varintBytes(value)]);
}

/** A 32-bit float field (`no`, wire type 5). */
export function floatField(no: number, value: number): Uint8Array {
  const out = new Uint8Array([...varintBytes(no * 8 + 5), 0, 0, 0, 0]);
  new DataView(out.buffer).setFloat32(out.length - 4, value, true);
  return out;
}

/** A length-delimited field (`no`, wire type 2) holding `payload`. */
export function lenField(no: number, payload: Uint8Array | string): Uint8Array {
  const body = typeof payload === 'string' ? utf8.encode(payload) : payload;
  const head = [...varintBytes(no * 8 + 2), ...varintBytes(body.length)];
  const out = new Uint8Array(head.length + body.length);
  out.set(head);
  out.set(body, head.length);
  return out;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The bytes of a field as it was written (to copy it into another message). */
export const raw = (buf: Uint8Array, f: Field) => buf.subarray(f.start, f.end);

// onnx.proto field numbers used here.
export const MODEL = { irVersion: 1, graph: 7, opsetImport: 8 } as const;
/** OperatorSetIdProto. */
export const OPSET = { domain: 1, version: 2 } as const;
export const GRAPH = { node: 1, name: 2, initializer: 5, input: 11, output: 12, valueInfo: 13, sparseInitializer: 15 } as const;
export const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 } as const;
export const ATTRIBUTE = { name: 1, f: 2, i: 3, t: 5, graph: 6, ints: 8, graphs: 11, type: 20 } as const;
/** AttributeProto.AttributeType values. */
export const ATTRIBUTE_FLOAT = 1;
export const ATTRIBUTE_INT = 2;
export const ATTRIBUTE_INTS = 7;
export const ATTRIBUTE_GRAPH = 5;
/** ValueInfoProto's name. */
export const VALUE_INFO_NAME = 1;
/** TensorProto; `dataLocation` 1 = EXTERNAL (the weights are in another file). */
export const TENSOR = { dims: 1, dataType: 2, floatData: 4, name: 8, rawData: 9, dataLocation: 14 } as const;
/** TensorProto.DataType values. */
export const FLOAT = 1;
export const UINT8 = 2;
export const INT8 = 3;
export const INT64 = 7;
export const BOOL = 9;
export const DOUBLE = 11;
/** ModelProto.ir_version; ValueInfoProto.type; TypeProto.tensor_type; TypeProto.Tensor; TensorShapeProto.dim; its value or name. */
const MODEL_IR_VERSION = 1;
const VALUE_INFO_TYPE = 2;
const TYPE_TENSOR = 1;
const TENSOR_TYPE = { elemType: 1, shape: 2 } as const;
const SHAPE_DIM = 1;
const DIM = { value: 1, param: 2 } as const;

// Builders for the few messages the rewrites add (non-negative integers only: varintField has no sign).

/** An integer attribute (AttributeProto). */
export const intAttribute = (name: string, value: number) =>
  concat([lenField(ATTRIBUTE.name, name), varintField(ATTRIBUTE.i, value), varintField(ATTRIBUTE.type, ATTRIBUTE_INT)]);
/** An integer-list attribute (AttributeProto, type INTS). */
export const intsAttribute = (name: string, values: number[]) =>
  concat([lenField(ATTRIBUTE.name, name), ...values.map((v) => varintField(ATTRIBUTE.ints, v)), varintField(ATTRIBUTE.type, ATTRIBUTE_INTS)]);
/** A float attribute (AttributeProto). */
export const floatAttribute = (name: string, value: number) =>
  concat([lenField(ATTRIBUTE.name, name), floatField(ATTRIBUTE.f, value), varintField(ATTRIBUTE.type, ATTRIBUTE_FLOAT)]);

/** A graph attribute (AttributeProto, type GRAPH): a Loop's body, an If's branch. */
export const graphAttribute = (name: string, body: Uint8Array) =>
  concat([lenField(ATTRIBUTE.name, name), lenField(ATTRIBUTE.graph, body), varintField(ATTRIBUTE.type, ATTRIBUTE_GRAPH)]);

/** A graph's node field (NodeProto), attributes as made by intAttribute / floatAttribute. */
export function nodeField(op: string, inputs: string[], outputs: string[], name: string, attributes: Uint8Array[] = [], domain?: string): Uint8Array {
  return lenField(GRAPH.node, concat([
    ...inputs.map((i) => lenField(NODE.input, i)),
    ...outputs.map((o) => lenField(NODE.output, o)),
    lenField(NODE.name, name),
    lenField(NODE.opType, op),
    ...attributes.map((a) => lenField(NODE.attribute, a)),
    ...(domain ? [lenField(NODE.domain, domain)] : []),
  ]));
}

/** A graph input or output (field GRAPH.input / GRAPH.output): a tensor of `elemType`, dims as numbers or names. */
export function tensorInfoField(field: number, name: string, elemType: number, dims: (number | string)[]): Uint8Array {
  const shape = concat(dims.map((d) => lenField(SHAPE_DIM, typeof d === 'number' ? varintField(DIM.value, d) : lenField(DIM.param, d))));
  return lenField(field, concat([
    lenField(VALUE_INFO_NAME, name),
    lenField(VALUE_INFO_TYPE, lenField(TYPE_TENSOR, concat([varintField(TENSOR_TYPE.elemType, elemType), lenField(TENSOR_TYPE.shape, shape)]))),
  ]));
}

/** A graph initializer field: a 1-D int64 tensor. */
export function int64InitializerField(name: string, values: number[]): Uint8Array {
  const bytes = new Uint8Array(8 * values.length);
  values.forEach((v, i) => new DataView(bytes.buffer).setBigInt64(8 * i, BigInt(v), true));
  return lenField(GRAPH.initializer, concat([
    varintField(TENSOR.dims, values.length), varintField(TENSOR.dataType, INT64), lenField(TENSOR.name, name), lenField(TENSOR.rawData, bytes),
  ]));
}

/** A whole model (ModelProto) around a graph body, importing the default domain at `opset`. */
export function modelBytes(body: Uint8Array, opset: number, irVersion = 8): Uint8Array {
  return concat([
    varintField(MODEL_IR_VERSION, irVersion),
    lenField(MODEL.opsetImport, concat([lenField(OPSET.domain, ''), varintField(OPSET.version, opset)])),
    lenField(MODEL.graph, body),
  ]);
}

/** A NodeProto: its bytes (to copy it) and what the rewrites look at. */
export interface GraphNode {
  bytes: Uint8Array;
  inputs: string[];
  outputs: string[];
  opType: string;
  attributes: Field[][];
}

export function graphNodes(graph: Uint8Array, graphFields: Field[]): GraphNode[] {
  return graphFields.filter((f) => f.no === GRAPH.node).map((f) => {
    const nf = fields(f.value);
    return {
      bytes: raw(graph, f),
      inputs: strings(nf, NODE.input),
      outputs: strings(nf, NODE.output),
      opType: strings(nf, NODE.opType)[0] ?? '',
      attributes: nf.filter((a) => a.no === NODE.attribute).map((a) => fields(a.value)),
    };
  });
}

/** A node holding a subgraph may read outer values it does not list as inputs: rewrites that prune cannot see them. */
export function hasSubgraph(node: GraphNode): boolean {
  return node.attributes.some((a) => a.some((x) => x.no === ATTRIBUTE.graph || x.no === ATTRIBUTE.graphs));
}

/** An attribute of a node by name (its fields), if the node has it. */
export function attribute(node: GraphNode, name: string): Field[] | undefined {
  return node.attributes.find((a) => a.some((x) => x.no === ATTRIBUTE.name && str(x) === name));
}

/** An attribute's integer list (`ints`, packed or not). */
export function intsOf(attr: Field[] | undefined): number[] | undefined {
  if (!attr) return undefined;
  const out: number[] = [];
  for (const f of attr.filter((x) => x.no === ATTRIBUTE.ints)) {
    if (f.wire === 0) out.push(f.varint);
    else for (let pos = 0; pos < f.value.length;) {
      const [v, next] = readVarint(f.value, pos);
      out.push(v);
      pos = next;
    }
  }
  return out;
}

/** An attribute's single integer (`i`). */
export function intOf(attr: Field[] | undefined): number | undefined {
  const f = attr?.find((x) => x.no === ATTRIBUTE.i);
  return f?.varint;
}

/** The one float a TensorProto holds (a scalar or a single-element tensor), if it is a float tensor of one element. */
export function scalarFloat(tensor: Uint8Array): number | undefined {
  const parts = fields(tensor);
  if (!parts.some((p) => p.no === TENSOR.dataType && p.varint === FLOAT)) return undefined;
  if (parts.some((p) => p.no === TENSOR.dims && p.varint !== 1)) return undefined;
  const rawData = parts.find((p) => p.no === TENSOR.rawData);
  const packed = parts.find((p) => p.no === TENSOR.floatData && p.wire === 2);
  const bytes = rawData?.value ?? packed?.value;
  if (bytes?.length === 4) return new DataView(bytes.buffer, bytes.byteOffset, 4).getFloat32(0, true);
  const single = parts.filter((p) => p.no === TENSOR.floatData && p.wire === 5);
  if (!bytes && single.length === 1) return new DataView(tensor.buffer, tensor.byteOffset + single[0]!.end - 4, 4).getFloat32(0, true);
  return undefined;
}

/** The main graph of a model (its payload and fields), and the model with another graph body in its place. */
export interface ModelGraph {
  graph: Uint8Array;
  fields: Field[];
  /** Operator set domains the model imports ('' is the default ONNX domain). */
  domains: string[];
  /** The model with `body` as its graph, importing `addDomains` (domain, version) beside what it imported. */
  withGraph(body: Uint8Array, addDomains?: [string, number][]): Uint8Array;
}

export function modelGraph(model: Uint8Array): ModelGraph | undefined {
  const top = fields(model);
  const graphField = top.find((f) => f.no === MODEL.graph);
  if (!graphField) return undefined;
  const rest = top.filter((f) => f.no !== MODEL.graph).map((f) => raw(model, f));
  const domains = top.filter((f) => f.no === MODEL.opsetImport).map((f) => nameOf(f, OPSET.domain));
  return {
    graph: graphField.value,
    fields: fields(graphField.value),
    domains,
    withGraph: (body, addDomains = []) => concat([
      ...rest,
      ...addDomains.map(([domain, version]) => lenField(MODEL.opsetImport, concat([lenField(OPSET.domain, domain), varintField(OPSET.version, version)]))),
      lenField(MODEL.graph, body),
    ]),
  };
}

/** The string in field `no` of a message field (a tensor's, value info's or attribute's name). */
export const nameOf = (f: Field, no: number) => strings(fields(f.value), no)[0] ?? '';
