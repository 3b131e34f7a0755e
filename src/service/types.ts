// Shapes of the service layer: what a wire format passes in and gets back. Language codes in results are the
// catalog's public codes (src/languages); a surface with other codes (Google, LibreTranslate) maps them.
import type { CheckFailure } from './output-check.ts';
import type { Config } from '../config/env.ts';
import type { Detection, LanguageDetector } from '../detect/types.ts';
import type { Engine, ModelChoice, Priority, PromptAdditions } from '../engine/types.ts';
import type { Language } from '../languages/types.ts';
import type { DeferredPlan, TranslationPlan } from '../text/types.ts';
import type { GlossaryBook } from '../glossaries/book.ts';
import type { MemoryBook } from '../memories/book.ts';

export type Format = 'text' | 'html';

/** A plan made here, or one whose planning and assembly run on a worker thread (long texts). */
export type AnyPlan = TranslationPlan | DeferredPlan;

export interface Planners {
  text(text: string): AnyPlan | Promise<AnyPlan>;
  html(html: string, options?: { ignoreTags?: readonly string[] }): AnyPlan | Promise<AnyPlan>;
}

export interface ServiceDeps {
  config: Pick<Config, 'maxStrings' | 'maxChars'>;
  engine: Engine;
  detector: LanguageDetector;
  planners: Planners;
  /** Glossaries (src/glossaries); without them a request naming one is refused. */
  glossaries?: GlossaryBook;
  /** Translation memories (src/memories); without them a request naming one is refused. */
  memories?: MemoryBook;
  /** Milliseconds since the epoch (the accounts' clock): the quota period memory characters are counted in. */
  now?: () => number;
  /** Keep placeholders, URLs and e-mail addresses of plain text verbatim (DRAGOMAN_KEEP_SPANS, default on). */
  keepSpans?: boolean;
  /** A request of more characters is bulk work for the engine (DRAGOMAN_BULK_CHARACTERS); absent: none is. */
  bulkCharacters?: number;
  /** An LLM translator's answers are checked to be translations (DRAGOMAN_OUTPUT_CHECK, default on): output-check.ts. */
  outputCheck?: boolean;
}

/** Fields as the client sent them (unknown: validation is the service's job). */
export interface TranslateInput {
  q: unknown;
  target: unknown;
  source?: unknown;
  format?: unknown;
  /** What the surface calls the strings, for its messages (DeepL: text); 'q' when not given. */
  stringsField?: string;
}

/** What a request may add to an LLM translator's prompt. */
export type PromptPart = 'context' | 'instructions' | 'formality';

export interface TranslateOptions {
  /** Which model translates: a kind, or one model by name (docs/models.md#quality-or-speed); absent: the usual order. */
  model?: ModelChoice;
  /**
   * Context, instructions and a register for an LLM translator's prompt. A part the route's model declares no wording
   * for is refused (UnsupportedChoice), unless `optional` lists it: then it is left out and reported in
   * TranslateResult.unused (DeepL's prefer_* formality, and its context, which DeepL never refuses).
   */
  prompt?: PromptAdditions & { optional?: readonly PromptPart[] };
  /**
   * Who waits for it: bulk for documents; absent, a request of more than ServiceDeps.bulkCharacters characters is
   * bulk and any other interactive (the engine serves interactive work first).
   */
  priority?: Priority;
  /** n-best: up to this many other translations per string (LibreTranslate `alternatives`). */
  alternatives?: number;
  /** A glossary of the calling key: its terms come out as its target terms (src/service/constraints.ts). */
  glossary?: { owner: string; id: string };
  /**
   * How the glossary's terms reach an LLM translator that declares a terminology wording: prompt and constrained
   * decoding (default), or one of them. No surface sets it; `npm run bench:glossary` compares the three.
   */
  terms?: 'both' | 'prompt' | 'decoding';
  /**
   * The strings are a document's units in order (docs/documents.md#earlier-lines-as-context): each segment reads the
   * segments before it (`before`'s, then this call's) as context, the latest whole ones within `chars` code points,
   * when the route's first model declares a context wording. Never charged; other models translate as without it.
   */
  documentContext?: { chars: number; before?: readonly string[] };
  /**
   * A translation memory of the calling key: exact segments come from it, fuzzy matches are reported (with `matches`)
   * and read as examples by an LLM translator that declares a wording for them.
   */
  memory?: MemoryUse;
  /** Overrides ServiceDeps.keepSpans for this request. */
  keepSpans?: boolean;
  /**
   * How text is cut for the engine: into sentences (default), not at all ('whole': DeepL's split_sentences=0), or
   * into sentences with line breaks read as spaces ('nonewlines').
   */
  sentences?: 'split' | 'whole' | 'nonewlines';
  /** format=html: elements kept as they are, like translate="no" (DeepL's ignore_tags). */
  ignoreTags?: readonly string[];
}

export interface MemoryUse {
  owner: string;
  id: string;
  /** Least similarity (0–100) of a fuzzy match reported or read as an example; default 75. */
  threshold?: number;
  /** Look up fuzzy matches of the segments without an exact one (reported in TranslationItem.memory). */
  matches?: boolean;
  /** Add the machine translations of this request to the memory as unreviewed segments. */
  update?: boolean;
  /**
   * false: the characters served from the memory are not recorded by this call (a document job records its total
   * once, when it is done, so a batch run again after a restart is not counted twice).
   */
  countServed?: boolean;
}

/** Where a sentence's translation came from: a reviewed or a learned exact segment of the memory, or the model. */
export type SentenceOrigin = 'reviewed' | 'learned' | 'machine';

/** A stored segment reported for a sentence of a string (similarity 100: the exact one used). */
export interface ReportedMatch {
  /** The index of that sentence among the string's sentences. */
  sentence: number;
  /** The sentence of the string it was found for. */
  segment: string;
  source: string;
  target: string;
  similarity: number;
}

/** What a memory did for one string. */
export interface MemoryOutcome {
  /** Sentences of the string, and those whose translation is the memory's stored one. */
  segments: number;
  exact: number;
  /** Characters (code points) of the sentences served from the memory. */
  chars: number;
  matches: ReportedMatch[];
  /** Per sentence of the string, in order: where its translation came from. */
  origins: SentenceOrigin[];
}

/** A validated translate request; `chars` is what the quota is charged. */
export interface TranslateRequest {
  strings: string[];
  /** Whether q was a single string (some wire formats answer differently). */
  single: boolean;
  target: Language;
  source: Language | undefined;
  format: Format;
  chars: number;
  options: TranslateOptions;
  /**
   * Plans already made for `strings` (same order, by the same planner and options): used instead of planning them
   * again. A document is planned once when it is accepted (its characters are counted from the plans).
   */
  plans?: readonly AnyPlan[];
}

export interface TranslationItem {
  translatedText: string;
  /** Public code; present exactly when the request had no source. `und` when nothing could be detected. */
  detectedSourceLanguage?: string;
  /** The detection behind detectedSourceLanguage (confidence, reliability) for surfaces that show it. */
  detection?: Detection;
  input: string;
  alternatives?: string[];
  /** Present when the request used a memory and this string's source is the memory's source language. */
  memory?: MemoryOutcome;
  /** Present when an LLM translator answered some of this string's segments: how its answers fared (output-check.ts). */
  check?: AnswerCheck & { reasons: CheckFailure[] };
}

/** Segments an LLM translator answered that were judged, those answered again by the pair's NMT model, those that failed with none. */
export interface AnswerCheck {
  judged: number;
  replaced: number;
  failed: number;
}

export interface TranslateResult {
  translations: TranslationItem[];
  /** Model routes used, e.g. ["tiny-marian-en-de"] or ["a", "b"] for a pivot; one per distinct group. */
  routes: string[][];
  /** Characters served from the memory (exact segments), over all strings. */
  memoryChars: number;
  /** An LLM translator translated some string (DeepL's model_type_used). */
  languageModel: boolean;
  /** Parts of `prompt.optional` that a model of the route took no wording for, so they were left out. */
  unused: PromptPart[];
  /** The strings' checks summed, when an LLM translator answered some segment. */
  check?: AnswerCheck;
}

export interface DetectInput {
  q: unknown;
}

export interface DetectRequest {
  strings: string[];
  single: boolean;
  chars: number;
}

export interface DetectionItem {
  language: string;
  confidence: number;
  isReliable: boolean;
  input: string;
  candidates: { language: string; confidence: number }[];
}

export interface LanguageEntry {
  language: string;
  name: string;
  /** FLORES-200 code, for surfaces that need the catalog identity. */
  flores: string;
}
