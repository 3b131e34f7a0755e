// Beam search's choice of one step, written once as ONNX nodes: beam-loop.ts runs them inside its Loop after every
// step, and the runtime runs them as a model of their own after a step of a decoder without that Loop. Hugging Face's
// BeamSearchScorer ranks a step this way (the references were made that way):
//   log-probability  f32(f32(x − max) − logSum)          (log_softmax in float32)
//   the rules        a forced row keeps only its token, at 0; a banned token −∞ (the mask: applyRules on zeros)
//   the score        f32(rules' result + the beam's score)
//   each sentence's 2 × beams best over its beams × vocabulary, ties to the lower flat index (beam, then token)
// Scoring the whole vocabulary of every row costs a batch at beam 4 (128 rows) about 20 ms a step (docs/engine.md), so
// the nodes score each row's k best logits only (and a forced token), and rank all logits only when that could
// differ: when a live row's k-th logit, unbanned, would reach its sentence's 2 × beams-th score (log_softmax is
// monotonic, so nothing a row did not offer scores above its k-th). Both branches are these rules; an If picks one.
// What is left to search/beam.ts is the bookkeeping: a candidate that is EOS among the first `beams` becomes a
// finished hypothesis, the first `beams` others the next beams.
import {
  BOOL, FLOAT, GRAPH, INT64, concat, graphAttribute, int64InitializerField, intAttribute, lenField, modelBytes, nodeField, tensorInfoField,
} from '../model/onnx-proto.ts';
import { int64Scalar, scalarInitializer } from './greedy-loop.ts';
import { softmaxStatsNodes } from './top-candidates.ts';

/** The ranking model's inputs and outputs (rows = sentences × beams, grouped by sentence). */
export const BEAM_RANK = {
  /** float [rows, 1, vocab]: the step's logits. */
  logits: 'logits',
  /** int64 [1]: each row's best logits scored before the check (at most the vocabulary). */
  k: 'rank/candidates',
  /** float [rows]: each row's beam score. */
  scores: 'rank/scores',
  /** float [1 or rows, 1, vocab]: the rules applied to zeros (0, or −∞ for a token they rule out). */
  mask: 'rank/mask',
  /** int64 [1 or rows, 1, 1]: the token a rule forces on the row, or −1. */
  forced: 'rank/forced',
  /** bool [rows, 1]: rows of finished sentences (their ranking is not read). */
  done: 'rank/done',
  /** int64 [1]: beams per sentence. */
  beams: 'rank/beams',
  /** [sentences, 2 × beams], each sentence's best first: the scores, the row each continues and the token. */
  values: 'rank/values',
  from: 'rank/from',
  ids: 'rank/ids',
} as const;

/** The names rankNodes reads (the step's logits, its k best and statistics, the rules) and writes (the ranking). */
export interface RankNames {
  logits: string;
  candValues: string;
  candIds: string;
  max: string;
  logSum: string;
  scores: string;
  mask: string;
  forced: string;
  done: string;
  beams: string;
  values: string;
  from: string;
  ids: string;
}

/** The ranking's nodes and the initializers they read, every other name under `p`. */
export function rankNodes(p: string, n: RankNames): Uint8Array[] {
  const o = (name: string) => `${p}${name}`;
  const N = (op: string, ins: string[], out: string, attrs: Uint8Array[] = []) => nodeField(op, ins, [o(out)], o(out), attrs);
  const full = fullRankGraph(`${p}full/`, o, n, [o('full_values'), o('full_from'), o('full_ids')]);
  return [
    scalarInitializer(o('neg_inf'), FLOAT, Uint8Array.of(0, 0, 0x80, 0xff)),
    int64Scalar(o('zero'), 0),
    int64Scalar(o('one'), 1),
    int64InitializerField(o('zero1'), [0]),
    int64InitializerField(o('one1'), [1]),
    int64InitializerField(o('two1'), [2]),
    int64InitializerField(o('three1'), [3]),
    int64InitializerField(o('minus1'), [-1]),
    int64InitializerField(o('axes12'), [1, 2]),
    int64InitializerField(o('row3'), [-1, 1, 1]),
    N('Less', [n.forced, o('zero')], 'keep'),
    // The candidates' log-probabilities, and the rules' mask at each (the row's mask row: the only one, or its own).
    N('Sub', [n.candValues, n.max], 'shifted'),
    N('Sub', [o('shifted'), n.logSum], 'lp'),
    N('Shape', [n.logits], 'logits_shape'),
    N('Slice', [o('logits_shape'), o('two1'), o('three1')], 'vocab'),
    N('Shape', [n.mask], 'mask_shape'),
    N('Slice', [o('mask_shape'), o('zero1'), o('one1')], 'rule_rows'),
    N('Shape', [n.scores], 'rows1'),
    N('Squeeze', [o('rows1'), o('zero1')], 'rows'),
    N('Range', [o('zero'), o('rows'), o('one')], 'row'),
    N('Mod', [o('row'), o('rule_rows')], 'rule_row'),
    N('Mul', [o('rule_row'), o('vocab')], 'row_start'),
    N('Reshape', [o('row_start'), o('row3')], 'row_start3'),
    N('Reshape', [n.mask, o('minus1')], 'flat_mask'),
    N('Add', [n.candIds, o('row_start3')], 'cand_at'),
    N('Gather', [o('flat_mask'), o('cand_at')], 'cand_mask'),
    N('Add', [o('lp'), o('cand_mask')], 'cand_ruled'),
    // A forced row's candidates are out; its forced token is one more candidate, at 0 plus its mask.
    N('Where', [o('keep'), o('cand_ruled'), o('neg_inf')], 'kept_ruled'),
    N('Concat', [o('rows1'), o('one1'), o('one1')], 'rows_shape3', [intAttribute('axis', 0)]),
    N('Expand', [o('keep'), o('rows_shape3')], 'keep_rows'),
    N('Where', [o('keep'), o('zero'), n.forced], 'forced_id'),
    N('Expand', [o('forced_id'), o('rows_shape3')], 'forced_rows'),
    N('Add', [o('forced_rows'), o('row_start3')], 'forced_at'),
    N('Gather', [o('flat_mask'), o('forced_at')], 'forced_mask'),
    N('Where', [o('keep_rows'), o('neg_inf'), o('forced_mask')], 'forced_ruled'),
    N('Concat', [o('kept_ruled'), o('forced_ruled')], 'all_ruled', [intAttribute('axis', 2)]),
    N('Concat', [n.candIds, o('forced_rows')], 'all_ids', [intAttribute('axis', 2)]),
    N('Unsqueeze', [n.scores, o('axes12')], 'base'),
    N('Add', [o('all_ruled'), o('base')], 'all_score'),
    // Each row's candidates by token id, so that TopK's ties (the lower position) fall to the lower flat index.
    N('Shape', [o('all_ids')], 'all_shape'),
    N('Slice', [o('all_shape'), o('two1'), o('three1')], 'width'),
    nodeField('TopK', [o('all_ids'), o('width')], [o('by_id'), o('by_id_at')], o('by_id'), [intAttribute('axis', 2), intAttribute('largest', 0), intAttribute('sorted', 1)]),
    N('GatherElements', [o('all_score'), o('by_id_at')], 'by_id_score', [intAttribute('axis', 2)]),
    N('Mul', [n.beams, o('two1')], 'k2'),
    ...bestPerSentence(p, o, o('by_id_score'), o('width'), n.beams, { values: o('cand_values'), from: o('cand_from') }),
    N('Reshape', [o('by_id'), o('flat_shape')], 'flat_ids'),
    N('GatherElements', [o('flat_ids'), o('top')], 'cand_tokens', [intAttribute('axis', 1)]),
    // Exact unless a live, unforced row's k-th logit, unbanned, reaches the 2 × beams-th score kept.
    N('Shape', [n.candValues], 'cand_shape'),
    N('Slice', [o('cand_shape'), o('two1'), o('three1')], 'k'),
    N('Sub', [o('k'), o('one1')], 'last_at'),
    N('Slice', [o('lp'), o('last_at'), o('k'), o('two1')], 'last_lp'),
    N('Add', [o('last_lp'), o('base')], 'reach'),
    N('Concat', [o('minus1'), n.beams], 'sb_shape', [intAttribute('axis', 0)]),
    N('Reshape', [o('reach'), o('sb_shape')], 'reach_sb'),
    N('Sub', [o('k2'), o('one1')], 'kth_at'),
    N('Slice', [o('cand_values'), o('kth_at'), o('k2'), o('one1')], 'kth'),
    N('Less', [o('reach_sb'), o('kth')], 'below'),
    N('Reshape', [n.done, o('sb_shape')], 'done_sb'),
    N('Reshape', [o('keep_rows'), o('sb_shape')], 'keep_sb'),
    N('Not', [o('keep_sb')], 'forced_sb'),
    N('Or', [o('below'), o('done_sb')], 'safe1'),
    N('Or', [o('safe1'), o('forced_sb')], 'safe'),
    N('Not', [o('safe')], 'unsafe'),
    N('Cast', [o('unsafe')], 'unsafe_i', [intAttribute('to', INT64)]),
    nodeField('ReduceSum', [o('unsafe_i')], [o('unsafe_rows')], o('unsafe_rows'), [intAttribute('keepdims', 0)]),
    N('Greater', [o('unsafe_rows'), o('zero')], 'whole_rows'),
    nodeField('If', [o('whole_rows')], [n.values, n.from, n.ids], o('choose'), [
      graphAttribute('then_branch', full),
      graphAttribute('else_branch', concat([
        lenField(GRAPH.name, 'candidates'),
        nodeField('Identity', [o('cand_values')], [o('c_values')], o('c_values')),
        nodeField('Identity', [o('cand_from')], [o('c_from')], o('c_from')),
        nodeField('Identity', [o('cand_tokens')], [o('c_ids')], o('c_ids')),
        ...rankedOutputs([o('c_values'), o('c_from'), o('c_ids')]),
      ])),
    ]),
  ];
}

/** The If branches' outputs: values, rows continued, tokens. */
function rankedOutputs([values, from, ids]: string[]): Uint8Array[] {
  return [
    tensorInfoField(GRAPH.output, values!, FLOAT, ['sentences', 'candidates']),
    tensorInfoField(GRAPH.output, from!, INT64, ['sentences', 'candidates']),
    tensorInfoField(GRAPH.output, ids!, INT64, ['sentences', 'candidates']),
  ];
}

/**
 * The same ranking over every logit of every row: the If's branch for a step the candidates cannot decide. It reads
 * rankNodes' names (`o`): its constants, `keep`, the vocabulary, each row's beam score as `base`, and `k2`.
 */
function fullRankGraph(p: string, o: (name: string) => string, n: RankNames, outputs: string[]): Uint8Array {
  const [values, from, ids] = outputs as [string, string, string];
  const q = (name: string) => `${p}${name}`;
  const N = (op: string, ins: string[], out: string, attrs: Uint8Array[] = []) => nodeField(op, ins, [q(out)], q(out), attrs);
  return concat([
    lenField(GRAPH.name, 'whole_rows'),
    scalarInitializer(q('zero_f'), FLOAT, new Uint8Array(4)),
    N('Sub', [n.logits, n.max], 'shifted'),
    N('Sub', [q('shifted'), n.logSum], 'logprob'),
    N('Where', [o('keep'), q('logprob'), q('zero_f')], 'kept'),
    N('Add', [q('kept'), n.mask], 'ruled'),
    N('Add', [q('ruled'), o('base')], 'score'),
    ...bestPerSentence(p, o, q('score'), o('vocab'), n.beams, { values, from }),
    N('Mul', [q('beam'), o('vocab')], 'beam_start'),
    nodeField('Sub', [q('top'), q('beam_start')], [ids], q('ids')),
    ...rankedOutputs(outputs),
  ]);
}

/**
 * Each sentence's 2 × beams best of `score` [rows, 1, width], its beams' rows side by side (flat index = beam × width
 * + position; TopK's ties go to the lower one): the scores into `out.values`, the row each continues into `out.from`,
 * and under `p` the flat positions `top`, the beam of each `beam`, and the flat shape `flat_shape`. Constants and `k2`
 * are rankNodes' (`o`).
 */
function bestPerSentence(
  p: string, o: (name: string) => string, score: string, width: string, beams: string, out: { values: string; from: string },
): Uint8Array[] {
  const q = (name: string) => `${p}${name}`;
  const N = (op: string, ins: string[], name: string, attrs: Uint8Array[] = []) => nodeField(op, ins, [q(name)], q(name), attrs);
  return [
    N('Mul', [beams, width], 'flat_width'),
    N('Concat', [o('minus1'), q('flat_width')], 'flat_shape', [intAttribute('axis', 0)]),
    N('Reshape', [score, q('flat_shape')], 'flat'),
    nodeField('TopK', [q('flat'), o('k2')], [out.values, q('top')], q('topk'), [intAttribute('axis', 1), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    N('Div', [q('top'), width], 'beam'),
    // The row a candidate continues: its sentence's first row plus its beam.
    N('Shape', [q('flat')], 'flat_dims'),
    N('Slice', [q('flat_dims'), o('zero1'), o('one1')], 'sentences1'),
    N('Squeeze', [q('sentences1'), o('zero1')], 'sentences'),
    N('Range', [o('zero'), q('sentences'), o('one')], 'sentence'),
    N('Mul', [q('sentence'), beams], 'first'),
    N('Unsqueeze', [q('first'), o('one1')], 'first2'),
    nodeField('Add', [q('first2'), q('beam')], [out.from], q('from')),
  ];
}

/** The ranking as a model of its own: the log-softmax statistics and the k best of the logits, then rankNodes. */
export function beamRankModel(): Uint8Array {
  const p = 'rank/';
  return modelBytes(concat([
    lenField(GRAPH.name, 'beam_rank'),
    ...softmaxStatsNodes(`${p}stats/`, BEAM_RANK.logits, `${p}max`, `${p}log_sum`),
    nodeField('TopK', [BEAM_RANK.logits, BEAM_RANK.k], [`${p}best_values`, `${p}best_ids`], `${p}best`,
      [intAttribute('axis', 2), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    ...rankNodes(p, { ...BEAM_RANK, candValues: `${p}best_values`, candIds: `${p}best_ids`, max: `${p}max`, logSum: `${p}log_sum` }),
    tensorInfoField(GRAPH.input, BEAM_RANK.logits, FLOAT, ['rows', 1, 'vocab']),
    tensorInfoField(GRAPH.input, BEAM_RANK.k, INT64, [1]),
    tensorInfoField(GRAPH.input, BEAM_RANK.scores, FLOAT, ['rows']),
    tensorInfoField(GRAPH.input, BEAM_RANK.mask, FLOAT, ['rule_rows', 1, 'vocab']),
    tensorInfoField(GRAPH.input, BEAM_RANK.forced, INT64, ['rule_rows', 1, 1]),
    tensorInfoField(GRAPH.input, BEAM_RANK.done, BOOL, ['rows', 1]),
    tensorInfoField(GRAPH.input, BEAM_RANK.beams, INT64, [1]),
    ...rankedOutputs([BEAM_RANK.values, BEAM_RANK.from, BEAM_RANK.ids]),
  ]), 13);
}
