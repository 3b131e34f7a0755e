// One encoder-decoder model on onnxruntime: the encoder once per batch, then decoder steps over the KV cache. It is
// search's SearchDecoder (search-decoder.ts): which graph variant answers a step or a run (optimum's merged file, the
// split step model with its search outputs and Loops, open-decoder.ts) stays in this file.
import ort from 'onnxruntime-node';
import { BEAM_LOOP, beamLoopInputs, greedyLoopInputs, LOOP, loopRun, NO_SEARCH, noLogits, searchFeeds, WHOLE_ROW, wholeRowLength, type RuleTensors } from '../search-graphs/loop-io.ts';
import { SEARCH, TOP_IDS } from '../search-graphs/top-candidates.ts';
import { VOCAB_IDS } from '../graph/check-feeds.ts';
import type { DecoderDims } from '../model/family.ts';
import type { LoadedRuntime } from '../types.ts';
import { gatherRows, permuteRows, repeatRows, type Seq2SeqState, type Encoded } from './kv-cache.ts';
import type { Decoder } from './open-decoder.ts';
import { BeamRanking } from './beam-ranking.ts';
import type { BeamRunRequest, BeamStepRequest, CandidateRequest, GreedyRunRequest, RankedStep, SearchDecoder, StepCandidates, StepRuns } from './search-decoder.ts';
import type { StepSessions } from './step-sessions.ts';

export type { Seq2SeqState, Encoded } from './kv-cache.ts';

type Result = 'logits' | typeof TOP_IDS;

const NONE_I64 = new BigInt64Array(0);
/** No ids: graph/output-subset.ts's step model then runs its projection over the whole vocabulary. */
const WHOLE_VOCABULARY = new ort.Tensor('int64', NONE_I64, [0]);

/** What a beam Loop run needs of the decoder: the step model's session holding the Loop, and the logits' length. */
interface BeamLoop {
  withPast: ort.InferenceSession;
  vocab: number;
}

export class Seq2SeqModel implements SearchDecoder {
  private readonly selfNames: string[] = [];
  private readonly crossNames: string[] = [];
  /** Feed and output names of the cache, made once. */
  private readonly selfPast: string[];
  private readonly selfPresent: string[];
  private readonly crossPast: string[];
  /** What a split step fetches: one result and the self-attention cache (a copy of anything more costs time). */
  private readonly fetches: Record<Result, string[]>;

  /** Use loadModel (load-model.ts). */
  constructor(
    private readonly encoder: ort.InferenceSession,
    private readonly decoder: Decoder,
    private readonly dims: DecoderDims,
    private readonly padId: number,
    /** onnxruntime threads these sessions use. */
    private readonly threads: number,
    /** DRAGOMAN_SPINNING=auto with the split decoder: the step model's spinning and non-spinning sessions. */
    private readonly steps?: StepSessions,
  ) {
    for (let i = 0; i < dims.layers; i++) {
      for (const kv of ['key', 'value']) {
        this.selfNames.push(`${i}.decoder.${kv}`);
        this.crossNames.push(`${i}.encoder.${kv}`);
      }
    }
    this.selfPast = this.selfNames.map((n) => `past_key_values.${n}`);
    this.selfPresent = this.selfNames.map((n) => `present.${n}`);
    this.crossPast = this.crossNames.map((n) => `past_key_values.${n}`);
    this.fetches = {
      logits: ['logits', ...this.selfPresent],
      [TOP_IDS]: [TOP_IDS, ...this.selfPresent],
    };
    const loopPresent = this.selfPresent.map((n) => LOOP.presentPrefix + n);
    this.loopFetches = {
      logits: [LOOP.logits, ...loopPresent],
      [TOP_IDS]: [LOOP.topIds, ...loopPresent],
    };
    // The Loops the step model holds, offered once as runs: search asks for no run this decoder lacks.
    if (decoder.kind === 'split' && decoder.loop) {
      const withPast = decoder.withPast;
      const beam = this.beamLoop;
      this.runs = {
        greedy: (state: Seq2SeqState, tokens: readonly number[], req: GreedyRunRequest) => this.greedyRun(withPast, state, tokens, req),
        ...(beam ? { beam: (state: Seq2SeqState, tokens: readonly number[], req: BeamRunRequest) => this.beamRun(beam, state, tokens, req) } : {}),
      };
    }
  }

  /** Greedy and beam search's runs of steps in one onnxruntime run, when the step model holds their Loops. */
  readonly runs?: StepRuns;

  /** The same fetches from greedy-loop.ts's Loop, and the step model's name of each of its outputs. */
  private readonly loopFetches: Record<Result, string[]>;
  private static readonly FROM_LOOP: Record<string, string> = { [LOOP.logits]: 'logits', [LOOP.topIds]: TOP_IDS };
  /** Greedy search's ban vectors by banned ids (pad; pad and EOS), made once. */
  private readonly bans = new Map<string, ort.Tensor>();
  /** Beam search's ranking: its rules' tensors, and its model for a step outside beam search's Loop. */
  private readonly ranking = new BeamRanking();

  /** Threads, decoder kind, int8 output projection (signed-weights.ts), fused attention blocks (attention-fusion.ts). */
  get runtime(): LoadedRuntime {
    const split = this.decoder.kind === 'split' ? this.decoder : undefined;
    return {
      threads: this.threads, decoder: this.decoder.kind, signedWeights: !!split?.signedWeights, fusedAttention: split?.fusedAttention ?? 0,
      topCandidates: this.topCandidates, greedyLoop: this.greedyLoop, beamLoop: !!this.beamLoop, outputSubset: split?.outputSubset !== undefined,
    };
  }

  /** Greedy search's candidates per row in the Loop (0: no search outputs). */
  private get topCandidates(): number {
    return this.decoder.kind === 'split' ? this.decoder.topCandidates : 0;
  }

  /** DRAGOMAN_SPINNING=auto: the step model's sessions (undefined otherwise). */
  get stepSessions(): StepSessions | undefined {
    return this.steps;
  }

  /**
   * `outputIds`: the sorted vocabulary ids the output projection runs over for these rows (model/output-vocabulary.ts),
   * when the step model takes them (graph/output-subset.ts); undefined = every id.
   */
  async begin(sources: readonly number[][], copies = 1, outputIds?: BigInt64Array): Promise<Seq2SeqState> {
    const encoded = await this.encode(sources);
    const state = this.start(copies === 1 ? encoded : {
      hidden: repeatRows(encoded.hidden, copies), mask: repeatRows(encoded.mask, copies), rows: encoded.rows * copies,
    });
    if (this.decoder.kind === 'split' && this.decoder.outputSubset !== undefined) {
      state.vocab = outputIds ? new ort.Tensor('int64', outputIds, [outputIds.length]) : WHOLE_VOCABULARY;
    }
    return state;
  }

  /** This decoder for a job whose rows may write only `outputIds` (undefined: this decoder, every id). */
  withOutputIds(outputIds: BigInt64Array | undefined): SearchDecoder {
    if (!outputIds || this.decoder.kind !== 'split' || this.decoder.outputSubset === undefined) return this;
    return {
      begin: (sources, copies) => this.begin(sources, copies, outputIds),
      step: (state, tokens, want) => this.step(state as Seq2SeqState, tokens, want),
      beamStep: (state, tokens, req) => this.beamStep(state as Seq2SeqState, tokens, req),
      reorder: (state, from) => this.reorder(state as Seq2SeqState, from),
      select: (state, rows) => this.select(state as Seq2SeqState, rows),
      ...(this.runs && { runs: this.runs }),
    };
  }



  /** Runs the encoder on right-padded rows. */
  private async encode(batch: readonly number[][]): Promise<Encoded> {
    const rows = batch.length;
    const width = Math.max(...batch.map((r) => r.length));
    const ids = new BigInt64Array(rows * width).fill(BigInt(this.padId));
    const mask = new BigInt64Array(rows * width);
    batch.forEach((row, r) => row.forEach((id, j) => {
      ids[r * width + j] = BigInt(id);
      mask[r * width + j] = 1n;
    }));
    const maskTensor = new ort.Tensor('int64', mask, [rows, width]);
    const out = await this.encoder.run({ input_ids: new ort.Tensor('int64', ids, [rows, width]), attention_mask: maskTensor });
    return { hidden: out.last_hidden_state as ort.Tensor, mask: maskTensor, rows };
  }

  private start(encoded: Encoded): Seq2SeqState {
    const { heads, headDim } = this.dims;
    const past: Record<string, ort.Tensor> = {};
    for (const n of [...this.selfNames, ...this.crossNames]) {
      past[`past_key_values.${n}`] = new ort.Tensor('float32', new Float32Array(0), [encoded.rows, heads, 0, headDim]);
    }
    return { rows: encoded.rows, encoded, past, step: 0 };
  }

  /** Whether the step model has the search outputs (top-candidates.ts): steps can answer with candidates. */
  private get searchOutputs(): boolean {
    return this.decoder.kind === 'split' && this.decoder.searchOutputs;
  }

  /**
   * One step. With the search outputs, each row's k best ids come from onnxruntime and the logits stay there;
   * `logits()` then runs the same step again on the same inputs, without touching the cache. Without them, or asked
   * for k = 0 (or k past the vocabulary), the answer is the logits.
   */
  async step(state: Seq2SeqState, tokens: readonly number[], want: CandidateRequest): Promise<StepCandidates> {
    const vocab = this.decoder.kind === 'split' ? this.decoder.loop?.vocab : undefined;
    if (want.k <= 0 || !this.searchOutputs || (vocab !== undefined && want.k > vocab)) {
      const logits = (await this.logitsStep(state, tokens)).data as Float32Array;
      return { k: 0, ids: NONE_I64, logits: async () => logits };
    }
    const { k } = want;
    const { out, feeds, session } = await this.advanceWith(state, tokens, TOP_IDS, searchFeeds(k, 1));
    return {
      k,
      ids: (out[SEARCH.ids] as ort.Tensor).data as BigInt64Array,
      logits: async () => this.decoder.kind === 'split' && this.decoder.loop
        ? (await session!.run({ ...feeds!, [LOOP.logitsLen]: wholeRowLength }, [LOOP.logits]))[LOOP.logits]!.data as Float32Array
        : (await session!.run(feeds!, ['logits'])).logits!.data as Float32Array,
    };
  }

  /** One step's logits, [rows, 1, vocab]. */
  private async logitsStep(state: Seq2SeqState, tokens: readonly number[]): Promise<ort.Tensor> {
    const logits = (await this.advanceWith(state, tokens, 'logits', NO_SEARCH)).out.logits as ort.Tensor;
    // The greedy Loop's scan output is [1, rows, 1, vocab]: the same data.
    return logits.dims.length === 3 ? logits : new ort.Tensor('float32', logits.data as Float32Array, logits.dims.slice(1));
  }

  /**
   * One decoder run fetching `result` and the self-attention cache (only what is fetched is copied out), with the
   * search inputs' feeds; also the feeds and session it ran (split decoder only), for a step's logits() to run again.
   */
  private async advanceWith(state: Seq2SeqState, tokens: readonly number[], result: Result, search: Record<string, ort.Tensor>) {
    let used: Record<string, ort.Tensor> | undefined;
    let usedSession: ort.InferenceSession | undefined;
    const feeds: Record<string, ort.Tensor> = {
      encoder_attention_mask: state.encoded.mask,
      input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, (t) => BigInt(t)), [state.rows, 1]),
      encoder_hidden_states: state.encoded.hidden,
      ...(state.vocab && { [VOCAB_IDS]: state.vocab }),
    };
    let out: ort.InferenceSession.ReturnType;
    // The cache lives in state.past, updated in place; each run's feeds are one object filled in the session's input
    // order (spreading ~27 tensors into fresh objects twice a step cost ~40 µs of a ~2.5 ms step).
    if (this.decoder.kind === 'split') {
      await this.splitCross(state);
      const session = this.steps?.pick() ?? this.decoder.withPast;
      if (this.decoder.loop) {
        // The Loop run for one step: its outputs under the step model's names ([1, rows, ...] is [rows, ...]'s data).
        const run = this.loopFeeds(session, state, feeds.input_ids!, 1, [], undefined, search, result === 'logits');
        const raw = await session.run(run, this.loopFetches[result]);
        out = Object.fromEntries(Object.entries(raw).map(([name, tensor]) => [Seq2SeqModel.FROM_LOOP[name] ?? name.slice(LOOP.presentPrefix.length), tensor]));
        used = run;
      } else {
        const run: Record<string, ort.Tensor> = {};
        for (const name of session.inputNames) run[name] = feeds[name] ?? state.past[name] ?? search[name]!;
        out = await session.run(run, this.fetches[result]);
        used = run;
      }
      usedSession = session;
    } else {
      out = await (this.steps?.pick() ?? this.decoder.session).run({
        ...feeds,
        use_cache_branch: new ort.Tensor('bool', Uint8Array.from([state.step > 0 ? 1 : 0]), [1]),
        ...state.past,
      });
      if (state.step === 0) this.keepCross(state, out);
    }
    this.selfPast.forEach((key, i) => (state.past[key] = out[this.selfPresent[i]!] as ort.Tensor));
    state.step++;
    return { out, feeds: used, session: usedSession };
  }

  /** The step model's session and vocabulary when it holds beam search's Loop (beam-loop.ts's withSearchLoops). */
  private get beamLoop(): BeamLoop | undefined {
    const d = this.decoder;
    return d.kind === 'split' && d.beamLoop && d.loop ? { withPast: d.withPast, vocab: d.loop.vocab } : undefined;
  }

  /** One beam step: in beam-loop.ts's Loop when the step model has it, else a step then beam-rank.ts's model. */
  async beamStep(state: Seq2SeqState, tokens: readonly number[], req: BeamStepRequest): Promise<RankedStep> {
    const loop = this.beamLoop;
    if (loop) return (await this.beamLoopRun(loop, state, tokens, req, 1, this.ranking.tensors(req.rules, req.beams, loop.vocab)))[0]!;
    if (req.from.some((f, i) => f !== i)) this.reorder(state, req.from);
    return this.ranking.rank(await this.logitsStep(state, tokens), req);
  }

  /** Beam steps in one onnxruntime run of beam-loop.ts's Loop (StepRuns.beam). */
  private async beamRun(loop: BeamLoop, state: Seq2SeqState, tokens: readonly number[], req: BeamRunRequest): Promise<RankedStep[]> {
    const rules = this.ranking.tensors([{ forced: undefined, banned: new Set(req.banned) }], req.beams, loop.vocab);
    return this.beamLoopRun(loop, state, tokens, req, req.steps, rules);
  }

  private async beamLoopRun(
    loop: BeamLoop, state: Seq2SeqState, tokens: readonly number[], req: Omit<BeamStepRequest, 'rules'>, steps: number, rules: RuleTensors,
  ): Promise<RankedStep[]> {
    const { done, beams, scores, from } = req;
    await this.splitCross(state);
    const rows = state.rows;
    const own: Record<string, ort.Tensor> = {
      // The Loop ranks from each row's best logits and its log-softmax statistics over the whole row.
      ...searchFeeds(Math.min(req.candidates, loop.vocab), WHOLE_ROW),
      ...beamLoopInputs(steps, beams, new ort.Tensor('int64', BigInt64Array.from(tokens, (t) => BigInt(t)), [rows, 1]),
        BigInt64Array.from(from, (f) => BigInt(f)), Float32Array.from(scores), Uint8Array.from(done, Number), rules),
      encoder_attention_mask: state.encoded.mask,
      ...(state.vocab && { [VOCAB_IDS]: state.vocab }),
    };
    const session = this.steps?.pick() ?? loop.withPast;
    const run = loopRun(session, own, state.past, BEAM_LOOP.prefix, this.dims);
    const fetches = [BEAM_LOOP.values, BEAM_LOOP.rankedFrom, BEAM_LOOP.rankedIds];
    const out = await session.run(run, [...fetches, ...this.selfPresent.map((n) => BEAM_LOOP.prefix + n)]);
    this.selfPast.forEach((key, i) => (state.past[key] = out[BEAM_LOOP.prefix + this.selfPresent[i]!] as ort.Tensor));
    const ran = out[BEAM_LOOP.values]!.dims[0]!;
    state.step += ran;
    const perStep = <T extends Float32Array | BigInt64Array>(name: string, s: number) => {
      const all = (out[name] as ort.Tensor).data as T;
      return all.subarray((s * all.length) / ran, ((s + 1) * all.length) / ran) as T;
    };
    return Array.from({ length: ran }, (_, s) => ({
      values: perStep<Float32Array>(BEAM_LOOP.values, s),
      from: perStep<BigInt64Array>(BEAM_LOOP.rankedFrom, s),
      ids: perStep<BigInt64Array>(BEAM_LOOP.rankedIds, s),
    }));
  }

  /** The step model is greedy-loop.ts's Loop. */
  private get greedyLoop(): boolean {
    return this.decoder.kind === 'split' && !!this.decoder.loop;
  }

  /** Greedy steps in one onnxruntime run of greedy-loop.ts's Loop (StepRuns.greedy). */
  private async greedyRun(withPast: ort.InferenceSession, state: Seq2SeqState, tokens: readonly number[], req: GreedyRunRequest): Promise<number[][]> {
    const { steps, banned, done } = req;
    await this.splitCross(state);
    const ids = new ort.Tensor('int64', BigInt64Array.from(tokens, (t) => BigInt(t)), [state.rows, 1]);
    const session = this.steps?.pick() ?? withPast;
    const run = this.loopFeeds(session, state, ids, steps, banned, done, searchFeeds(this.topCandidates, 1), false);
    const out = await session.run(run, [LOOP.chosen, ...this.loopFetches[TOP_IDS].slice(1)]);
    this.selfPast.forEach((key, i) => (state.past[key] = out[LOOP.presentPrefix + this.selfPresent[i]!] as ort.Tensor));
    const chosen = out[LOOP.chosen] as ort.Tensor;
    const ran = chosen.dims[0]!;
    state.step += ran;
    const data = chosen.data as BigInt64Array;
    return Array.from({ length: ran }, (_, s) => Array.from(data.subarray(s * state.rows, (s + 1) * state.rows), Number));
  }

  /**
   * Split decoder, first step: the cross-attention K/V from the encoder output, then every step (the first with an
   * empty self-attention cache) on the with-past model.
   */
  private async splitCross(state: Seq2SeqState): Promise<void> {
    if (state.step > 0 || this.decoder.kind !== 'split') return;
    this.keepCross(state, await this.decoder.crossKv.run({ encoder_hidden_states: state.encoded.hidden }));
  }

  /** The cross-attention K/V of a first step's outputs, kept for every later step. */
  private keepCross(state: Seq2SeqState, from: ort.InferenceSession.ReturnType): void {
    this.crossNames.forEach((n, i) => (state.past[this.crossPast[i]!] = from[`present.${n}`] as ort.Tensor));
  }

  /** A Loop run's feeds, in the session's input order (greedy-loop.ts). */
  private loopFeeds(
    session: ort.InferenceSession, state: Seq2SeqState, ids: ort.Tensor, steps: number, banned: readonly number[],
    done: readonly boolean[] | undefined, search: Record<string, ort.Tensor>, wholeLogits: boolean,
  ): Record<string, ort.Tensor> {
    const own: Record<string, ort.Tensor> = {
      ...search,
      ...greedyLoopInputs(steps, ids, done ? Uint8Array.from(done, Number) : new Uint8Array(state.rows),
        this.banVector(banned, this.decoder.kind === 'split' ? this.decoder.loop?.vocab ?? 0 : 0), wholeLogits ? wholeRowLength : noLogits),
      encoder_attention_mask: state.encoded.mask,
      ...(state.vocab && { [VOCAB_IDS]: state.vocab }),
    };
    return loopRun(session, own, state.past, LOOP.pastPrefix, this.dims);
  }

  private banVector(banned: readonly number[], vocab: number): ort.Tensor {
    const key = `${vocab}:${banned.join(',')}`;
    let tensor = this.bans.get(key);
    if (!tensor) {
      const data = new Float32Array(vocab);
      for (const id of banned) if (id >= 0 && id < vocab) data[id] = -Infinity;
      tensor = new ort.Tensor('float32', data, [vocab]);
      this.bans.set(key, tensor);
    }
    return tensor;
  }

  /** Row i of the self-attention cache becomes old row `from[i]` (beam search). Cross K/V rows of one source are equal. */
  reorder(state: Seq2SeqState, from: readonly number[]): void {
    for (const n of this.selfNames) permuteRows(state.past[`past_key_values.${n}`]!, from);
  }

  /** Keeps only the given rows of a batch (finished rows stop costing compute); every cached tensor follows. */
  select(state: Seq2SeqState, rows: readonly number[]): void {
    for (const key of Object.keys(state.past)) state.past[key] = gatherRows(state.past[key]!, rows);
    state.encoded = { hidden: gatherRows(state.encoded.hidden, rows), mask: gatherRows(state.encoded.mask, rows), rows: rows.length };
    state.rows = rows.length;
  }

  async release(): Promise<void> {
    await this.encoder.release();
    // With auto spinning, the step sessions own the step model's session (it may already be released as the idle one).
    if (this.steps) await this.steps.release();
    else await (this.decoder.kind === 'split' ? this.decoder.withPast : this.decoder.session).release();
    if (this.decoder.kind === 'split') {
      await this.decoder.crossKv.release();
    }
    await this.ranking.release();
  }
}

