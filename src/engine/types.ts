// What the rest of Dragoman sees of the engine. Languages are FLORES-200 codes (`deu_Latn`), the catalog's
// canonical identity (src/languages); the engine maps them to each model's own codes.

/**
 * Encoder-decoder: OPUS-MT (one pair, multi-target or multi-source), NLLB-200, M2M-100, mBART-50 many-to-many.
 * Decoder-only LLM translators, by config.json's model_type: Llama, Qwen2/Qwen3, Gemma 2/3, Hunyuan (Hy-MT),
 * Mistral, Phi-3.
 */
export type ModelFamily = 'marian' | 'nllb' | 'm2m100' | 'mbart50'
  | 'llama' | 'qwen2' | 'qwen3' | 'gemma2' | 'gemma3' | 'hunyuan' | 'mistral' | 'phi3';

/** Which files a model runs: DRAGOMAN_PRECISION picks among them (auto: the smallest the folder has). */
export type ModelPrecision = 'int4' | 'int8' | 'fp32';
export type PrecisionSetting = 'auto' | ModelPrecision;
export type ModelStatus = 'ok' | 'incomplete' | 'corrupt';

/** How a loaded model runs on onnxruntime, as the worker that loaded it reports. */
export interface LoadedRuntime {
  /** onnxruntime threads of its sessions (one for a small model unless DRAGOMAN_INTRA_OP_THREADS is set). */
  threads: number;
  /**
   * 'split': the merged decoder runs as two models without its If (the `split` pass); 'merged': as it is;
   * 'decoder-only': an LLM translator's one graph (runtime/causal-lm.ts).
   */
  decoder: 'split' | 'merged' | 'decoder-only';
  /** Its uint8 output projection runs as int8 (split decoder on a VNNI CPU: same products, faster kernel). */
  signedWeights: boolean;
  /** Attention blocks of its decoder running as one MultiHeadAttention operator each (the `attention-fusion` pass). */
  fusedAttention: number;
  /** Greedy search's candidates per row from the decoder's TopK (the `search-outputs` pass); 0 = it reads all logits. */
  topCandidates: number;
  /** Greedy search runs its steps several to an onnxruntime run, in an ONNX Loop (the `greedy-loop` pass). */
  greedyLoop: boolean;
  /** Beam search runs its steps several to an onnxruntime run, in an ONNX Loop (the `beam-loop` pass). */
  beamLoop: boolean;
  /** Its output projection runs over each batch's chosen vocabulary rows (the `output-subset` pass, DRAGOMAN_VOCABULARY=target). */
  outputSubset: boolean;
}

/** A model folder as scanned, and once loaded, how it runs. */
export interface ModelInfo extends Partial<LoadedRuntime> {
  /** Folder name under DRAGOMAN_MODELS_DIR; also what X-Dragoman-Model names. */
  name: string;
  path: string;
  family: ModelFamily | undefined;
  /** FLORES codes the model reads and writes (NLLB, M2M-100, mBART-50: every language it has a token for). */
  sources: string[];
  targets: string[];
  precision: ModelPrecision | undefined;
  /** A decoder-only translator's declared pairs (dragoman.json `pairs`, FLORES codes); absent: every source to every target. */
  pairs?: [string, string][];
  /** An LLM translator (it reads a prompt): what its prompt takes besides the text. Absent for an encoder-decoder model. */
  prompt?: PromptAbilities;
  sizeBytes: number;
  status: ModelStatus;
  /** What is wrong when status is not ok (path and reason). */
  problem?: string;
  loadMs?: number;
  /** Its sessions are open in the workers now (models load on demand within DRAGOMAN_MODEL_MEMORY). */
  loaded?: boolean;
  /** What it takes against DRAGOMAN_MODEL_MEMORY now, all workers together (its estimate while loaded, else 0). */
  memoryBytes?: number;
  /** Requests it served since start (a pivot's two models count one each). */
  requests?: number;
}

/**
 * Who waits for a translation: a person (`interactive`, the default) or a job (`bulk`: documents, large requests).
 * Interactive work goes first and takes a worker from bulk work between decoder steps (docs/engine.md#scheduling).
 */
export type Priority = 'interactive' | 'bulk';

/** What an LLM translator's dragoman.json declares its prompt takes besides the text (docs/models.md#the-prompt-dragomanjson). */
export interface PromptAbilities {
  /** `contextPrompt`: text around the source, read but not translated. */
  context: boolean;
  /** `instructionsPrompt`: the customer's instructions. */
  instructions: boolean;
  /** `formalityPrompts`: the registers it has a wording for. */
  formality: Formality[];
  /** `terminologyPrompt` and `termPrompt`: a segment's glossary terms go into its prompt as well as into decoding. */
  terminology: boolean;
  /** `examplesPrompt` and `examplePrompt`: a segment's translation memory matches go into its prompt as examples. */
  examples: boolean;
}

/** A glossary term of a segment as its prompt names it: the source term as the segment has it, and its target term. */
export interface PromptTerm {
  source: string;
  target: string;
}

/** A translation memory's fuzzy match of a segment, shown to an LLM translator as an example: a stored source and its target. */
export interface PromptExample {
  source: string;
  target: string;
}

export type Formality = 'more' | 'less';

/** What a request adds to an LLM translator's prompt; each part must be one its model declares (PromptAbilities). */
export interface PromptAdditions {
  context?: string;
  instructions?: readonly string[];
  formality?: Formality;
}

/**
 * Which model a request asks for (docs/models.md#quality-or-speed): `quality` an LLM translator of the pair, `speed`
 * an encoder-decoder route; each falls back to the usual route when the pair has none of that kind, unless `strict`.
 * Or one installed model by its folder name, which must serve the pair itself.
 */
export type ModelChoice = { kind: 'quality' | 'speed'; strict?: boolean } | { name: string };

export interface TranslateOptions {
  /** The route's kind of model, or one model; absent: the usual order (translate/router.ts). */
  model?: ModelChoice;
  /** Context for the route's first model, instructions and formality for its last one. */
  prompt?: PromptAdditions;
  /**
   * Per segment (same order), the text before it (a document's earlier segments, a line each) as the route's first
   * model's context, in place of `prompt.context`: read only by a model that declares `contextPrompt`, and cut to the
   * latest lines that fit the prompt's bound. Other models translate as without it.
   */
  contexts?: (string | undefined)[];
  /**
   * How glossary terms (constraints with a `source`) reach an LLM translator that declares a terminology wording:
   * in its prompt and by constrained decoding (`both`, the default), or by one of the two (benchmarks compare them).
   * A model without the wording always has them by constrained decoding.
   */
  terms?: 'both' | 'prompt' | 'decoding';
  /**
   * Per segment (same order), a translation memory's best matches of it, best first: examples in the prompt of a
   * one-model route's LLM translator that declares an examples wording (as many as fit the prompt's bound). Other
   * models, and routes through a pivot, translate as without them.
   */
  examples?: (readonly PromptExample[] | undefined)[];
  /** Default interactive. */
  priority?: Priority;
  /** Beam size for this call (default: DRAGOMAN_BEAM, else the model's generation_config). */
  beams?: number;
  /** Also return up to N other hypotheses of the beam (n-best), distinct from the best one. */
  alternatives?: number;
  /** Aborted when the client has gone: sentences not yet on a worker are dropped. */
  signal?: AbortSignal;
  /**
   * Per segment (same order), what its translation must contain verbatim: glossary terms and do-not-translate spans.
   * A segment with constraints is searched by lexically constrained beam search (search/constrained-beam.ts); one
   * without is translated exactly as if no constraint were given anywhere.
   */
  constraints?: (SegmentConstraint[] | undefined)[];
}

/** One string a segment's translation must contain, once, whole and not glued to a neighbouring word. */
export interface SegmentConstraint {
  /** The text that must appear (a glossary's target term, or a span kept as it is). */
  target: string;
  /** For a glossary term: the source term as the segment has it (an LLM translator's prompt may name the pair). */
  source?: string;
  /**
   * For a span kept as it is: where it is in the segment (UTF-16 offsets). When the target vocabulary cannot spell
   * it, the engine shows the model a placeholder word there instead (search/phrases.ts).
   */
  keep?: { start: number; end: number };
}

export interface EngineResult {
  /** One translation per input segment, same order. */
  translations: string[];
  /** With options.alternatives: per segment, up to N other distinct hypotheses. */
  alternatives?: string[][];
  /** Model names used, in order (`["tiny-marian-de-en", "tiny-marian-en-de"]` for a pivot). */
  route: string[];
}

export interface Engine {
  /** Translate already-segmented sentences. Throws NoRoute (errors.ts) when no route exists. */
  translate(segments: string[], source: string, target: string, options?: TranslateOptions): Promise<EngineResult>;
  /** The models that would serve source→target (as `choice` asks), or undefined when no route exists. */
  route(source: string, target: string, choice?: ModelChoice): string[] | undefined;
  /** FLORES codes that some route can translate from / into. */
  sourceLanguages(): string[];
  targetLanguages(source?: string): string[];
  /** Every folder installed now (DRAGOMAN_MODELS_DIR is watched while serving), loaded or not. */
  models(): ModelInfo[];
  /** Workers alive / configured, queue depth (all, and per priority): for /ready and /metrics. */
  stats(): { workers: number; workersAlive: number; queueDepth: number; queued: Record<Priority, number>; workerRestarts: number };
  close(): Promise<void>;
}
