// OPUS-MT's output projection is the tied embedding, which the Xenova/optimum quantizer stores as uint8; onnxruntime
// then multiplies uint8 activations by uint8 weights, a kernel that cannot use AVX512-VNNI / AVX-VNNI. Storing the
// same weight and its zero point shifted by -128 as int8 leaves every integer product (q - zero point) unchanged,
// and onnxruntime picks its u8×s8 VNNI kernel (what it earns: docs/tuning.md). Exact only where
// that kernel is used: without VNNI, onnxruntime's u8×s8 AVX2 kernel saturates 16-bit sums, so the caller gates it
// (cpu-features.ts cpuHasVnni).
import {
  GRAPH, INT8, TENSOR, UINT8, VALUE_INFO_NAME,
  concat, fields, graphNodes, hasSubgraph, lenField, modelGraph, nameOf, raw, strings, varintField, type Field, type GraphNode,
} from '../model/onnx-proto.ts';
import { cpuHasVnni } from './cpu-features.ts';
import type { GraphPass } from './pass.ts';

/** A node reading a tensor, and at which input. */
interface Use {
  op: string;
  index: number;
  inputs: string[];
}

/**
 * The model with every uint8 MatMulInteger weight (directly or through Transpose / Gather) and its zero point stored
 * as int8, or undefined when there is none or one of them is used in a way this shift would change.
 */
export function signedMatMulWeights(model: Uint8Array): Uint8Array | undefined {
  const parsed = modelGraph(model);
  if (!parsed) return undefined;
  const { graph, fields: main } = parsed;
  const nodes = graphNodes(graph, main);
  if (nodes.some(hasSubgraph)) return undefined;
  const tensors = new Map<string, { field: Field; parts: Field[] }>();
  for (const f of main.filter((x) => x.no === GRAPH.initializer)) {
    const parts = fields(f.value);
    tensors.set(strings(parts, TENSOR.name)[0] ?? '', { field: f, parts });
  }
  const isUint8Raw = (name: string) => {
    const t = tensors.get(name);
    return !!t && t.parts.some((p) => p.no === TENSOR.dataType && p.varint === UINT8) && t.parts.some((p) => p.no === TENSOR.rawData);
  };
  const producer = new Map<string, GraphNode>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const uses = (name: string): Use[] => nodes.flatMap((n) => n.inputs.flatMap((x, index) => (x === name ? [{ op: n.opType, index, inputs: n.inputs }] : [])));
  const outputs = new Set(main.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f, VALUE_INFO_NAME)));

  // Weights and zero points to shift, from each MatMulInteger whose weight is a uint8 initializer.
  const shift = new Set<string>();
  for (const n of nodes.filter((x) => x.opType === 'MatMulInteger')) {
    let weight = n.inputs[1] ?? '';
    while (!tensors.has(weight) && producer.get(weight)?.opType === 'Transpose') weight = producer.get(weight)!.inputs[0] ?? '';
    const zero = n.inputs[3] ?? '';
    if (!isUint8Raw(weight) || !isUint8Raw(zero)) continue;
    shift.add(weight);
    shift.add(zero);
  }
  if (!shift.size) return undefined;

  // Every use must see the shift cancel out: a shifted tensor (or its Transpose / Gather) only meets its own
  // shifted zero point, in MatMulInteger or DequantizeLinear.
  const derived = new Set(shift);
  for (let grew = true; grew;) {
    grew = false;
    for (const n of nodes) {
      if ((n.opType === 'Transpose' || n.opType === 'Gather') && derived.has(n.inputs[0] ?? '') && !derived.has(n.outputs[0]!)) {
        derived.add(n.outputs[0]!);
        grew = true;
      }
    }
  }
  for (const name of derived) {
    if (outputs.has(name)) return undefined;
    for (const u of uses(name)) {
      const ok =
        ((u.op === 'Transpose' || u.op === 'Gather') && u.index === 0) ||
        (u.op === 'MatMulInteger' && u.index === 1 && shift.has(u.inputs[3] ?? '')) ||
        (u.op === 'MatMulInteger' && u.index === 3 && derived.has(u.inputs[1] ?? '')) ||
        (u.op === 'DequantizeLinear' && u.index === 0 && shift.has(u.inputs[2] ?? '')) ||
        (u.op === 'DequantizeLinear' && u.index === 2 && derived.has(u.inputs[0] ?? ''));
      if (!ok) return undefined;
    }
  }

  const shifted = (name: string): Uint8Array => {
    const { parts } = tensors.get(name)!;
    const t = tensors.get(name)!.field.value;
    const body = parts.map((p) => {
      if (p.no === TENSOR.dataType) return varintField(TENSOR.dataType, INT8);
      if (p.no === TENSOR.rawData) {
        const bytes = new Uint8Array(p.value);
        for (let i = 0; i < bytes.length; i++) bytes[i]! ^= 0x80; // v - 128 as int8
        return lenField(TENSOR.rawData, bytes);
      }
      return raw(t, p);
    });
    return lenField(GRAPH.initializer, concat(body));
  };
  const graphBody = concat(main.map((f) => {
    if (f.no !== GRAPH.initializer) return raw(graph, f);
    const name = nameOf(f, TENSOR.name);
    return shift.has(name) ? shifted(name) : raw(graph, f);
  }));
  return parsed.withGraph(graphBody);
}

/** The pass: only on a VNNI CPU (the CPU is part of the cache key); the signed model must load in onnxruntime. */
export const signedWeightsPass: GraphPass = {
  name: 'signed-weights',
  version: 1,
  wanted: () => cpuHasVnni(),
  async run(g, ctx) {
    const signed = signedMatMulWeights(g.step);
    if (!signed) return undefined;
    await (await ctx.open(signed)).release();
    return { ...g, step: signed, model: signed, facts: { ...g.facts, signedWeights: true } };
  },
};
