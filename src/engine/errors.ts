// What the engine refuses or fails with, in its own words. src/http maps each to a status code, body and headers
// per surface; the engine knows nothing of HTTP or of accounts.

export class EngineError extends Error {}

/** No installed model (nor a pivot through English) translates `source` into `target`. */
export class NoRoute extends EngineError {
  constructor(readonly source: string, readonly target: string) {
    super(`No installed model translates ${source} into ${target}.`);
    this.name = 'NoRoute';
  }
}

/** A model of the route has no token for a language the request names (NLLB, multilingual Marian). */
export class NoLanguageToken extends EngineError {
  constructor(readonly model: string, readonly language: string) {
    super(`Model ${model} has no token for language ${language}.`);
    this.name = 'NoLanguageToken';
  }
}

/**
 * A sentence holds more glossary terms than the model can write in one output: the terms' own tokens (and the end of
 * the sentence) do not fit in the model's longest output. The request's fault, refused before any decoding.
 */
export class TooManyTerms extends EngineError {
  constructor(readonly terms: number, readonly tokens: number, readonly limit: number) {
    super(
      `A sentence holds ${terms} glossary terms whose translations take ${tokens} tokens, more than the model can write ` +
        `in one sentence (${limit} tokens): split the sentence or use fewer of the glossary's terms in it.`,
    );
    this.name = 'TooManyTerms';
  }
}

/** Why the engine cannot take work right now; each is safe to retry later. */
export type UnavailableReason = 'shuttingDown' | 'modelsUnloadable' | 'noWorker' | 'clientGone';

const UNAVAILABLE: Record<UnavailableReason, string> = {
  shuttingDown: 'The translation engine is shutting down.',
  modelsUnloadable: 'The translation engine cannot load its models right now (the operator is told in the log).',
  noWorker: 'No translation worker is available.',
  clientGone: 'The client closed the connection: its sentences still waiting were dropped.',
};

export class EngineUnavailable extends EngineError {
  constructor(readonly reason: UnavailableReason) {
    super(UNAVAILABLE[reason]);
    this.name = 'EngineUnavailable';
  }
}

/** The worker thread running the job stopped unexpectedly; it has been replaced, and a retry is safe. */
export class WorkerDied extends EngineError {
  constructor() {
    super('The translation worker stopped unexpectedly while handling this request; it has been replaced.');
    this.name = 'WorkerDied';
  }
}
