// An LLM translator's prompt as its dragoman.json declares it (docs/models.md, "dragoman.json"): a template, or a
// structured content part for chat templates that build the instruction themselves (TranslateGemma); the languages'
// names and codes; rules choosing another prompt for some pairs (Hy-MT's Chinese prompt for pairs with Chinese); and
// extra chat-template variables (Qwen3's enable_thinking); and the wording of what a request may add (context,
// instructions, a register, a segment's glossary terms, a segment's translation memory matches as examples), each
// only when declared. What one segment's user message is
// comes from here.
import { resolveLanguage } from '../../languages/catalog.ts';
import { PromptPartUnsupported } from '../errors.ts';
import type { Formality, PromptAbilities, PromptAdditions, PromptExample, PromptTerm } from '../types.ts';
import { FolderProblem } from './folder-files.ts';

type Json = Record<string, unknown>;

/** Another prompt for the pairs a rule matches: each given side must match (`either`: the source or the target). */
interface PromptRule {
  source?: ReadonlySet<string>;
  target?: ReadonlySet<string>;
  either?: ReadonlySet<string>;
  template?: string;
  content?: Json;
  names?: Record<string, string>;
}

/** dragoman.json of an LLM translator, checked; languages are FLORES codes. */
export interface TranslatorPrompt {
  /** With `{source_name}`, `{target_name}`, `{source_code}`, `{target_code}` and `{text}`. */
  template?: string;
  /** Instead of a template: the user message's one content part, each string value filled as a template is. */
  content?: Json;
  /** FLORES code -> the name the prompt gives the language. */
  names: Record<string, string>;
  /** FLORES code -> the model's own code (the key of `languages`). */
  codes: Record<string, string>;
  rules: PromptRule[];
  /** Extra variables for the chat template. */
  options: Json;
  /** `contextPrompt`, with `{context}`: how the text around the source is given. */
  contextPrompt?: string;
  /** `instructionsPrompt`, with `{instructions}` (one instruction a line). */
  instructionsPrompt?: string;
  /** `formalityPrompts`: the wording asking for each register. */
  formalityPrompts: Partial<Record<Formality, string>>;
  /** `terminologyPrompt`, with `{terms}`, and `termPrompt`, with `{source_term}` and `{target_term}` (a line per term). */
  terminology?: { prompt: string; term: string };
  /**
   * `examplesPrompt`, with `{examples}`, and `examplePrompt`, with `{source_example}` and `{target_example}` (a line
   * per example): a translation memory's fuzzy matches of the segment.
   */
  examples?: { prompt: string; example: string };
}

/** What one segment's prompt adds: the request's additions, the glossary terms the segment holds and its examples. */
export interface SegmentPrompt extends PromptAdditions {
  terms?: readonly PromptTerm[];
  examples?: readonly PromptExample[];
}

/** The placeholders of a prompt; each is filled once, in one pass, so no filled-in value is read as a placeholder. */
const PLACEHOLDER = /\{(source_name|target_name|source_code|target_code|text|context|examples|terms|instructions|formality)\}/g;
/** A term line's placeholders, filled in one pass as well. */
const TERM_PLACEHOLDER = /\{(source_term|target_term)\}/g;
/** An example line's placeholders, filled in one pass as well. */
const EXAMPLE_PLACEHOLDER = /\{(source_example|target_example)\}/g;

/** Where the additions go in a template that does not place them itself: before it, in this order. */
const ADDITIONS = ['context', 'examples', 'terms', 'instructions', 'formality'] as const;

/** What `prompt`'s dragoman.json declares it takes besides the text. */
export function promptAbilities(prompt: TranslatorPrompt): PromptAbilities {
  return {
    context: prompt.contextPrompt !== undefined,
    instructions: prompt.instructionsPrompt !== undefined,
    formality: (Object.keys(prompt.formalityPrompts) as Formality[]).sort(),
    terminology: prompt.terminology !== undefined,
    examples: prompt.examples !== undefined,
  };
}

/** The user message's content for one segment: a string, or one structured part (the `content` form). */
export type UserContent = string | Json[];

/**
 * The user message that asks `prompt`'s model to translate `text` from `source` into `target` (FLORES codes), with
 * what the request adds in the model's declared wording (`model` names it when it declares none for a part).
 */
export function userContent(
  prompt: TranslatorPrompt, source: string, target: string, text: string, additions: SegmentPrompt = {}, model = '',
): UserContent {
  const rule = prompt.rules.find((r) => (!r.source || r.source.has(source)) && (!r.target || r.target.has(target))
    && (!r.either || r.either.has(source) || r.either.has(target)));
  const names = rule?.names ?? prompt.names;
  const values: Record<string, string> = {
    source_name: names[source] ?? source, target_name: names[target] ?? target,
    source_code: prompt.codes[source] ?? source, target_code: prompt.codes[target] ?? target, text,
  };
  const fill = (s: string) => s.replace(PLACEHOLDER, (_m, key: string) => values[key] ?? '');
  const wording = (part: string, declared: string | undefined, value: Record<string, string>) => {
    if (declared === undefined) throw new PromptPartUnsupported(model, part);
    return declared.replace(PLACEHOLDER, (_m, key: string) => value[key] ?? values[key] ?? '');
  };
  values.context = additions.context ? wording('context', prompt.contextPrompt, { context: additions.context }) : '';
  values.instructions = additions.instructions?.length
    ? wording('instructions', prompt.instructionsPrompt, { instructions: additions.instructions.join('\n') }) : '';
  values.formality = additions.formality ? wording(`formality ${additions.formality}`, prompt.formalityPrompts[additions.formality], {}) : '';
  const lines = additions.terms?.length && prompt.terminology
    ? additions.terms.map((t) => prompt.terminology!.term.replace(TERM_PLACEHOLDER, (_m, key: string) => (key === 'source_term' ? t.source : t.target)))
    : [];
  values.terms = lines.length ? wording('terminology', prompt.terminology?.prompt, { terms: lines.join('\n') }) : '';
  const shown = additions.examples?.length && prompt.examples
    ? additions.examples.map((e) => prompt.examples!.example.replace(EXAMPLE_PLACEHOLDER, (_m, key: string) => (key === 'source_example' ? e.source : e.target)))
    : [];
  values.examples = shown.length ? wording('examples', prompt.examples?.prompt, { examples: shown.join('\n') }) : '';
  // A template that does not place an addition has it before its own words.
  const place = (s: string) => ADDITIONS.filter((a) => values[a] && !s.includes(`{${a}}`)).map((a) => `{${a}}`).join('') + s;
  const template = rule?.template ?? (rule?.content ? undefined : prompt.template);
  if (template !== undefined) return fill(place(template));
  const content = rule?.content ?? prompt.content!;
  return [Object.fromEntries(Object.entries(content).map(([k, v]) => [k, typeof v === 'string' ? fill(v.includes('{text}') ? place(v) : v) : v]))];
}

/** Reads and checks the prompt part of dragoman.json (`file` names it in the problems). */
export function readTranslatorPrompt(file: string, declared: Json): { prompt: TranslatorPrompt; floresOf: Record<string, string> } {
  const { prompt, content, languages, prompts, chatTemplateOptions, contextPrompt, instructionsPrompt, formalityPrompts, terminologyPrompt, termPrompt,
    examplesPrompt, examplePrompt } = declared;
  const problem = (why: string) => new FolderProblem('corrupt', `${file}: ${why}`);
  const checkTemplate = (t: unknown, where: string) => {
    if (t === undefined) return undefined;
    if (typeof t !== 'string' || !t.includes('{text}')) throw problem(`${where} must be a string with {text} in it`);
    return t;
  };
  const checkContent = (c: unknown, where: string) => {
    if (c === undefined) return undefined;
    if (!c || typeof c !== 'object' || Array.isArray(c) || !Object.values(c).some((v) => typeof v === 'string' && v.includes('{text}'))) {
      throw problem(`${where} must be an object with {text} in one of its strings`);
    }
    return c as Json;
  };
  const template = checkTemplate(prompt, '"prompt"');
  const part = checkContent(content, '"content"');
  if (!template && !part) throw problem('"prompt" (or "content") is missing: the template with {text} that asks for a translation');
  if (!languages || typeof languages !== 'object' || Array.isArray(languages) || !Object.keys(languages).length) {
    throw problem('"languages" must map the model\'s language codes to the names its prompt uses');
  }
  const floresOf: Record<string, string> = {};
  const namesOf = (map: Json, where: string) => {
    const names: Record<string, string> = {};
    for (const [code, name] of Object.entries(map)) {
      const flores = resolveLanguage(code)?.flores;
      if (!flores) throw problem(`${where}: language "${code}" is not in the language catalog`);
      if (typeof name !== 'string' || !name.trim()) throw problem(`${where}: language "${code}" needs the name its prompt uses`);
      names[flores] = name;
      floresOf[code] ??= flores;
    }
    return names;
  };
  const names = namesOf(languages as Json, '"languages"');
  const codes = Object.fromEntries(Object.entries(floresOf).map(([code, flores]) => [flores, code]));
  const codeSet = (v: unknown, where: string) => {
    if (v === undefined) return undefined;
    const list = Array.isArray(v) ? v : [v];
    return new Set(list.map((c) => {
      const flores = floresOf[String(c)] ?? resolveLanguage(String(c))?.flores;
      if (!flores) throw problem(`${where}: "${String(c)}" is not a language of "languages"`);
      return flores;
    }));
  };
  if (prompts !== undefined && !Array.isArray(prompts)) throw problem('"prompts" must be a list of rules');
  const rules = ((prompts ?? []) as unknown[]).map((r, i): PromptRule => {
    const where = `"prompts"[${i}]`;
    if (!r || typeof r !== 'object' || Array.isArray(r)) throw problem(`${where} must be an object`);
    const rule = r as Json;
    const t = checkTemplate(rule.prompt, `${where}.prompt`);
    const c = checkContent(rule.content, `${where}.content`);
    if (!t && !c) throw problem(`${where} needs a "prompt" (or "content")`);
    const sides = { source: codeSet(rule.source, `${where}.source`), target: codeSet(rule.target, `${where}.target`), either: codeSet(rule.either, `${where}.either`) };
    const ruleNames = rule.languages === undefined ? undefined
      : typeof rule.languages === 'object' && !Array.isArray(rule.languages) ? namesOf(rule.languages as Json, `${where}.languages`)
        : (() => { throw problem(`${where}.languages must map codes to names`); })();
    return {
      ...(sides.source ? { source: sides.source } : {}), ...(sides.target ? { target: sides.target } : {}), ...(sides.either ? { either: sides.either } : {}),
      ...(t ? { template: t } : {}), ...(c ? { content: c } : {}), ...(ruleNames ? { names: ruleNames } : {}),
    };
  });
  if (chatTemplateOptions !== undefined && (!chatTemplateOptions || typeof chatTemplateOptions !== 'object' || Array.isArray(chatTemplateOptions))) {
    throw problem('"chatTemplateOptions" must be an object of chat template variables');
  }
  const addition = (v: unknown, key: string, placeholder: string) => {
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || !v.includes(placeholder)) throw problem(`"${key}" must be a string with ${placeholder} in it`);
    return v;
  };
  const contextWording = addition(contextPrompt, 'contextPrompt', '{context}');
  const instructionsWording = addition(instructionsPrompt, 'instructionsPrompt', '{instructions}');
  const terminologyWording = addition(terminologyPrompt, 'terminologyPrompt', '{terms}');
  const termWording = addition(termPrompt, 'termPrompt', '{source_term}');
  if (termWording !== undefined && !termWording.includes('{target_term}')) throw problem('"termPrompt" must be a string with {source_term} and {target_term} in it');
  if ((terminologyWording === undefined) !== (termWording === undefined)) {
    throw problem('"terminologyPrompt" (with {terms}) and "termPrompt" (a line per term, with {source_term} and {target_term}) go together');
  }
  const examplesWording = addition(examplesPrompt, 'examplesPrompt', '{examples}');
  const exampleWording = addition(examplePrompt, 'examplePrompt', '{source_example}');
  if (exampleWording !== undefined && !exampleWording.includes('{target_example}')) throw problem('"examplePrompt" must be a string with {source_example} and {target_example} in it');
  if ((examplesWording === undefined) !== (exampleWording === undefined)) {
    throw problem('"examplesPrompt" (with {examples}) and "examplePrompt" (a line per example, with {source_example} and {target_example}) go together');
  }
  if (formalityPrompts !== undefined && (!formalityPrompts || typeof formalityPrompts !== 'object' || Array.isArray(formalityPrompts)
    || !Object.keys(formalityPrompts).length
    || Object.entries(formalityPrompts).some(([k, v]) => (k !== 'more' && k !== 'less') || typeof v !== 'string' || !v.trim()))) {
    throw problem('"formalityPrompts" must map "more" and/or "less" to the words asking for that register');
  }
  return {
    prompt: {
      ...(template ? { template } : {}), ...(part ? { content: part } : {}), names, codes, rules, options: (chatTemplateOptions ?? {}) as Json,
      ...(contextWording ? { contextPrompt: contextWording } : {}), ...(instructionsWording ? { instructionsPrompt: instructionsWording } : {}),
      formalityPrompts: (formalityPrompts ?? {}) as Partial<Record<Formality, string>>,
      ...(terminologyWording && termWording ? { terminology: { prompt: terminologyWording, term: termWording } } : {}),
      ...(examplesWording && exampleWording ? { examples: { prompt: examplesWording, example: exampleWording } } : {}),
    },
    floresOf,
  };
}
