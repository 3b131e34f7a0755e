// A piece of user text cut into segments for the engine, and the way to put the translations back.
// Plain text and HTML both produce plans, so the service can send every segment of a request as one batch.
export interface TranslationPlan {
  /** Sentences to translate, in order (may be empty: whitespace-only text, or markup with no text). */
  segments: string[];
  /** Rebuild the output from one translation per segment (same order as `segments`). */
  assemble(translations: string[]): string;
}

/** A plan whose assembly runs elsewhere (a worker thread: text/offload), so it is awaited. */
export interface DeferredPlan {
  segments: string[];
  assemble(translations: string[]): Promise<string>;
}
