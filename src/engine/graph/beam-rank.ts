// Beam search's choice of one step, written once as ONNX nodes: beam-loop.ts runs them inside its Loop after every
// step, and the runtime runs them as a model of their own after a step of a decoder without that Loop. Hugging Face's
// BeamSearchScorer ranks a step this way (the references were made that way):
//   log-probability  f32(f32(x − max) − logSum)          (log_softmax in float32)
//   the rules        a forced row keeps only its token, at 0; a banned token −∞ (applyRules on zeros: the mask)
//   the score        f32(rules' result + the beam's score)
//   each sentence's 2 × beams best over its beams × vocabulary, ties to the lower flat index (beam, then token)
// What is left to search/beam.ts is the bookkeeping: a candidate that is EOS among the first `beams` becomes a finished
// hypothesis, the first `beams` others the next beams.
import { BOOL, FLOAT, GRAPH, INT64, concat, int64InitializerField, intAttribute, lenField, modelBytes, nodeField, tensorInfoField } from './onnx-proto.ts';
import { int64Scalar, scalarInitializer } from './greedy-loop.ts';
import { softmaxStatsNodes } from './top-candidates.ts';

/** The ranking model's inputs and outputs (rows = sentences × beams, grouped by sentence). */
export const BEAM_RANK = {
  /** float [rows, 1, vocab]: the step's logits. */
  logits: 'logits',
  /** float [rows]: each row's beam score. */
  scores: 'rank/scores',
  /** float [1 or rows, 1, vocab]: the rules applied to zeros (0, or −∞ for a token they rule out). */
  mask: 'rank/mask',
  /** bool [1 or rows, 1, 1]: false where a rule forces a token (the mask alone then scores the row). */
  keep: 'rank/keep',
  /** int64 [1]: beams per sentence. */
  beams: 'rank/beams',
  /** [sentences, 2 × beams], each sentence's best first: the scores, the row each continues and the token. */
  values: 'rank/values',
  from: 'rank/from',
  ids: 'rank/ids',
} as const;

/** The names rankNodes reads (its inputs) and writes (the three ranked outputs). */
export interface RankNames {
  logits: string;
  max: string;
  logSum: string;
  scores: string;
  mask: string;
  keep: string;
  beams: string;
  values: string;
  from: string;
  ids: string;
}

/** The ranking's nodes and the initializers they read, every other name under `p`. */
export function rankNodes(p: string, n: RankNames): Uint8Array[] {
  const node = (op: string, ins: string[], out: string, attrs: Uint8Array[] = []) => nodeField(op, ins, [out], `${p}${out}`, attrs);
  const at = (name: string) => `${p}${name}`;
  return [
    scalarInitializer(at('zero_f'), FLOAT, new Uint8Array(4)),
    int64InitializerField(at('axes12'), [1, 2]),
    int64InitializerField(at('minus1'), [-1]),
    int64InitializerField(at('two1'), [2]),
    int64InitializerField(at('three1'), [3]),
    node('Sub', [n.logits, n.max], at('shifted')),
    node('Sub', [at('shifted'), n.logSum], at('logprob')),
    node('Where', [n.keep, at('logprob'), at('zero_f')], at('kept')),
    node('Add', [at('kept'), n.mask], at('ruled')),
    node('Unsqueeze', [n.scores, at('axes12')], at('base')),
    node('Add', [at('ruled'), at('base')], at('score')),
    // Per sentence, its beams' rows side by side [sentences, beams × vocab]: flat index = beam × vocab + token.
    node('Shape', [n.logits], at('shape')),
    node('Slice', [at('shape'), at('two1'), at('three1')], at('vocab')),
    node('Mul', [n.beams, at('vocab')], at('width')),
    nodeField('Concat', [at('minus1'), at('width')], [at('flat_shape')], at('flat_shape'), [intAttribute('axis', 0)]),
    node('Reshape', [at('score'), at('flat_shape')], at('flat')),
    node('Mul', [n.beams, at('two1')], at('k')),
    nodeField('TopK', [at('flat'), at('k')], [n.values, at('top')], at('topk'), [intAttribute('axis', 1), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    node('Div', [at('top'), at('vocab')], at('beam')),
    node('Mul', [at('beam'), at('vocab')], at('beam_start')),
    node('Sub', [at('top'), at('beam_start')], n.ids),
    // The row a candidate continues: its sentence's first row plus its beam.
    node('Shape', [at('flat')], at('flat_dims')),
    node('Slice', [at('flat_dims'), at('zero1'), at('one1')], at('sentences1')),
    node('Squeeze', [at('sentences1'), at('zero1')], at('sentences')),
    node('Range', [at('zero'), at('sentences'), at('one')], at('sentence')),
    node('Mul', [at('sentence'), n.beams], at('first')),
    node('Unsqueeze', [at('first'), at('one1')], at('first2')),
    node('Add', [at('first2'), at('beam')], n.from),
    int64InitializerField(at('zero1'), [0]),
    int64InitializerField(at('one1'), [1]),
    int64Scalar(at('zero'), 0),
    int64Scalar(at('one'), 1),
  ];
}

/** The ranking as a model of its own: the log-softmax statistics of the logits, then rankNodes. */
export function beamRankModel(): Uint8Array {
  const p = 'rank/';
  return modelBytes(concat([
    lenField(GRAPH.name, 'beam_rank'),
    ...softmaxStatsNodes(`${p}stats/`, BEAM_RANK.logits, `${p}max`, `${p}log_sum`),
    ...rankNodes(p, { ...BEAM_RANK, max: `${p}max`, logSum: `${p}log_sum` }),
    tensorInfoField(GRAPH.input, BEAM_RANK.logits, FLOAT, ['rows', 1, 'vocab']),
    tensorInfoField(GRAPH.input, BEAM_RANK.scores, FLOAT, ['rows']),
    tensorInfoField(GRAPH.input, BEAM_RANK.mask, FLOAT, ['rule_rows', 1, 'vocab']),
    tensorInfoField(GRAPH.input, BEAM_RANK.keep, BOOL, ['rule_rows', 1, 1]),
    tensorInfoField(GRAPH.input, BEAM_RANK.beams, INT64, [1]),
    tensorInfoField(GRAPH.output, BEAM_RANK.values, FLOAT, ['sentences', 'candidates']),
    tensorInfoField(GRAPH.output, BEAM_RANK.from, INT64, ['sentences', 'candidates']),
    tensorInfoField(GRAPH.output, BEAM_RANK.ids, INT64, ['sentences', 'candidates']),
  ]), 13);
}
