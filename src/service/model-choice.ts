// Which model a request asked for, and what it adds to an LLM translator's prompt (docs/models.md#quality-or-speed):
// checked before any work, each refusal saying why. A part the route's model has no wording for is refused unless
// the request made it optional; then it is left out and reported, never dropped unseen.
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import type { ModelChoice, ModelInfo, PromptAdditions } from '../engine/types.ts';
import type { Language } from '../languages/types.ts';
import { codePoints } from './validate.ts';
import type { PromptPart, ServiceDeps, TranslateOptions } from './types.ts';

/** Longest `context` (code points): it is read by the model, so it is bounded though never charged. */
export const MAX_CONTEXT_CHARS = 2_000;
/** Instructions per request and characters per instruction (DeepL's custom_instructions limits). */
export const MAX_INSTRUCTIONS = 10;
export const MAX_INSTRUCTION_CHARS = 300;

/** A choice the installed models cannot honour; `option` says which one, so a surface can answer in its own words. */
export class UnsupportedChoice extends ApiError {
  constructor(readonly option: 'model' | PromptPart, message: string) {
    super(400, 'invalid_request', message);
    this.name = 'UnsupportedChoice';
  }
}

/**
 * The `model` field of /v1 (JSON and the documents' form), LibreTranslate and Google v2: "quality", "speed" or an
 * installed model's name. Both kinds are strict there: a pair without that kind is a 400 saying so, never another
 * kind of model in its place.
 */
export function modelChoiceOf(value: unknown): ModelChoice | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest("'model' must be a string: \"quality\", \"speed\" or an installed model's name.");
  if (value === 'quality' || value === 'speed') return { kind: value, strict: true };
  return { name: value };
}

const choiceWords = (choice: ModelChoice) => ('name' in choice ? `'${choice.name}'` : `"${choice.kind}"`);

/** The request's model and prompt additions, checked before anything is charged. */
export function checkChoice(deps: ServiceDeps, options: TranslateOptions): void {
  const { model, prompt } = options;
  if (model && 'name' in model) {
    const installed = deps.engine.models().filter((m) => m.status === 'ok').map((m) => m.name).sort();
    if (!installed.includes(model.name)) {
      throw invalidRequest(`Unknown model '${model.name}': 'model' is "quality", "speed" or an installed model (${installed.join(', ') || 'none installed'}).`);
    }
  }
  if (prompt?.context !== undefined && codePoints(prompt.context) > MAX_CONTEXT_CHARS) {
    throw invalidRequest(`'context' has ${codePoints(prompt.context)} characters; at most ${MAX_CONTEXT_CHARS} are read.`);
  }
  const instructions = prompt?.instructions ?? [];
  if (instructions.length > MAX_INSTRUCTIONS) throw invalidRequest(`${instructions.length} instructions given; at most ${MAX_INSTRUCTIONS} are read.`);
  const long = instructions.findIndex((i) => codePoints(i) > MAX_INSTRUCTION_CHARS);
  if (long >= 0) throw invalidRequest(`Instruction ${long} has ${codePoints(instructions[long]!)} characters; each may have at most ${MAX_INSTRUCTION_CHARS}.`);
}

/** One (source, target) group's route as the request chose it, and what its models take of the prompt additions. */
export interface ChosenRoute {
  route: string[];
  prompt: PromptAdditions;
  unused: PromptPart[];
  languageModel: boolean;
}

/**
 * The route for source -> target as `options` choose it; undefined when no model translates the pair at all (the
 * caller's no-route message). Throws UnsupportedChoice when the pair has a route but not the one asked for, or when
 * its model takes no wording for a part that is not optional.
 */
export function chooseRoute(deps: ServiceDeps, source: Language, target: Language, options: TranslateOptions): ChosenRoute | undefined {
  const { model: choice } = options;
  const route = deps.engine.route(source.flores, target.flores, choice);
  const pair = `${source.name} ('${source.code}') into ${target.name} ('${target.code}')`;
  if (!route) {
    if (!choice || !deps.engine.route(source.flores, target.flores)) return undefined;
    const which = 'name' in choice ? `model ${choiceWords(choice)} does not translate ${pair}`
      : choice.kind === 'quality' ? `no LLM translator installed translates ${pair}` : `no encoder-decoder model installed translates ${pair}`;
    throw new UnsupportedChoice('model', `${which[0]!.toUpperCase()}${which.slice(1)}: the request's choice of model (${choiceWords(choice)}) ` +
      'cannot be honoured. Leave it out for the usual route (docs/models.md#quality-or-speed).');
  }
  const info = new Map(deps.engine.models().map((m) => [m.name, m]));
  const first = info.get(route[0] ?? '');
  const last = info.get(route[route.length - 1] ?? '');
  const ask = options.prompt ?? {};
  const optional = new Set(ask.optional ?? []);
  const prompt: PromptAdditions = {};
  const unused: PromptPart[] = [];
  const take = (part: PromptPart, model: ModelInfo | undefined, takes: boolean, add: () => void) => {
    if (takes || !route.length) {
      if (route.length) add();
      return;
    }
    if (optional.has(part)) {
      unused.push(part);
      return;
    }
    const name = model?.name ?? route.join('>');
    const why = !model?.prompt ? `is not an LLM translator: it reads no prompt` : `declares no wording for it in its dragoman.json`;
    throw new UnsupportedChoice(part, `Model '${name}', which translates ${pair}, takes no ${part === 'formality' ? `formality '${ask.formality}'` : part}: ` +
      `it ${why} (docs/models.md#the-prompt-dragomanjson). Leave '${part}' out, or choose a model that takes it.`);
  };
  if (ask.context) take('context', first, !!first?.prompt?.context, () => (prompt.context = ask.context));
  if (ask.instructions?.length) take('instructions', last, !!last?.prompt?.instructions, () => (prompt.instructions = ask.instructions));
  if (ask.formality) take('formality', last, !!last?.prompt?.formality.includes(ask.formality), () => (prompt.formality = ask.formality));
  return { route, prompt, unused, languageModel: route.some((n) => !!info.get(n)?.prompt) };
}
