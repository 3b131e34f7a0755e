// Beam search reads every row's 58,101 logits: log_softmax, the rules, + the beam's score, then the best 2 × beams
// per source sentence. In JavaScript that was over half of a beam-4 sentence on OPUS-MT-base (~1.2 ms a row and
// step, Math.exp over the whole row). This small onnxruntime model does the arithmetic of beam.ts's JavaScript per
// row, in the same precision, and returns only each row's k best candidates:
//   lp    = float32(x − (max + log Σ exp(x − max)))      x and the log-sum-exp in float64, like beam.ts's logSoftmax
//   score = float32(float64(lp) + float64(base))         base: the beam's running score (a float32 value)
//   k best scores per row, best first, ties to the lower token id (ONNX TopK), and their token ids.
// The rules are left to beam.ts: a ban only removes candidates (k covers them), and a forced token or a beam at
// −Infinity does not depend on the logits at all. Only the order of the float64 sum differs from the JavaScript loop.
import ort from 'onnxruntime-node';
import { DOUBLE, FLOAT, GRAPH, INT64, concat, int64InitializerField, intAttribute, intsAttribute, lenField, modelBytes, nodeField, tensorInfoField } from './onnx-proto.ts';

export interface BeamCandidates {
  /** [rows x k] scores (base + log-probability, float32), best first. */
  scores: Float32Array;
  /** [rows x k] token ids of those scores. */
  ids: BigInt64Array;
  k: number;
}

/** The head as an ONNX model: inputs logits [rows, 1, vocab], base [rows, 1, 1] (float32), k [1] (int64). */
export function beamHeadModel(): Uint8Array {
  const n = (op: string, inputs: string[], output: string, attributes: Uint8Array[] = []) => nodeField(op, inputs, [output], output, attributes);
  const toDouble = [intAttribute('to', DOUBLE)];
  const toFloat = [intAttribute('to', FLOAT)];
  const keep = intAttribute('keepdims', 1);
  const body = concat([
    n('Cast', ['logits'], 'x', toDouble),
    n('ReduceMax', ['x'], 'max', [intsAttribute('axes', [2]), keep]),
    n('Sub', ['x', 'max'], 'shifted'),
    n('Exp', ['shifted'], 'exp'),
    n('ReduceSum', ['exp', 'axis'], 'sum', [keep]),
    n('Log', ['sum'], 'log_sum'),
    n('Add', ['max', 'log_sum'], 'lse'),
    n('Sub', ['x', 'lse'], 'lp64'),
    n('Cast', ['lp64'], 'lp', toFloat),
    n('Cast', ['lp'], 'lp_double', toDouble),
    n('Cast', ['base'], 'base_double', toDouble),
    n('Add', ['lp_double', 'base_double'], 'score64'),
    n('Cast', ['score64'], 'score', toFloat),
    nodeField('TopK', ['score', 'k'], ['scores', 'ids'], 'top', [intAttribute('axis', 2), intAttribute('largest', 1), intAttribute('sorted', 1)]),
    lenField(GRAPH.name, 'beam_head'),
    int64InitializerField('axis', [2]),
    tensorInfoField(GRAPH.input, 'logits', FLOAT, ['rows', 1, 'vocab']),
    tensorInfoField(GRAPH.input, 'base', FLOAT, ['rows', 1, 1]),
    tensorInfoField(GRAPH.input, 'k', INT64, [1]),
    tensorInfoField(GRAPH.output, 'scores', FLOAT, ['rows', 1, 'k']),
    tensorInfoField(GRAPH.output, 'ids', INT64, ['rows', 1, 'k']),
  ]);
  return modelBytes(body, 17);
}

/** The head's session: one per model, with the model's session options (it runs between two decoder steps). */
export class BeamHead {
  private constructor(private readonly session: ort.InferenceSession) {}

  static async open(options: ort.InferenceSession.SessionOptions): Promise<BeamHead> {
    return new BeamHead(await ort.InferenceSession.create(beamHeadModel(), options));
  }

  /** Each row's k best (score, token) from its logits ([rows x vocab]) and its beam's running score. */
  async candidates(logits: Float32Array, base: Float32Array, k: number): Promise<BeamCandidates> {
    const rows = base.length;
    const out = await this.session.run({
      logits: new ort.Tensor('float32', logits, [rows, 1, logits.length / rows]),
      base: new ort.Tensor('float32', base, [rows, 1, 1]),
      k: new ort.Tensor('int64', BigInt64Array.of(BigInt(k)), [1]),
    });
    return { scores: out.scores!.data as Float32Array, ids: out.ids!.data as BigInt64Array, k };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
