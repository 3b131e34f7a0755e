// optimum exports each attention of a Marian / NLLB decoder as ~30 small operators: scale, reshape and transpose Q,
// K and V into heads, append the new K/V to the cache (Concat), Q·Kᵀ, add the mask, softmax, ·V, transpose and
// reshape back, and the Shape/Gather/Concat chains computing those shapes at run time. At one token per row they cost
// more in per-operator overhead than in arithmetic. This replaces each such block by onnxruntime's own
// com.microsoft.MultiHeadAttention: same projections, same mask, same cache tensors in and out (268 operators a
// step become 136; what it earns: docs/tuning.md). A block that does not match the pattern
// exactly is left as it is. Only for the with-past decoder, which always gets one token per row: the operator wants
// the mask's query axis to be the query length, and optimum's cross-attention mask has 1 there (broadcast).
import {
  ATTRIBUTE, GRAPH, TENSOR, VALUE_INFO_NAME,
  attribute, concat, floatAttribute, graphNodes, hasSubgraph, intAttribute, intOf, intsOf, modelGraph, nameOf, nodeField, raw,
  scalarFloat, type GraphNode,
} from '../model/onnx-proto.ts';
import ort from 'onnxruntime-node';
import { feedsFor, testFeeds } from './check-feeds.ts';
import type { GraphPass } from './pass.ts';

const MS_DOMAIN = 'com.microsoft';

/** One matched attention block. */
interface Block {
  /** The MultiHeadAttention node replacing it. */
  node: GraphNode;
  /** Where it goes: the Reshape producing the block's output, which it replaces. */
  replaces: GraphNode;
  /** The cache Concats whose outputs (present.*) the new node now produces. */
  alsoRemoved: GraphNode[];
}

export interface FusedAttention {
  model: Uint8Array;
  /** Attention blocks replaced. */
  blocks: number;
}

/** The model with its attention blocks fused, or undefined when none matched. */
export function fuseAttention(model: Uint8Array, heads: number): FusedAttention | undefined {
  const parsed = modelGraph(model);
  if (!parsed) return undefined;
  const { graph, fields: main } = parsed;
  const nodes = graphNodes(graph, main);
  if (nodes.some(hasSubgraph)) return undefined;
  const graphInputs = new Set(main.filter((f) => f.no === GRAPH.input).map((f) => nameOf(f, VALUE_INFO_NAME)));
  const graphOutputs = new Set(main.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f, VALUE_INFO_NAME)));
  // Initializer fields by name (read once: the constants below, and which ones the rewritten graph still needs).
  const initializers = new Map(main.filter((f) => f.no === GRAPH.initializer).map((f) => [nameOf(f, TENSOR.name), f]));
  const position = new Map(nodes.map((n, i) => [n, i]));
  const producer = new Map<string, GraphNode>();
  const consumers = new Map<string, GraphNode[]>();
  for (const n of nodes) {
    for (const o of n.outputs) producer.set(o, n);
    for (const i of n.inputs) {
      const readers = consumers.get(i);
      if (readers) readers.push(n);
      else consumers.set(i, [n]);
    }
  }

  const made = (name: string, op: string) => {
    const n = producer.get(name);
    return n?.opType === op ? n : undefined;
  };
  /** The only reader of `name`, when nothing else (no other node, no graph output) needs it. */
  const onlyUse = (name: string, op: string) => {
    const uses = consumers.get(name) ?? [];
    return uses.length === 1 && uses[0]!.opType === op && !graphOutputs.has(name) ? uses[0] : undefined;
  };
  const perm = (n: GraphNode | undefined, expected: number[]) =>
    !!n && JSON.stringify(intsOf(attribute(n, 'perm'))) === JSON.stringify(expected);
  const constant = (name: string): number | undefined => {
    const init = initializers.get(name);
    if (init) return scalarFloat(init.value);
    const c = made(name, 'Constant');
    const t = c && attribute(c, 'value')?.find((x) => x.no === ATTRIBUTE.t);
    return t ? scalarFloat(t.value) : undefined;
  };
  const TO_HEADS = [0, 2, 1, 3];
  /** x → Reshape → Transpose(0,2,1,3): a projection split into heads; returns x. */
  const headsOf = (name: string) => {
    const t = made(name, 'Transpose');
    const r = t && perm(t, TO_HEADS) ? made(t.inputs[0]!, 'Reshape') : undefined;
    return r?.inputs[0];
  };
  /** past ⧺ new heads along the sequence axis: the self-attention cache. */
  const cacheConcat = (name: string) => {
    const c = made(name, 'Concat');
    if (!c || intOf(attribute(c, 'axis')) !== 2 || c.inputs.length !== 2 || !graphInputs.has(c.inputs[0]!)) return undefined;
    const projection = headsOf(c.inputs[1]!);
    return projection ? { node: c, past: c.inputs[0]!, projection } : undefined;
  };

  const match = (softmax: GraphNode): Block | undefined => {
    // Explicitly the last axis (before opset 13 a missing axis meant 1).
    const axis = intOf(attribute(softmax, 'axis'));
    if (axis !== -1 && axis !== 3) return undefined;
    const add = made(softmax.inputs[0]!, 'Add');
    if (!add || !onlyUse(add.outputs[0]!, 'Softmax')) return undefined;
    const scoresAt = made(add.inputs[0]!, 'MatMul') ? 0 : 1;
    const scores = made(add.inputs[scoresAt]!, 'MatMul');
    const mask = add.inputs[1 - scoresAt]!;
    if (!scores || !onlyUse(scores.outputs[0]!, 'Add')) return undefined;
    // Q: (x · scale) → heads.
    const qScaled = made(headsOf(scores.inputs[0]!) ?? '', 'Mul');
    if (!qScaled) return undefined;
    const scaleAt = constant(qScaled.inputs[1]!) !== undefined ? 1 : 0;
    const scale = constant(qScaled.inputs[scaleAt]!);
    const query = qScaled.inputs[1 - scaleAt]!;
    if (scale === undefined) return undefined;
    // Kᵀ of the cached keys (self-attention) or of the encoder's precomputed keys (cross-attention, a graph input).
    const kT = made(scores.inputs[1]!, 'Transpose');
    if (!kT || !perm(kT, [0, 1, 3, 2])) return undefined;
    const keyName = kT.inputs[0]!;
    // softmax · V → back from heads → the block's output.
    const context = onlyUse(softmax.outputs[0]!, 'MatMul');
    if (!context || context.inputs[0] !== softmax.outputs[0]) return undefined;
    const valueName = context.inputs[1]!;
    const back = onlyUse(context.outputs[0]!, 'Transpose');
    // (its other readers are the Shape nodes computing the Reshape's target, which fall away with it)
    const out = back && perm(back, TO_HEADS) ? consumers.get(back.outputs[0]!)?.find((n) => n.opType === 'Reshape') : undefined;
    if (!out) return undefined;

    const attrs = [intAttribute('num_heads', heads), floatAttribute('scale', scale)];
    const name = `fused/${out.outputs[0]}`;
    if (graphInputs.has(keyName) && graphInputs.has(valueName)) {
      return { node: msNode('MultiHeadAttention', [query, keyName, valueName, '', '', mask], [out.outputs[0]!], name, attrs), replaces: out, alsoRemoved: [] };
    }
    const key = cacheConcat(keyName);
    const value = cacheConcat(valueName);
    if (!key || !value) return undefined;
    // The new node produces the present K/V where the block's output Reshape stands: no one may read them earlier.
    const early = (name: string, reader: GraphNode) =>
      (consumers.get(name) ?? []).some((n) => n !== reader && position.get(n)! < position.get(out)!);
    if (early(keyName, kT) || early(valueName, context)) return undefined;
    return {
      node: msNode('MultiHeadAttention', [query, key.projection, value.projection, '', '', mask, key.past, value.past], [out.outputs[0]!, keyName, valueName], name, attrs),
      replaces: out,
      alsoRemoved: [key.node, value.node],
    };
  };

  const blocks = nodes.filter((n) => n.opType === 'Softmax').map(match).filter((b): b is Block => !!b);
  if (!blocks.length) return undefined;
  const replacing = new Map(blocks.map((b) => [b.replaces, b.node]));
  const removed = new Set(blocks.flatMap((b) => b.alsoRemoved));
  const rewritten = nodes.filter((n) => !removed.has(n)).map((n) => replacing.get(n) ?? n);
  // Keep what the outputs still need: the heads' reshapes and their run-time shape chains fall away.
  const needed = new Set(graphOutputs);
  const kept: Uint8Array[] = [];
  for (let i = rewritten.length - 1; i >= 0; i--) {
    const n = rewritten[i]!;
    if (!n.outputs.some((o) => needed.has(o))) continue;
    kept.unshift(n.bytes);
    for (const x of n.inputs) if (x) needed.add(x);
  }
  const unused = new Set([...initializers].filter(([name]) => !needed.has(name)).map(([, f]) => f));
  const body = concat(main.flatMap((f) => {
    if (f.no === GRAPH.node) return [];
    if (unused.has(f)) return [];
    if (f.no === GRAPH.valueInfo) return [];
    return [raw(graph, f)];
  }).concat(kept));
  const domains = parsed.domains.includes(MS_DOMAIN) ? [] : [[MS_DOMAIN, 1] as [string, number]];
  return { model: parsed.withGraph(body, domains), blocks: blocks.length };
}

function msNode(op: string, inputs: string[], outputs: string[], name: string, attributes: Uint8Array[]): GraphNode {
  return { bytes: nodeField(op, inputs, outputs, name, attributes, MS_DOMAIN), inputs, outputs, opType: op, attributes: [] };
}

/**
 * The pass: the fused model must load and run two steps of a two-row batch (one row padded) with finite logits. A
 * shape the operator rejects only shows when it runs, and then the model as exported is kept instead of failing
 * translations later.
 */
export const attentionFusionPass: GraphPass = {
  name: 'attention-fusion',
  version: 1,
  wanted: (ctx) => ctx.dims.heads > 0,
  async run(g, ctx) {
    const fused = fuseAttention(g.step, ctx.dims.heads);
    if (!fused) return undefined;
    const session = await ctx.open(fused.model).catch(() => undefined);
    if (!session) return undefined;
    try {
      const feeds = await testFeeds(ctx.crossKv, ctx.dims);
      const input = new ort.Tensor('int64', BigInt64Array.of(0n, 0n), [2, 1]);
      for (let step = 0; step < 2; step++) {
        const out = await session.run(feedsFor(session, { ...feeds, input_ids: input }));
        const logits = out.logits as ort.Tensor;
        if (logits.dims[0] !== 2 || !(logits.data as Float32Array).every(Number.isFinite)) return undefined;
        for (let i = 0; i < ctx.dims.layers; i++) {
          for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`] as ort.Tensor;
        }
      }
    } catch {
      return undefined;
    } finally {
      await session.release();
    }
    return { ...g, step: fused.model, model: fused.model, facts: { ...g.facts, fusedAttention: fused.blocks } };
  },
};
