// Every DRAGOMAN_* setting is read here and only here, so the documentation of the settings has one source.
// Modules receive a typed Config; tests pass their own env object instead of mutating process.env.
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';

/** auto: each model runs the smallest files it has (int4, else int8, else fp32). */
export type Precision = 'auto' | 'int4' | 'int8' | 'fp32';
export type Spinning = 'off' | 'run' | 'on' | 'auto';
export type OnOff = boolean;

export interface Config {
  host: string;
  port: number;
  /** HTTPS: paths of the PEM certificate (chain) and private key; both or neither (undefined = plain HTTP). */
  tls: { certFile: string; keyFile: string } | undefined;
  dataDir: string;
  modelsDir: string;
  /** Where the prepared decoder graphs are kept (runtime/prepare.ts); content-keyed, so folders may share it. */
  graphCacheDir: string;
  /** auto: serve the repository's small test models, labelled as a demo, when modelsDir holds no model (src/models/demo.ts). */
  demoModels: 'auto' | 'off';
  /**
   * Preferred weights: int4 the *_q4 / int4 files, int8 the *_quantized.onnx ones, fp32 the full ones, each where the
   * folder has them (else the next larger); auto the smallest a folder has.
   */
  precision: Precision;
  /** Beam size override; undefined = the model's generation_config.json num_beams (1 when absent). */
  beam: number | undefined;
  /** Worker threads of the engine pool; 0 = chosen from the cores available. */
  workers: number;
  /**
   * DRAGOMAN_MODEL_MEMORY: bytes the loaded models may take in this process, every worker's copy counted; past it the
   * least recently used are unloaded (engine/translate/resident-models.ts). undefined = no limit: every model loaded.
   */
  modelMemory: number | undefined;
  /** DRAGOMAN_PRELOAD: models loaded at start and never unloaded; undefined = the models that fit (most recently used first), none kept. */
  preload: string[] | undefined;
  /** onnxruntime intra-op threads per worker; 0 = chosen from cores / workers. */
  intraOpThreads: number;
  /**
   * onnxruntime threads spinning while they wait: off, run (between the operators of one run only), on (also between
   * runs), auto (run while no other process uses the cores, else off: engine/contention.ts).
   */
  spinning: Spinning;
  /** Graph rewrites of the decoder left out (names of GRAPH_PASSES; docs/tuning.md): none by default. */
  skipPasses: string[];
  /**
   * DRAGOMAN_VOCABULARY: target (a model whose vocabulary covers many scripts, NLLB-200 and M2M-100, computes its
   * output layer over the target language's pieces and the source's own: engine/model/output-vocabulary.ts) or full.
   */
  vocabulary: 'full' | 'target';
  /**
   * Let onnxruntime run int8 products on Intel AMX where the CPU has it (off: the process refuses itself AMX before
   * the first session, engine/amx.ts; onnxruntime then uses AVX512-VNNI).
   */
  amx: boolean;
  /** Upper bound on source tokens (padded rows x longest row) in one batch. */
  batchTokens: number;
  /** How long the batcher waits for more sentences before running a partial batch. */
  batchWaitMs: number;
  /**
   * priority: interactive requests go before bulk work (documents, large requests) and take the worker from a running
   * bulk batch between its decoder steps; fifo: first come, first served, a batch runs to its end (engine/pool/turns.ts).
   */
  scheduling: 'priority' | 'fifo';
  /** Least share (percent) of a worker's time bulk work gets while interactive work waits too. */
  bulkShare: number;
  /** A request of more characters than this is bulk work, like a document. */
  bulkCharacters: number;
  /** Longest a bulk batch runs on a worker before it checks whether interactive work waits, in ms. */
  yieldMs: number;
  /** Worker time an interactive batch runs as interactive; past it, it takes turns as bulk work does, in ms. */
  interactiveBudgetMs: number;
  /** Entries of the translation LRU cache (0 disables it). */
  cacheSize: number;
  /** Limits of one request. */
  maxStrings: number;
  maxChars: number;
  maxBodyBytes: number;
  /** Which per-plan requests-per-minute figures are the defaults: A (10/60/300) or B (100/300/1000). */
  ratePreset: 'A' | 'B';
  signup: OnOff;
  /** Requests per rolling minute per client address to the endpoints that need no key; null = no limit. */
  keylessPerMinute: number | null;
  googleCompat: OnOff;
  googleKeyInQuery: OnOff;
  libreTranslateCompat: OnOff;
  /** DeepL's v2 API at its own paths (/v2/translate, /v2/glossaries, ...): src/http/deepl. */
  deeplCompat: OnOff;
  /** Placeholders, URLs and e-mail addresses in plain text are kept verbatim by the decoder (src/text/kept-spans.ts). */
  keepSpans: OnOff;
  /** An LLM translator's answers are checked to be translations, and answered again by the pair's NMT model when not. */
  outputCheck: OnOff;
  /** Glossary limits: entries per glossary (all its language pairs), characters per term, glossaries per key. */
  glossaryMaxEntries: number;
  glossaryMaxTermChars: number;
  glossariesPerKey: number;
  /**
   * Translation memory limits (src/memories): memories per key, segments per memory, characters per segment, bytes
   * per imported file.
   */
  memoriesPerKey: number;
  memoryMaxSegments: number;
  memoryMaxSegmentChars: number;
  memoryMaxFileBytes: number;
  /** Whether characters served from a translation memory count against a key's quota, per plan (DeepL charges them). */
  memoryCharged: PlanFlags;
  ui: OnOff;
  /**
   * The id (`k_…`) of the key the web page's requests without a key are metered against (plan, quota, rate limit);
   * undefined = the page needs a key like any client (http/page-key.ts says which requests count as the page's).
   */
  uiKey: string | undefined;
  /** Consult fastText lid.176 on short text (src/detect/second-opinion.ts). */
  detectSecondOpinion: OnOff;
  /** /metrics is served only when set, to `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** /admin (API and page) exists only when set, to `Authorization: Bearer <token>`; undefined = no admin surface. */
  adminToken: string | undefined;
  /**
   * Which peers may state the client's address in X-Forwarded-For (Fastify's trustProxy): false = none (the
   * TCP peer is the client), true = any, n = the last n hops, or addresses / CIDRs / proxy-addr's names.
   */
  trustProxy: boolean | number | string[];
  logLevel: string;
  shutdownTimeoutMs: number;
  /** postgres://... selects the PostgreSQL account store instead of SQLite. */
  databaseUrl: string | undefined;
  /** Documents (src/documents): how long a job and its files are kept after it was accepted. */
  documentTtlMs: number;
  /** Largest document file accepted, in bytes. */
  maxDocumentBytes: number;
  /** Most characters (code points of text sent to translation) in one document. */
  maxDocumentChars: number;
  /** Most bytes of all entries of a zip-based document together, uncompressed. */
  maxDocumentUncompressedBytes: number;
  /** Most entries in a zip-based document. */
  maxZipEntries: number;
  /** Most uncompressed/compressed ratio of one zip entry, and of all entries together (a zip bomb's is in the thousands). */
  maxCompressionRatio: number;
  /** Most units (paragraphs, cells, cues, strings) in one document. */
  maxDocumentUnits: number;
  /**
   * Characters of a document's earlier sentences an LLM translator that takes context reads before each sentence
   * (0: none); within the engine's prompt bound.
   */
  documentContextChars: number;
  /** Threads that open, plan and write documents, away from the event loop. */
  documentWorkers: number;
  /** Heap limit of each document thread, in MB: a document that needs more fails alone. */
  documentWorkerMemoryMb: number;
  /** Longest a document thread may read (or write) one document. */
  documentWorkerTimeoutMs: number;
  /** Most pages of a PDF document. */
  maxPdfPages: number;
  /** Heap cap of the worker thread reading or writing one PDF, in MB. */
  pdfMemoryMb: number;
  /** Longest a PDF may take to read or to write, in ms. */
  pdfTimeoutMs: number;
  /** Bytes of documents (uploads and results) one key may keep, per plan; null = no limit. */
  storageBytes: PlanStorage;
}

/** A figure per plan (the plan names of src/accounts/types.ts). */
export interface PlanStorage {
  free: number | null;
  basic: number | null;
  pro: number | null;
  enterprise: number | null;
}

/**
 * Each plan's storage setting and default. The free plan's holds two of the largest uploads, so a key can keep one
 * upload of DRAGOMAN_MAX_DOCUMENT_BYTES and its result (a job holds room for its result as large as its upload).
 */
const STORAGE_SETTINGS: Record<keyof PlanStorage, [string, number]> = {
  free: ['DRAGOMAN_STORAGE_BYTES_FREE', 100_000_000],
  basic: ['DRAGOMAN_STORAGE_BYTES_BASIC', 1_000_000_000],
  pro: ['DRAGOMAN_STORAGE_BYTES_PRO', 10_000_000_000],
  enterprise: ['DRAGOMAN_STORAGE_BYTES_ENTERPRISE', 100_000_000_000],
};

/** A yes or no per plan (the plan names of src/accounts/types.ts). */
export type PlanFlags = Record<keyof PlanStorage, boolean>;

/** DRAGOMAN_MEMORY_CHARGED for every plan (default on, as DeepL), DRAGOMAN_MEMORY_CHARGED_<PLAN> for one of them. */
function memoryCharged(env: NodeJS.ProcessEnv): PlanFlags {
  const all = onOff(env, 'DRAGOMAN_MEMORY_CHARGED', true);
  return {
    free: onOff(env, 'DRAGOMAN_MEMORY_CHARGED_FREE', all),
    basic: onOff(env, 'DRAGOMAN_MEMORY_CHARGED_BASIC', all),
    pro: onOff(env, 'DRAGOMAN_MEMORY_CHARGED_PRO', all),
    enterprise: onOff(env, 'DRAGOMAN_MEMORY_CHARGED_ENTERPRISE', all),
  };
}

/** The setting a plan's storage limit is read from (named in the refusal). */
export const storageSetting = (plan: keyof PlanStorage): string => STORAGE_SETTINGS[plan][0];

/** DRAGOMAN_STORAGE_BYTES_<PLAN>: bytes, or unlimited. */
function storageBytes(env: NodeJS.ProcessEnv): PlanStorage {
  const out = {} as PlanStorage;
  for (const [plan, [name, fallback]] of Object.entries(STORAGE_SETTINGS) as [keyof PlanStorage, [string, number]][]) {
    out[plan] = /^\s*unlimited\s*$/i.test(env[name] ?? '') ? null : int(env, name, fallback, 0);
  }
  return out;
}

/** A duration setting: seconds, or a number with s, m, h or d. */
function duration(env: NodeJS.ProcessEnv, name: string, fallbackMs: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallbackMs;
  const m = /^(\d+)\s*(s|m|h|d)?$/i.exec(raw);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(m?.[2] ?? 's').toLowerCase() as 's'];
  const ms = m ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(ms) || ms < 1000) {
    throw new ConfigError(`${name} must be a duration of at least 1 second such as 3600, 90m, 24h or 7d, got "${raw}"`);
  }
  return ms;
}

export class ConfigError extends Error {}

/** A memory size: bytes, or a number with K, M, G (powers of 1024, an optional B or iB after); unset or "unlimited" = none. */
function byteSize(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '' || /^unlimited$/i.test(raw)) return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?$/i.exec(raw);
  const n = m ? Math.round(Number(m[1]) * 1024 ** ' kmg'.indexOf((m[2] || ' ').toLowerCase())) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new ConfigError(`${name} must be a memory size such as 4G, 1536M or 800000000 (bytes), or unlimited, got "${raw}"`);
  }
  return n;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Digits only: "1e1" or "0x10" are numbers to JavaScript but not what anyone means in a setting.
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  if (n > max) throw new ConfigError(`${name} must be at most ${max}, got "${raw}"`);
  return n;
}

/** A document's earlier sentences read as context: a paragraph or two by default; at most what a request's `context` may hold. */
export const DEFAULT_DOCUMENT_CONTEXT_CHARS = 500;
export const MAX_DOCUMENT_CONTEXT_CHARS = 2_000;

/** Beams cost memory and time in proportion (each is a row of every decoder step): past this, a request runs for minutes. */
export const MAX_BEAM = 16;

function onOff(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got "${env[name]}"`);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = (allowed as readonly string[]).find((a) => a.toLowerCase() === raw.toLowerCase());
  if (!v) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return v as T;
}

function databaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DRAGOMAN_DATABASE_URL?.trim();
  if (!raw) return undefined;
  // Only PostgreSQL is spoken; another scheme would otherwise surface as "cannot reach the database".
  if (!/^postgres(ql)?:\/\//i.test(raw)) throw new ConfigError(`DRAGOMAN_DATABASE_URL must be a postgres:// or postgresql:// URL, got "${raw.split(':')[0]}://…"`);
  return raw;
}

/**
 * The engine's graph passes, in the order they run: its rewrites, then its search graphs (src/engine/runtime/prepare.ts
 * declares them; a test keeps the two lists equal). DRAGOMAN_SKIP_PASSES names those to leave out, for measurements (docs/tuning.md): `split` runs
 * optimum's merged decoder as it is (and so none of the others), `search-outputs` makes both searches read all
 * logits (and so no Loop), `greedy-loop` one step a run (and so no beam Loop either).
 */
/** The encoder-decoder decoder's cut and passes in their order, then a decoder-only graph's rewrite (graph/last-position.ts). */
export const GRAPH_PASSES = ['split', 'signed-weights', 'attention-fusion', 'output-subset', 'search-outputs', 'greedy-loop', 'beam-loop', 'last-position'] as const;

function skipPasses(env: NodeJS.ProcessEnv): string[] {
  const raw = env.DRAGOMAN_SKIP_PASSES?.trim() ?? '';
  if (raw === '' || /^none$/i.test(raw)) return [];
  const names = raw.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((n) => !(GRAPH_PASSES as readonly string[]).includes(n));
  if (unknown.length) throw new ConfigError(`DRAGOMAN_SKIP_PASSES names passes of ${GRAPH_PASSES.join(', ')}; "${unknown.join(', ')}" is none of them`);
  return names;
}

/**
 * DRAGOMAN_UI_KEY names a key by its public id, never by its secret: the secret would then sit in the environment,
 * in process listings and in compose files. A secret given by mistake is refused before it is used anywhere.
 */
/** The admin token changes keys and plans: a short one is guessable, so it is refused at start. */
function adminToken(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DRAGOMAN_ADMIN_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (raw.trim() !== raw || raw.length < 24) {
    throw new ConfigError('DRAGOMAN_ADMIN_TOKEN must be at least 24 characters without spaces around it (e.g. "openssl rand -hex 24"), or unset for no admin surface');
  }
  return raw;
}

function uiKey(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.DRAGOMAN_UI_KEY?.trim();
  if (!raw || /^(off|false|no)$/i.test(raw)) return undefined;
  if (raw.startsWith('dk_')) {
    throw new ConfigError('DRAGOMAN_UI_KEY takes the id of a key (k_…, see "dragoman keys list"), not its secret (dk_…): never put a secret in the environment');
  }
  if (!/^k_[A-Za-z0-9]{1,64}$/.test(raw)) throw new ConfigError(`DRAGOMAN_UI_KEY must be the id of a key (k_…, see "dragoman keys list"), got "${raw.slice(0, 40)}"`);
  return raw;
}

/** proxy-addr's names for address ranges (what its trust list accepts besides addresses and CIDRs). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string[] {
  const name = 'DRAGOMAN_TRUST_PROXY';
  const raw = env[name]?.trim() ?? '';
  if (raw === '' || /^(off|false|no)$/i.test(raw)) return false;
  if (/^(on|true|yes)$/i.test(raw)) return true;
  if (/^\d+$/.test(raw)) return int(env, name, 0, 0, 64) || false;
  const entries = raw.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    if (PROXY_RANGE_NAMES.includes(entry.toLowerCase())) continue;
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || !bitsOk || extra !== undefined) {
      throw new ConfigError(
        `${name} must be off, on, a number of proxy hops, or a comma-separated list of addresses, CIDRs, ` +
          `loopback, linklocal or uniquelocal; "${entry}" is none of these`,
      );
    }
  }
  return entries.map((e) => (PROXY_RANGE_NAMES.includes(e.toLowerCase()) ? e.toLowerCase() : e));
}

function tls(env: NodeJS.ProcessEnv): Config['tls'] {
  const certFile = env.DRAGOMAN_TLS_CERT?.trim();
  const keyFile = env.DRAGOMAN_TLS_KEY?.trim();
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) {
    throw new ConfigError(`HTTPS needs both DRAGOMAN_TLS_CERT and DRAGOMAN_TLS_KEY (PEM files); only ${certFile ? 'DRAGOMAN_TLS_CERT' : 'DRAGOMAN_TLS_KEY'} is set`);
  }
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const beam = env.DRAGOMAN_BEAM ? int(env, 'DRAGOMAN_BEAM', 1, 1, MAX_BEAM) : undefined;
  const dataDir = resolve(env.DRAGOMAN_DATA_DIR || './data');
  return {
    host: env.DRAGOMAN_HOST || '127.0.0.1',
    port: int(env, 'DRAGOMAN_PORT', 8080, 0, 65535),
    tls: tls(env),
    dataDir,
    modelsDir: resolve(env.DRAGOMAN_MODELS_DIR || './models'),
    graphCacheDir: resolve(env.DRAGOMAN_GRAPH_CACHE_DIR || join(dataDir, 'graphs')),
    demoModels: oneOf(env, 'DRAGOMAN_DEMO_MODELS', ['auto', 'off'] as const, 'auto'),
    precision: oneOf(env, 'DRAGOMAN_PRECISION', ['auto', 'int4', 'int8', 'fp32'] as const, 'auto'),
    beam,
    // Each worker holds a replica of every model: past 64 a start only runs out of memory.
    workers: int(env, 'DRAGOMAN_WORKERS', 0, 0, 64),
    modelMemory: byteSize(env, 'DRAGOMAN_MODEL_MEMORY'),
    preload: env.DRAGOMAN_PRELOAD?.trim() ? env.DRAGOMAN_PRELOAD.split(',').map((n) => n.trim()).filter(Boolean) : undefined,
    intraOpThreads: int(env, 'DRAGOMAN_INTRA_OP_THREADS', 0, 0, 256),
    spinning: oneOf(env, 'DRAGOMAN_SPINNING', ['off', 'run', 'on', 'auto'] as const, 'auto'),
    skipPasses: skipPasses(env),
    vocabulary: oneOf(env, 'DRAGOMAN_VOCABULARY', ['target', 'full'] as const, 'target'),
    amx: onOff(env, 'DRAGOMAN_AMX', false),
    batchTokens: int(env, 'DRAGOMAN_BATCH_TOKENS', 4096, 1),
    // A wait is a timer (at most 2^31 - 1 ms to Node); a batch held longer than a second only adds latency.
    batchWaitMs: int(env, 'DRAGOMAN_BATCH_WAIT_MS', 5, 0, 1000),
    scheduling: oneOf(env, 'DRAGOMAN_SCHEDULING', ['priority', 'fifo'] as const, 'priority'),
    bulkShare: int(env, 'DRAGOMAN_BULK_SHARE', 10, 0, 100),
    bulkCharacters: int(env, 'DRAGOMAN_BULK_CHARACTERS', 2000, 0),
    yieldMs: int(env, 'DRAGOMAN_YIELD_MS', 100, 1, 60_000),
    interactiveBudgetMs: int(env, 'DRAGOMAN_INTERACTIVE_BUDGET_MS', 2000, 1, 3_600_000),
    cacheSize: int(env, 'DRAGOMAN_CACHE_SIZE', 10000),
    maxStrings: int(env, 'DRAGOMAN_MAX_STRINGS', 128, 1),
    maxChars: int(env, 'DRAGOMAN_MAX_CHARS', 100_000, 1),
    maxBodyBytes: int(env, 'DRAGOMAN_MAX_BODY_BYTES', 1_048_576, 1024),
    ratePreset: oneOf(env, 'DRAGOMAN_RATE_PRESET', ['A', 'B'] as const, 'A'),
    signup: onOff(env, 'DRAGOMAN_SIGNUP', true),
    keylessPerMinute: /^\s*unlimited\s*$/i.test(env.DRAGOMAN_KEYLESS_RPM ?? '') ? null : int(env, 'DRAGOMAN_KEYLESS_RPM', 1200, 1),
    googleCompat: onOff(env, 'DRAGOMAN_GOOGLE_COMPAT', true),
    // On: `?key=` is how every Google client sends its key (docs/compatibility.md weighs it).
    googleKeyInQuery: onOff(env, 'DRAGOMAN_GOOGLE_KEY_IN_QUERY', true),
    libreTranslateCompat: onOff(env, 'DRAGOMAN_LIBRETRANSLATE_COMPAT', true),
    deeplCompat: onOff(env, 'DRAGOMAN_DEEPL_COMPAT', true),
    keepSpans: onOff(env, 'DRAGOMAN_KEEP_SPANS', true),
    outputCheck: onOff(env, 'DRAGOMAN_OUTPUT_CHECK', true),
    glossaryMaxEntries: int(env, 'DRAGOMAN_GLOSSARY_MAX_ENTRIES', 10_000, 1),
    glossaryMaxTermChars: int(env, 'DRAGOMAN_GLOSSARY_MAX_TERM_CHARS', 200, 1),
    glossariesPerKey: int(env, 'DRAGOMAN_GLOSSARIES_PER_KEY', 1000, 1),
    memoriesPerKey: int(env, 'DRAGOMAN_MEMORIES_PER_KEY', 100, 1),
    memoryMaxSegments: int(env, 'DRAGOMAN_MEMORY_MAX_SEGMENTS', 2_000_000, 1),
    memoryMaxSegmentChars: int(env, 'DRAGOMAN_MEMORY_MAX_SEGMENT_CHARS', 5000, 1),
    memoryMaxFileBytes: int(env, 'DRAGOMAN_MEMORY_MAX_FILE_BYTES', 1024 * 1024 * 1024, 1),
    memoryCharged: memoryCharged(env),
    ui: onOff(env, 'DRAGOMAN_UI', true),
    uiKey: uiKey(env),
    detectSecondOpinion: onOff(env, 'DRAGOMAN_DETECT_SECOND_OPINION', true),
    metricsToken: env.DRAGOMAN_METRICS_TOKEN || undefined,
    adminToken: adminToken(env),
    // Checked here so a typo is a clear start-up error instead of pino's exception.
    trustProxy: trustProxy(env),
    logLevel: oneOf(env, 'DRAGOMAN_LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    // A timer too: past 2^31 - 1 ms Node fires it at once, the opposite of waiting. An hour is plenty to drain.
    shutdownTimeoutMs: int(env, 'DRAGOMAN_SHUTDOWN_TIMEOUT_MS', 30_000, 0, 3_600_000),
    databaseUrl: databaseUrl(env),
    documentTtlMs: duration(env, 'DRAGOMAN_DOCUMENT_TTL', 24 * 3_600_000),
    maxDocumentBytes: int(env, 'DRAGOMAN_MAX_DOCUMENT_BYTES', 30 * 1024 * 1024, 1),
    maxDocumentChars: int(env, 'DRAGOMAN_MAX_DOCUMENT_CHARS', 1_000_000, 1),
    maxDocumentUncompressedBytes: int(env, 'DRAGOMAN_MAX_DOCUMENT_UNCOMPRESSED_BYTES', 300 * 1024 * 1024, 1),
    maxZipEntries: int(env, 'DRAGOMAN_MAX_ZIP_ENTRIES', 10_000, 1),
    maxCompressionRatio: int(env, 'DRAGOMAN_MAX_COMPRESSION_RATIO', 200, 1),
    maxDocumentUnits: int(env, 'DRAGOMAN_MAX_DOCUMENT_UNITS', 100_000, 1),
    documentContextChars: int(env, 'DRAGOMAN_DOCUMENT_CONTEXT_CHARS', DEFAULT_DOCUMENT_CONTEXT_CHARS, 0, MAX_DOCUMENT_CONTEXT_CHARS),
    documentWorkers: int(env, 'DRAGOMAN_DOCUMENT_WORKERS', 2, 1, 64),
    documentWorkerMemoryMb: int(env, 'DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB', 512, 32, 65_536),
    documentWorkerTimeoutMs: duration(env, 'DRAGOMAN_DOCUMENT_WORKER_TIMEOUT', 60_000),
    maxPdfPages: int(env, 'DRAGOMAN_MAX_PDF_PAGES', 500, 1),
    pdfMemoryMb: int(env, 'DRAGOMAN_PDF_MEMORY_MB', 512, 64),
    pdfTimeoutMs: int(env, 'DRAGOMAN_PDF_TIMEOUT_MS', 120_000, 1000),
    storageBytes: storageBytes(env),
  };
}

/** Where `dragoman models pull` downloads from (the server itself never reads these: it never downloads). */
export interface HubSettings {
  /** HF_ENDPOINT: the hub or a mirror with the same /{repo}/resolve/{revision}/{file} layout. */
  endpoint: string;
  /** HF_TOKEN: for gated or private repositories. */
  token?: string;
}

export function loadHubSettings(env: NodeJS.ProcessEnv = process.env): HubSettings {
  return { endpoint: (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''), token: env.HF_TOKEN || undefined };
}
