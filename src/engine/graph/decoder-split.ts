// optimum's merged decoder holds the decoder twice, as the two branches of an `If` on `use_cache_branch`, and
// onnxruntime runs the chosen branch as a subgraph, a wrapper that costs time on every step.
// This cuts the file into two models with no `If`: the with-past branch on its own (every step, the first one with
// an empty self-attention cache) and the nodes of the no-past branch that compute the cross-attention K/V from the
// encoder output (once per batch). Same nodes, same weights; anything unexpected and the merged file is used as is.
import {
  ATTRIBUTE, GRAPH, TENSOR, VALUE_INFO_NAME,
  concat, fields, graphNodes, hasSubgraph, lenField, modelGraph, nameOf, nodeField, raw, str, type GraphNode,
} from '../model/onnx-proto.ts';

export interface SplitDecoder {
  /** The with-past branch as a model: the merged file's inputs but `use_cache_branch`; logits and self-attention K/V. */
  withPast: Uint8Array;
  /** From the encoder output to `present.<layer>.encoder.key|value`. */
  crossKv: Uint8Array;
}

const CROSS_OUTPUT = /^present\.\d+\.encoder\.(key|value)$/;

export function splitMergedDecoder(model: Uint8Array): SplitDecoder | undefined {
  const parsed = modelGraph(model);
  if (!parsed) return undefined;
  const { graph, fields: main } = parsed;
  const initializers = main.filter((f) => f.no === GRAPH.initializer);
  // Weights in external files or sparse ones: leave such a model alone (it would need more than byte slicing).
  if (main.some((f) => f.no === GRAPH.sparseInitializer)) return undefined;
  if (initializers.some((f) => fields(f.value).some((x) => x.no === TENSOR.dataLocation && x.varint === 1))) return undefined;

  const nodes = graphNodes(graph, main);
  const ifs = nodes.filter((n) => n.opType === 'If');
  if (ifs.length !== 1 || ifs[0]!.inputs[0] !== 'use_cache_branch') return undefined;
  const ifNode = ifs[0]!;
  const branch = (name: string) => {
    const attr = ifNode.attributes.find((a) => a.some((x) => x.no === ATTRIBUTE.name && str(x) === name));
    return attr?.find((x) => x.no === ATTRIBUTE.graph)?.value;
  };
  const withPastGraph = branch('then_branch');
  const noPastGraph = branch('else_branch');
  if (!withPastGraph || !noPastGraph) return undefined;
  const before = nodes.filter((n) => n !== ifNode);
  const inputs = main.filter((f) => f.no === GRAPH.input && nameOf(f, VALUE_INFO_NAME) !== 'use_cache_branch');
  const outputs = main.filter((f) => f.no === GRAPH.output);

  /** A model of the nodes before the If and one branch, pruned to what `wanted` (If output names) needs. */
  const build = (branchGraph: Uint8Array, wanted: string[], name: string): Uint8Array | undefined => {
    const bf = fields(branchGraph);
    const branchNodes = graphNodes(branchGraph, bf);
    if (branchNodes.some(hasSubgraph)) return undefined;
    const branchOutputs = bf.filter((f) => f.no === GRAPH.output).map((f) => nameOf(f, VALUE_INFO_NAME));
    if (branchOutputs.length !== ifNode.outputs.length) return undefined;
    const renames = wanted.map((w) => {
      const source = branchOutputs[ifNode.outputs.indexOf(w)];
      return source === undefined ? undefined : { from: source, to: w };
    });
    if (renames.some((r) => !r)) return undefined;
    const identities: GraphNode[] = renames.map((r) => ({
      bytes: nodeField('Identity', [r!.from], [r!.to], `split/${r!.to}`),
      inputs: [r!.from],
      outputs: [r!.to],
      opType: 'Identity',
      attributes: [],
    }));
    const all = [...before, ...branchNodes, ...identities];
    const needed = new Set(wanted);
    const kept: GraphNode[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const n = all[i]!;
      if (!n.outputs.some((o) => needed.has(o))) continue;
      kept.unshift(n);
      for (const x of n.inputs) if (x) needed.add(x);
    }
    const inits = [...initializers.map((f) => ({ f, buf: graph })), ...bf.filter((f) => f.no === GRAPH.initializer).map((f) => ({ f, buf: branchGraph }))]
      .filter(({ f }) => needed.has(nameOf(f, TENSOR.name)))
      .map(({ f, buf }) => raw(buf, f));
    const body = concat([
      ...kept.map((n) => n.bytes),
      lenField(GRAPH.name, name),
      ...inits,
      ...inputs.filter((f) => needed.has(nameOf(f, VALUE_INFO_NAME))).map((f) => raw(graph, f)),
      ...outputs.filter((f) => wanted.includes(nameOf(f, VALUE_INFO_NAME))).map((f) => raw(graph, f)),
    ]);
    return parsed.withGraph(body);
  };

  const outputNames = outputs.map((f) => nameOf(f, VALUE_INFO_NAME));
  const crossNames = outputNames.filter((n) => CROSS_OUTPUT.test(n));
  if (!crossNames.length || !outputNames.includes('logits')) return undefined;
  // The with-past branch only passes its cross-attention inputs through: not returning them saves a copy a step.
  const withPast = build(withPastGraph, outputNames.filter((n) => !CROSS_OUTPUT.test(n)), 'with_past');
  const crossKv = build(noPastGraph, crossNames, 'cross_kv');
  return withPast && crossKv ? { withPast, crossKv } : undefined;
}
