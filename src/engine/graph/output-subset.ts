// The output projection over the rows of the vocabulary a batch may write (model/output-vocabulary.ts chooses them:
// the target language's script, digits, punctuation and symbols, the special tokens, the sources' own pieces). On
// NLLB-200 the projection over 256,206 pieces is 60 % of a step's weights and work, and a German or Japanese
// sentence only ever writes a share of them; CTranslate2's `use_vmap` and Bergamot's shortlists make the same cut.
//
//   logits = MatMul(h, Transpose(E))                        [rows, 1, vocab]   (MatMulInteger with its scales on int8)
// becomes an If on the new input `vocab_ids` (int64 [K], sorted):
//   no ids:   the projection as it was (onnxruntime's prepacked weights: the fastest for a large share of the rows)
//   else:     sub    = Transpose(MatMul(Gather(E, vocab_ids), hᵀ))    [rows, 1, K]   (the same integer products)
//             logits = ScatterElements(−∞ everywhere, vocab_ids, sub)  [rows, 1, vocab]
//
// so the logits keep their length and ids: the search outputs, the Loops, the rules and the beam ranking read them
// as they did, and a piece outside the subset is never chosen. The check holds both branches to the step model's
// logits, bit for bit.
import ort from 'onnxruntime-node';
import {
  FLOAT, GRAPH, INT64, NODE, TENSOR, VALUE_INFO_NAME, concat, fields, graphNodes, hasSubgraph, int64InitializerField, intAttribute, intsOf, attribute,
  graphAttribute, lenField, modelGraph, nameOf, nodeField, raw, str, strings, tensorInfoField, varintField, type GraphNode,
} from '../model/onnx-proto.ts';
import { feedsFor, testFeeds, VOCAB_IDS } from './check-feeds.ts';
import type { GraphPass } from './pass.ts';

/** Operators between the projection and the `logits` output that act element by element (scales, the dtype cast). */
const ELEMENTWISE = new Set(['Identity', 'Cast', 'Mul']);

/**
 * The step model with its output projection over `vocab_ids`, and the vocabulary's length; undefined when the
 * projection is not a MatMul / MatMulInteger of the tied table's Transpose followed only by element-wise scaling.
 */
export function withOutputSubset(model: Uint8Array): { model: Uint8Array; vocab: number } | undefined {
  const parsed = modelGraph(model);
  if (!parsed) return undefined;
  const { graph, fields: main } = parsed;
  const nodes = graphNodes(graph, main);
  if (nodes.some(hasSubgraph)) return undefined;
  const inputs = main.filter((f) => f.no === GRAPH.input).map((f) => nameOf(f, VALUE_INFO_NAME));
  if (inputs.includes(VOCAB_IDS)) return undefined;
  const initializers = new Map<string, number[]>();
  for (const f of main.filter((x) => x.no === GRAPH.initializer)) {
    const parts = fields(f.value);
    initializers.set(strings(parts, TENSOR.name)[0] ?? '', parts.filter((p) => p.no === TENSOR.dims).map((p) => p.varint));
  }
  const producer = new Map<string, GraphNode>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const consumers = (name: string) => nodes.filter((n) => n.inputs.includes(name));

  // From `logits` back to the projection, through element-wise nodes only.
  const last = producer.get('logits');
  let at = last;
  /** The projection and the nodes after it, in order, up to `logits`. */
  const after: GraphNode[] = [];
  while (at && ELEMENTWISE.has(at.opType)) {
    after.unshift(at);
    const from = at.inputs.map((x) => producer.get(x)).find((p) => p && (ELEMENTWISE.has(p.opType) || p.opType === 'MatMul' || p.opType === 'MatMulInteger'));
    // The other operand of a Mul must be no longer than one element per row (a scale), never a per-piece vector.
    if (at.opType === 'Mul' && at.inputs.some((x) => (initializers.get(x) ?? []).some((d) => d > 1))) return undefined;
    if (consumers(at.outputs[0]!).length > 1 && at !== last) return undefined;
    at = from;
  }
  const projection = at;
  if (!last || !projection || (projection.opType !== 'MatMul' && projection.opType !== 'MatMulInteger')) return undefined;
  const transpose = producer.get(projection.inputs[1] ?? '');
  if (!transpose || transpose.opType !== 'Transpose') return undefined;
  const perm = intsOf(attribute(transpose, 'perm'));
  if (perm && (perm.length !== 2 || perm[0] !== 1 || perm[1] !== 0)) return undefined;
  const table = transpose.inputs[0] ?? '';
  const dims = initializers.get(table);
  if (!dims || dims.length !== 2) return undefined;
  const vocab = dims[0]!;
  const chain = [projection, ...after];

  const p = 'vocab/';
  const full = chain.map((n) => renamed(n, (x) => (x === 'logits' ? `${p}full_logits` : x), ''));
  // The subset's copy of the chain: its own value names, the projection's result in place of the original's.
  const ownNames = new Set([projection, ...chain].flatMap((n) => n.outputs));
  const sub = (x: string) => (x === 'logits' ? `${p}sub` : ownNames.has(x) ? `${p}s/${x}` : x);
  const [h, , hZero, tableZero] = projection.inputs;
  const subsetNodes = [
    nodeField('Gather', [table, VOCAB_IDS], [`${p}rows`], `${p}gather`, [intAttribute('axis', 0)]),
    // The table's rows as the product's first operand and the step's activations, [rows, 1, d] → [d, rows], as its
    // second: a [K, d] byte Transpose of the gathered rows costs more than the product.
    nodeField('Shape', [h!], [`${p}h_shape`], `${p}h_shape`),
    nodeField('Gather', [`${p}h_shape`, `${p}last`], [`${p}width`], `${p}width`, [intAttribute('axis', 0)]),
    nodeField('Concat', [`${p}minus_one`, `${p}width`], [`${p}h2_shape`], `${p}h2_shape`, [intAttribute('axis', 0)]),
    nodeField('Reshape', [h!, `${p}h2_shape`], [`${p}h2`], `${p}h2`),
    nodeField('Transpose', [`${p}h2`], [`${p}h_t`], `${p}h_t`),
    nodeField(projection.opType, projection.opType === 'MatMulInteger'
      ? [`${p}rows`, `${p}h_t`, tableZero ?? '', hZero ?? ''] : [`${p}rows`, `${p}h_t`], [`${p}product_t`], `${p}projection`),
    nodeField('Transpose', [`${p}product_t`], [`${p}product`], `${p}product`),
    nodeField('Slice', [`${p}h_shape`, `${p}start`, `${p}two`], [`${p}lead`], `${p}lead`),
    nodeField('Concat', [`${p}lead`, `${p}minus_one`], [`${p}out_shape`], `${p}out_shape`, [intAttribute('axis', 0)]),
    nodeField('Reshape', [`${p}product`, `${p}out_shape`], [sub(projection.outputs[0]!)], `${p}out`),
    ...chain.slice(1).map((n) => renamed(n, sub, `${p}s/`)),
    // −∞ at every id, then the subset's logits at their ids.
    nodeField('Shape', [`${p}sub`], [`${p}sub_shape`], `${p}sub_shape`),
    nodeField('Slice', [`${p}sub_shape`, `${p}start`, `${p}two`], [`${p}rows_steps`], `${p}rows_steps`),
    nodeField('Concat', [`${p}rows_steps`, `${p}vocab`], [`${p}full_shape`], `${p}full_shape`, [intAttribute('axis', 0)]),
    nodeField('Expand', [`${p}minus_inf`, `${p}full_shape`], [`${p}empty`], `${p}empty`),
    nodeField('Reshape', [VOCAB_IDS, `${p}id_shape`], [`${p}ids3`], `${p}ids3`),
    nodeField('Expand', [`${p}ids3`, `${p}sub_shape`], [`${p}at`], `${p}at`),
    nodeField('ScatterElements', [`${p}empty`, `${p}at`, `${p}sub`], [`${p}sub_logits`], `${p}scatter`, [intAttribute('axis', 2)]),
  ];
  const logitsInfo = (name: string) => tensorInfoField(GRAPH.output, name, FLOAT, ['batch_size', 'decoder_sequence_length', vocab]);
  const branch = (name: string, nodesOf: Uint8Array[], output: string) => concat([...nodesOf, lenField(GRAPH.name, name), logitsInfo(output)]);
  const moved = new Set<GraphNode>([projection, ...chain]);
  const body = concat([
    ...main.filter((f) => f.no !== GRAPH.node && f.no !== GRAPH.valueInfo).map((f) => raw(graph, f)),
    ...nodes.filter((n) => !moved.has(n)).map((n) => n.bytes),
    lenField(GRAPH.initializer, concat([
      varintField(TENSOR.dims, 1), varintField(TENSOR.dataType, FLOAT), lenField(TENSOR.name, `${p}minus_inf`),
      lenField(TENSOR.rawData, new Uint8Array(Float32Array.of(-Infinity).buffer)),
    ])),
    int64InitializerField(`${p}start`, [0]),
    int64InitializerField(`${p}two`, [2]),
    int64InitializerField(`${p}vocab`, [vocab]),
    int64InitializerField(`${p}id_shape`, [1, 1, -1]),
    int64InitializerField(`${p}minus_one`, [-1]),
    int64InitializerField(`${p}last`, [-1]),
    lenField(GRAPH.initializer, concat([varintField(TENSOR.dataType, INT64), lenField(TENSOR.name, `${p}none`), lenField(TENSOR.rawData, new Uint8Array(8))])),
    // No ids: the model's own projection (prepacked by onnxruntime, the fastest for a large share of the vocabulary).
    nodeField('Size', [VOCAB_IDS], [`${p}k`], `${p}k`),
    nodeField('Equal', [`${p}k`, `${p}none`], [`${p}whole`], `${p}whole`),
    nodeField('If', [`${p}whole`], ['logits'], `${p}if`, [
      graphAttribute('then_branch', branch('vocabulary_full', full, `${p}full_logits`)),
      graphAttribute('else_branch', branch('vocabulary_subset', subsetNodes, `${p}sub_logits`)),
    ]),
    tensorInfoField(GRAPH.input, VOCAB_IDS, INT64, ['vocab_k']),
  ]);
  return { model: parsed.withGraph(body), vocab };
}

/** A node with its inputs and outputs renamed by `rename` and its name prefixed (attributes kept). */
function renamed(node: GraphNode, rename: (name: string) => string, prefix: string): Uint8Array {
  const payload = fields(node.bytes)[0]!.value;
  return lenField(GRAPH.node, concat(fields(payload).map((f) => {
    if (f.no === NODE.input || f.no === NODE.output) return lenField(f.no, rename(str(f)));
    if (f.no === NODE.name) return lenField(NODE.name, prefix + str(f));
    return raw(payload, f);
  })));
}

/** Ids of a check: every `every`-th id (none: the whole vocabulary's branch). */
function checkIds(vocab: number, every: number): ort.Tensor {
  const ids = every ? BigInt64Array.from({ length: Math.ceil(vocab / every) }, (_, i) => BigInt(i * every)) : new BigInt64Array(0);
  return new ort.Tensor('int64', ids, [ids.length]);
}

/**
 * The pass: fed no ids or every id, the rewritten model's logits equal the step model's bit for bit; fed every third
 * id, those ids keep their logits and every other id is −∞.
 */
export const outputSubsetPass: GraphPass = {
  name: 'output-subset',
  version: 1,
  wanted: (ctx) => ctx.settings.outputSubset === true,
  async run(g, ctx) {
    const rewritten = withOutputSubset(g.step);
    if (!rewritten) return undefined;
    const before = await ctx.open(g.step);
    const after = await ctx.open(rewritten.model).catch(async (err) => {
      await before.release();
      throw err;
    });
    try {
      const feeds = { ...await testFeeds(ctx.crossKv, ctx.dims), input_ids: new ort.Tensor('int64', BigInt64Array.of(2n, 3n), [2, 1]) };
      const want = (await before.run(feedsFor(before, feeds))).logits!.data as Float32Array;
      const logits = async (every: number) => (await after.run(feedsFor(after, { ...feeds, [VOCAB_IDS]: checkIds(rewritten.vocab, every) }))).logits!.data as Float32Array;
      for (const every of [0, 1]) {
        const got = await logits(every);
        if (got.length !== want.length || got.some((x, i) => x !== want[i])) return undefined;
      }
      const third = await logits(3);
      if (third.some((x, i) => (i % rewritten.vocab) % 3 === 0 ? x !== want[i] : x !== -Infinity)) return undefined;
    } finally {
      await before.release();
      await after.release();
    }
    return { ...g, step: rewritten.model, model: rewritten.model, facts: { ...g.facts, outputSubset: rewritten.vocab } };
  },
};
