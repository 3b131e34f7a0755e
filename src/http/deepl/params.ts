// /v2/translate's parameters, from a form body (repeated `text` fields), a JSON body or the query string, checked the
// way DeepL checks them. Each one our models cannot honour is answered as DeepL answers a language without it
// (docs/deepl.md lists every decision).
import { invalidRequest } from '../../errors/api-error.ts';
import { DeepLRefusal } from './errors.ts';

export type Fields = Record<string, unknown>;

/** Every field of the request: the query string, then the body's (a body field wins). */
export function requestFields(query: unknown, body: unknown): Fields {
  const q = query && typeof query === 'object' ? (query as Fields) : {};
  if (body === undefined || body === null || body === '') return { ...q };
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object or a form.');
  return { ...q, ...(body as Fields) };
}

/** A list field: repeated form fields, a JSON array, or one comma-separated string (tag lists). */
export function listOf(value: unknown, commaSeparated = false): string[] {
  if (value === undefined || value === null || value === '') return [];
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((v) => {
    if (typeof v !== 'string') throw invalidRequest('Lists must hold strings.');
    return commaSeparated ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v];
  });
}

/** One value of a field that must not repeat. */
export function single(fields: Fields, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) {
    if (v.length === 1 && typeof v[0] === 'string') return v[0];
    throw invalidRequest(`Parameter '${name}' given more than once.`);
  }
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw invalidRequest(`Value for '${name}' not supported.`);
  return v;
}

export function oneOf<T extends string>(fields: Fields, name: string, allowed: readonly T[]): T | undefined {
  const v = single(fields, name);
  if (v === undefined || v === '') return undefined;
  const lower = v.toLowerCase() as T;
  if (!allowed.includes(lower)) throw invalidRequest(`Value for '${name}' not supported.`);
  return lower;
}

/** DeepL's booleans: 0/1 (and true/false from JSON). */
export function flag(fields: Fields, name: string): boolean | undefined {
  const v = oneOf(fields, name, ['0', '1', 'true', 'false'] as const);
  return v === undefined ? undefined : v === '1' || v === 'true';
}

/**
 * `formality`: a register for an LLM translator whose dragoman.json words it. "more"/"less" are refused where the
 * pair's model has no wording, as DeepL refuses them for a language without formality; the "prefer_" forms fall
 * back to the default there, as DeepL's do.
 */
export function formalityOf(fields: Fields): { level: 'more' | 'less'; required: boolean } | undefined {
  const formality = oneOf(fields, 'formality', ['default', 'more', 'less', 'prefer_more', 'prefer_less'] as const);
  if (!formality || formality === 'default') return undefined;
  return formality.startsWith('prefer_')
    ? { level: formality.slice('prefer_'.length) as 'more' | 'less', required: false }
    : { level: formality as 'more' | 'less', required: true };
}

/** `custom_instructions`: up to 10 strings of up to 300 characters each, as DeepL takes them. */
export function instructionsOf(fields: Fields, most: number, longest: number): string[] {
  const list = listOf(fields.custom_instructions);
  if (list.length > most || list.some((i) => [...i].length > longest)) {
    throw new DeepLRefusal("Value for 'custom_instructions' not supported.", `At most ${most} instructions of at most ${longest} characters each.`);
  }
  return list.filter((i) => i.trim());
}

/** `glossary_id` (or deepl-node's `glossary_ids`): at most one here, and only with a source_lang, as DeepL requires. */
export function glossaryIdOf(fields: Fields, hasSource: boolean): string | undefined {
  const ids = [...listOf(fields.glossary_id), ...listOf(fields.glossary_ids, true)];
  if (ids.length > 1) throw invalidRequest('Only one glossary can be used per request on this server.');
  if (ids.length && !hasSource) throw invalidRequest('Use of a glossary requires the source_lang parameter to be set.');
  return ids[0] || undefined;
}

/**
 * `translation_memory_id` (deepl-node's name; `translation_memory` is read too) and `translation_memory_threshold`
 * (0-100): the key's memory to take exact segments from.
 */
export function memoryOf(fields: Fields, owner: string): { owner: string; id: string; threshold?: number } | undefined {
  const id = single(fields, 'translation_memory_id') ?? single(fields, 'translation_memory');
  const raw = single(fields, 'translation_memory_threshold');
  if (!id) {
    if (raw !== undefined && raw !== '') throw invalidRequest("'translation_memory_threshold' requires 'translation_memory_id'.");
    return undefined;
  }
  if (raw === undefined || raw === '') return { owner, id };
  const threshold = Number(raw);
  if (!Number.isInteger(threshold) || threshold < 0 || threshold > 100) throw invalidRequest("Value for 'translation_memory_threshold' not supported: an integer from 0 to 100.");
  return { owner, id, threshold };
}
