// An LLM translator's prompt as its dragoman.json declares it (docs/models.md, "dragoman.json"): a template, or a
// structured content part for chat templates that build the instruction themselves (TranslateGemma); the languages'
// names and codes; rules choosing another prompt for some pairs (Hy-MT's Chinese prompt for pairs with Chinese); and
// extra chat-template variables (Qwen3's enable_thinking). What one segment's user message is comes from here.
import { resolveLanguage } from '../../languages/catalog.ts';
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
}

/** The user message's content for one segment: a string, or one structured part (the `content` form). */
export type UserContent = string | Json[];

/** The user message that asks `prompt`'s model to translate `text` from `source` into `target` (FLORES codes). */
export function userContent(prompt: TranslatorPrompt, source: string, target: string, text: string): UserContent {
  const rule = prompt.rules.find((r) => (!r.source || r.source.has(source)) && (!r.target || r.target.has(target))
    && (!r.either || r.either.has(source) || r.either.has(target)));
  const names = rule?.names ?? prompt.names;
  const fill = (s: string) => s.replaceAll('{source_name}', names[source] ?? source).replaceAll('{target_name}', names[target] ?? target)
    .replaceAll('{source_code}', prompt.codes[source] ?? source).replaceAll('{target_code}', prompt.codes[target] ?? target)
    .replaceAll('{text}', text);
  const template = rule?.template ?? (rule?.content ? undefined : prompt.template);
  if (template !== undefined) return fill(template);
  const content = rule?.content ?? prompt.content!;
  return [Object.fromEntries(Object.entries(content).map(([k, v]) => [k, typeof v === 'string' ? fill(v) : v]))];
}

/** Reads and checks the prompt part of dragoman.json (`file` names it in the problems). */
export function readTranslatorPrompt(file: string, declared: Json): { prompt: TranslatorPrompt; floresOf: Record<string, string> } {
  const { prompt, content, languages, prompts, chatTemplateOptions } = declared;
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
  return {
    prompt: { ...(template ? { template } : {}), ...(part ? { content: part } : {}), names, codes, rules, options: (chatTemplateOptions ?? {}) as Json },
    floresOf,
  };
}
