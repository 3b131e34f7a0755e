// The glossary operations every surface shares (/v1/glossaries, DeepL's v2 and v3): a key's glossaries made, listed,
// read, replaced and deleted, within the limits, and the term matcher of one for a translation. Another key's
// glossary does not exist for a caller (404, as an unknown id).
import { randomUUID } from 'node:crypto';
import { resolveLanguage } from '../languages/catalog.ts';
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import { TermMatcher } from '../text/terms.ts';
import type { GlossaryStore } from './store.ts';
import type { Dictionary, Glossary, GlossaryLimits } from './types.ts';

export interface NewDictionary {
  source: unknown;
  target: unknown;
  /** Entries already parsed (entries.ts). */
  entries: [string, string][];
}

export const glossaryNotFound = (id: string) => new ApiError(404, 'invalid_request', `Glossary '${id.slice(0, 100)}' not found.`);

/** The 400 for a glossary used on a language pair it holds no dictionary for (public codes). */
export function pairMissing(g: Glossary, source: string, target: string): ApiError {
  const pairs = g.dictionaries.map((x) => `${x.source}→${x.target}`).join(', ');
  return invalidRequest(`Glossary '${g.id}' has no entries for ${source}→${target} (it has ${pairs}).`);
}

export class GlossaryBook {
  private readonly matchers = new WeakMap<Dictionary, TermMatcher>();
  constructor(private readonly store: GlossaryStore, readonly limits: GlossaryLimits) {}

  async create(owner: string, name: unknown, dictionaries: NewDictionary[]): Promise<Glossary> {
    const g: Glossary = { id: randomUUID(), owner, name: checkName(name), createdAt: Date.now(), dictionaries: this.checkDictionaries(dictionaries) };
    if ((await this.store.count(owner)) >= this.limits.perKey) {
      throw invalidRequest(`This key already has ${this.limits.perKey} glossaries (DRAGOMAN_GLOSSARIES_PER_KEY): delete one first.`);
    }
    await this.store.insert(g);
    return g;
  }

  async get(owner: string, id: string): Promise<Glossary> {
    const g = await this.store.get(owner, id);
    if (!g) throw glossaryNotFound(id);
    return g;
  }

  list(owner: string): Promise<Glossary[]> {
    return this.store.list(owner);
  }

  async delete(owner: string, id: string): Promise<void> {
    if (!(await this.store.delete(owner, id))) throw glossaryNotFound(id);
  }

  /** A new name and/or dictionaries merged in (a dictionary of the same pair replaced, or its entries merged). */
  async update(owner: string, id: string, patch: { name?: unknown; dictionaries?: NewDictionary[]; merge?: boolean }): Promise<Glossary> {
    const g = await this.get(owner, id);
    const next: Glossary = { ...g, dictionaries: [...g.dictionaries] };
    if (patch.name !== undefined) next.name = checkName(patch.name);
    for (const d of this.checkDictionaries(patch.dictionaries ?? [], g.dictionaries, patch.merge)) {
      const at = next.dictionaries.findIndex((x) => x.source === d.source && x.target === d.target);
      if (at >= 0) next.dictionaries[at] = d;
      else next.dictionaries.push(d);
    }
    if (total(next.dictionaries) > this.limits.maxEntries) throw tooMany(this.limits.maxEntries);
    if (!(await this.store.update(next))) throw glossaryNotFound(id);
    return next;
  }

  /** Drops one language pair's dictionary (404 when the glossary has none for it). */
  async removeDictionary(owner: string, id: string, source: string, target: string): Promise<void> {
    const g = await this.get(owner, id);
    const rest = g.dictionaries.filter((d) => !(d.source === source && d.target === target));
    if (rest.length === g.dictionaries.length) throw new ApiError(404, 'invalid_request', `Glossary '${id}' has no dictionary ${source}→${target}.`);
    if (!(await this.store.update({ ...g, dictionaries: rest }))) throw glossaryNotFound(id);
  }

  /** A dictionary as a term matcher, kept while the same dictionary object is in use (a request reads its glossary once). */
  matcherOf(d: Dictionary): TermMatcher {
    let m = this.matchers.get(d);
    if (!m) this.matchers.set(d, (m = new TermMatcher(d.entries.map(([s, t]) => ({ source: s, target: t })))));
    return m;
  }

  /** A glossary's dictionary for source → target (public codes): 404 for an unknown glossary, 400 without the pair. */
  async dictionary(owner: string, id: string, source: string, target: string): Promise<Dictionary> {
    const g = await this.get(owner, id);
    const d = g.dictionaries.find((x) => x.source === source && x.target === target);
    if (!d) throw pairMissing(g, source, target);
    return d;
  }

  /** A glossary's dictionary for source → target (public codes), as a term matcher. */
  async matcher(owner: string, id: string, source: string, target: string): Promise<TermMatcher> {
    return this.matcherOf(await this.dictionary(owner, id, source, target));
  }

  private checkDictionaries(list: NewDictionary[], existing: Dictionary[] = [], merge = false): Dictionary[] {
    const out = list.map((d) => {
      const source = checkLanguage('source', d.source);
      const target = checkLanguage('target', d.target);
      if (source === target) throw invalidRequest(`A glossary's source and target languages must differ (both are '${source}').`);
      let entries = d.entries;
      const old = existing.find((x) => x.source === source && x.target === target);
      if (merge && old) {
        const given = new Set(entries.map(([s]) => s.toLowerCase()));
        entries = [...old.entries.filter(([s]) => !given.has(s.toLowerCase())), ...entries];
      }
      return { source, target, entries };
    });
    const pairs = new Set(out.map((d) => `${d.source}>${d.target}`));
    if (pairs.size !== out.length) throw invalidRequest('A glossary holds one dictionary per language pair: a pair is given twice.');
    if (total(out) > this.limits.maxEntries) throw tooMany(this.limits.maxEntries);
    return out;
  }
}

const total = (ds: readonly Dictionary[]) => ds.reduce((n, d) => n + d.entries.length, 0);

const tooMany = (max: number) => new ApiError(413, 'invalid_request', `A glossary may hold at most ${max} entries (DRAGOMAN_GLOSSARY_MAX_ENTRIES).`);

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim()) throw invalidRequest("Missing required field 'name': the glossary's name.");
  if (name.length > 1000) throw invalidRequest("Field 'name' may have at most 1000 characters.");
  return name.trim();
}

function checkLanguage(field: 'source' | 'target', code: unknown): string {
  if (typeof code !== 'string' || !code) throw invalidRequest(`Missing required field '${field}' of the glossary: a language code such as "en".`);
  const lang = resolveLanguage(code);
  if (!lang) throw invalidRequest(`Unsupported ${field} language code '${code.slice(0, 50)}' for a glossary.`);
  return lang.code;
}
