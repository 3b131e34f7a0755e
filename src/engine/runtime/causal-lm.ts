// One decoder-only model (an LLM translator) on onnxruntime: the prompts are prefilled once, then decoder steps run
// over the KV cache. It is search's SearchDecoder (search-decoder.ts) as seq2seq.ts is: greedy, beam and constrained
// beam search run on it unchanged (it offers no runs: search takes single steps). The first step's answer is the prefill's last logits (the prompt's end is where
// the answer starts, so the step's token — search's decoder start — is not fed).
// Two layouts (model/decoder-only-folder.ts): optimum's graph takes position ids, so prompts of different lengths
// batch together, padded on the left with the attention mask; the onnxruntime-genai builder's graph (GroupQueryAttention)
// reads positions from the mask alone, so each of its rows runs on its own cache.
import { statSync } from 'node:fs';
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import type { DecoderOnlySpec } from '../model/runtime-spec.ts';
import type { SessionSettings } from '../settings.ts';
import type { LoadedRuntime } from '../types.ts';
import { BeamRanking } from './beam-ranking.ts';
import type { PreparedCausal } from './prepare-causal.ts';
import { gatherRows, permuteRows } from './kv-cache.ts';
import type { BeamStepRequest, CandidateRequest, DecoderState, RankedStep, SearchDecoder, StepCandidates } from './search-decoder.ts';
import { sessionOptions, threadsFor } from './session-options.ts';

type Past = Record<string, ort.Tensor>;

/** A batch of prompts being continued. */
export interface CausalState extends DecoderState {
  /** Batched layout: the cache of every row. Row by row: one cache per row. */
  past: Past | Past[];
  /** Batched layout: the attention mask so far, [rows × width] (0 for a prompt's left padding). */
  mask: BigInt64Array;
  width: number;
  /** Each row's next position (its tokens so far, padding not counted). */
  positions: number[];
  /** The prefill's last logits [rows × vocab], the first step's answer; undefined once it was given. */
  first: Float32Array | undefined;
}

const NONE_I64 = new BigInt64Array(0);

export class CausalLm implements SearchDecoder {
  private readonly pastNames: string[] = [];
  private readonly presentNames: string[] = [];
  private readonly ranking = new BeamRanking();
  private readonly positionIds: boolean;

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly dims: DecoderDims,
    private readonly padId: number,
    private readonly threads: number,
    /** Each row on its own cache (the genai layout): its graph cannot take left padding. */
    private readonly rowByRow: boolean,
  ) {
    for (let i = 0; i < dims.layers; i++) {
      for (const kv of ['key', 'value']) {
        this.pastNames.push(`past_key_values.${i}.${kv}`);
        this.presentNames.push(`present.${i}.${kv}`);
      }
    }
    this.positionIds = session.inputNames.includes('position_ids');
  }

  /** `prepared`: the graph computing logits at the last position only (prepare-causal.ts); else the file as it is. */
  static async load(spec: DecoderOnlySpec, settings: SessionSettings, prepared?: PreparedCausal): Promise<CausalLm> {
    const threads = threadsFor(settings, statSync(spec.modelPath).size);
    const open = (model: string | Uint8Array) => (typeof model === 'string'
      ? ort.InferenceSession.create(model, sessionOptions(settings, threads))
      : ort.InferenceSession.create(model, sessionOptions(settings, threads)));
    // A rewritten graph that does not load falls back to the file; a file with an operator onnxruntime's CPU
    // provider lacks fails here, and onnxruntime's message names it.
    const rewritten = prepared?.kind === 'last-position' ? await open(prepared.model).catch(() => undefined) : undefined;
    const session = rewritten ?? await open(spec.modelPath).catch((err: Error) => {
      throw new Error(`${spec.modelPath}: onnxruntime cannot load it: ${err.message}`);
    });
    const missing = ['input_ids', 'attention_mask', ...(spec.dims.layers ? ['past_key_values.0.key'] : [])].filter((n) => !session.inputNames.includes(n));
    if (missing.length || !session.outputNames.includes('logits')) {
      await session.release();
      throw new Error(`${spec.modelPath}: not a decoder-only graph with a KV cache (inputs ${missing.join(', ') || 'ok'}; outputs need logits and present.*)`);
    }
    return new CausalLm(session, spec.dims, spec.rules.padId, threads, spec.layout === 'genai');
  }

  get runtime(): LoadedRuntime {
    return { threads: this.threads, decoder: 'decoder-only', signedWeights: false, fusedAttention: 0, topCandidates: 0, greedyLoop: false, beamLoop: false, outputSubset: false };
  }

  private emptyPast(rows: number): Past {
    const past: Past = {};
    for (const n of this.pastNames) past[n] = new ort.Tensor('float32', new Float32Array(0), [rows, this.dims.heads, 0, this.dims.headDim]);
    return past;
  }

  /** Prefills every prompt, each `copies` times (beam search); the first step answers with its last logits. */
  async begin(sources: readonly number[][], copies = 1): Promise<CausalState> {
    const state = this.rowByRow ? await this.prefillEach(sources) : await this.prefillBatch(sources);
    if (copies > 1) {
      const from = Array.from({ length: sources.length * copies }, (_, i) => Math.floor(i / copies));
      this.gather(state, from);
    }
    return state;
  }

  private async prefillBatch(prompts: readonly number[][]): Promise<CausalState> {
    const rows = prompts.length;
    const width = Math.max(...prompts.map((p) => p.length));
    const ids = new BigInt64Array(rows * width).fill(BigInt(this.padId));
    const mask = new BigInt64Array(rows * width);
    // Padding's positions are 1, as transformers' (position_ids = cumsum(mask) - 1, masked_fill 1).
    const positions = new BigInt64Array(rows * width).fill(1n);
    prompts.forEach((p, r) => {
      const pad = width - p.length;
      p.forEach((id, j) => {
        ids[r * width + pad + j] = BigInt(id);
        mask[r * width + pad + j] = 1n;
        positions[r * width + pad + j] = BigInt(j);
      });
    });
    const feeds: Past = {
      input_ids: new ort.Tensor('int64', ids, [rows, width]),
      attention_mask: new ort.Tensor('int64', mask, [rows, width]),
      ...(this.positionIds ? { position_ids: new ort.Tensor('int64', positions, [rows, width]) } : {}),
      ...this.emptyPast(rows),
    };
    const out = await this.session.run(feeds);
    const past: Past = {};
    this.pastNames.forEach((n, i) => (past[n] = out[this.presentNames[i]!]!));
    return { rows, past, mask, width, positions: prompts.map((p) => p.length), first: lastLogits(out.logits!) };
  }

  private async prefillEach(prompts: readonly number[][]): Promise<CausalState> {
    const pasts: Past[] = [];
    const logits: Float32Array[] = [];
    for (const p of prompts) {
      const out = await this.session.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(p, BigInt), [1, p.length]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(p.length).fill(1n), [1, p.length]),
        ...this.emptyPast(1),
      });
      const past: Past = {};
      this.pastNames.forEach((n, i) => (past[n] = out[this.presentNames[i]!]!));
      pasts.push(past);
      logits.push(lastLogits(out.logits!));
    }
    const vocab = logits[0]!.length;
    const first = new Float32Array(vocab * prompts.length);
    logits.forEach((l, r) => first.set(l, r * vocab));
    return { rows: prompts.length, past: pasts, mask: NONE_I64, width: 0, positions: prompts.map((p) => p.length), first };
  }

  /** One token per row; the first step answers with the prefill's logits. Always logits (no search outputs). */
  async step(state: CausalState, tokens: readonly number[], _want: CandidateRequest): Promise<StepCandidates> {
    const logits = await this.advance(state, tokens);
    return { k: 0, ids: NONE_I64, logits: async () => logits };
  }

  private async advance(state: CausalState, tokens: readonly number[]): Promise<Float32Array> {
    if (state.first) {
      const first = state.first;
      state.first = undefined;
      return first;
    }
    return Array.isArray(state.past) ? this.stepEach(state, state.past, tokens) : this.stepBatch(state, state.past, tokens);
  }

  private async stepBatch(state: CausalState, past: Past, tokens: readonly number[]): Promise<Float32Array> {
    const { rows, width } = state;
    const mask = new BigInt64Array(rows * (width + 1));
    for (let r = 0; r < rows; r++) {
      mask.set(state.mask.subarray(r * width, (r + 1) * width), r * (width + 1));
      mask[r * (width + 1) + width] = 1n;
    }
    const out = await this.session.run({
      input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [rows, 1]),
      attention_mask: new ort.Tensor('int64', mask, [rows, width + 1]),
      ...(this.positionIds ? { position_ids: new ort.Tensor('int64', BigInt64Array.from(state.positions, BigInt), [rows, 1]) } : {}),
      ...past,
    });
    this.pastNames.forEach((n, i) => (past[n] = out[this.presentNames[i]!]!));
    state.mask = mask;
    state.width = width + 1;
    state.positions = state.positions.map((p) => p + 1);
    return out.logits!.data as Float32Array;
  }

  private async stepEach(state: CausalState, pasts: Past[], tokens: readonly number[]): Promise<Float32Array> {
    let all: Float32Array | undefined;
    for (let r = 0; r < state.rows; r++) {
      const length = state.positions[r]! + 1;
      const out = await this.session.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(tokens[r]!)), [1, 1]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(length).fill(1n), [1, length]),
        ...pasts[r]!,
      });
      const past: Past = {};
      this.pastNames.forEach((n, i) => (past[n] = out[this.presentNames[i]!]!));
      pasts[r] = past;
      const logits = out.logits!.data as Float32Array;
      all ??= new Float32Array(logits.length * state.rows);
      all.set(logits, r * logits.length);
    }
    state.positions = state.positions.map((p) => p + 1);
    return all!;
  }

  async beamStep(state: CausalState, tokens: readonly number[], req: BeamStepRequest): Promise<RankedStep> {
    if (req.from.some((f, i) => f !== i)) this.reorder(state, req.from);
    const logits = await this.advance(state, tokens);
    return this.ranking.rank(new ort.Tensor('float32', logits, [state.rows, 1, logits.length / state.rows]), req);
  }

  /** Row i becomes old row `from[i]`. */
  reorder(state: CausalState, from: readonly number[]): void {
    if (Array.isArray(state.past)) {
      const old = state.past;
      state.past = from.map((r) => old[r]!); // a row's cache tensors are never written in place: sharing is safe
    } else {
      for (const n of this.pastNames) permuteRows(state.past[n]!, from);
      state.mask = gatherFlat(state.mask, state.width, from);
    }
    const positions = state.positions;
    state.positions = from.map((r) => positions[r]!);
    if (state.first) state.first = gatherFlat(state.first, state.first.length / state.rows, from);
  }

  /** Keeps only these rows. */
  select(state: CausalState, rows: readonly number[]): void {
    this.gather(state, rows);
  }

  /** The state becomes these rows of itself (any number of them, a row more than once). */
  private gather(state: CausalState, from: readonly number[]): void {
    if (Array.isArray(state.past)) {
      const old = state.past;
      state.past = from.map((r) => old[r]!);
    } else {
      for (const n of this.pastNames) state.past[n] = gatherRows(state.past[n]!, from);
      state.mask = gatherFlat(state.mask, state.width, from);
    }
    const positions = state.positions;
    state.positions = from.map((r) => positions[r]!);
    if (state.first) state.first = gatherFlat(state.first, state.first.length / state.rows, from);
    state.rows = from.length;
  }

  async release(): Promise<void> {
    await this.session.release();
    await this.ranking.release();
  }
}

/** Each row's logits at the last position of [rows, width, vocab] (left padding: every prompt ends there). */
function lastLogits(logits: ort.Tensor): Float32Array {
  const [rows, width, vocab] = logits.dims as [number, number, number];
  const data = logits.data as Float32Array;
  const out = new Float32Array(rows * vocab);
  for (let r = 0; r < rows; r++) out.set(data.subarray((r * width + width - 1) * vocab, (r * width + width) * vocab), r * vocab);
  return out;
}

/** Rows `from` of a flat [rows × per] array. */
function gatherFlat<T extends Float32Array | BigInt64Array>(data: T, per: number, from: readonly number[]): T {
  const out = new (data.constructor as new (n: number) => T)(per * from.length);
  from.forEach((r, i) => (out as Float32Array).set((data as Float32Array).subarray(r * per, (r + 1) * per), i * per));
  return out;
}
