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

/** A request adds to the prompt (context, instructions, a register) what a model's dragoman.json declares no wording for. */
export class PromptPartUnsupported extends EngineError {
  constructor(readonly model: string, readonly part: string) {
    super(`Model ${model} takes no ${part} in its prompt: its dragoman.json declares no wording for it.`);
    this.name = 'PromptPartUnsupported';
  }
}

/** What a request adds to the prompt (context, instructions, a register) takes more tokens than it may. */
export class PromptTooLong extends EngineError {
  constructor(readonly model: string, readonly tokens: number, readonly limit: number) {
    super(
      `The context, instructions and formality take ${tokens} tokens in the prompt of model ${model}, more than the ` +
        `${limit} they may (half of what the model reads at once): shorten the context or the instructions.`,
    );
    this.name = 'PromptTooLong';
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

/**
 * A model that does not fit DRAGOMAN_MODEL_MEMORY even with every other model unloaded. The operator's setting, not
 * the request, is at fault: retrying does not help until the budget is raised or the model removed.
 */
export class ModelTooLarge extends EngineError {
  /** `room`: what the budget leaves beside the models DRAGOMAN_PRELOAD keeps loaded (the whole budget without them). */
  constructor(readonly model: string, readonly bytes: number, readonly budget: number, readonly room = budget) {
    super(
      `Model ${model} needs about ${mib(bytes)} MiB of memory, more than DRAGOMAN_MODEL_MEMORY allows for all models ` +
        `together (${mib(budget)} MiB${room < budget ? `, of which the models DRAGOMAN_PRELOAD keeps loaded leave ${mib(room)} MiB` : ''}): ` +
        'the operator must raise the setting or remove the model.',
    );
    this.name = 'ModelTooLarge';
  }
}

/** Why a model of the route cannot serve right now; each is safe to retry (the routes may have changed meanwhile). */
export type ModelUnavailableReason = 'removed' | 'loadFailed';

/** A model was removed from DRAGOMAN_MODELS_DIR while the request waited for it, or it failed to load. */
export class ModelUnavailable extends EngineError {
  constructor(readonly model: string, readonly reason: ModelUnavailableReason, detail?: string) {
    super(reason === 'removed'
      ? `Model ${model} was removed from this server while the request waited for it.`
      : `Model ${model} could not be loaded${detail ? ` (${detail})` : ''}.`);
    this.name = 'ModelUnavailable';
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
