// Where glossaries live: the accounts database (SQLite file or PostgreSQL), in a table of their own. A glossary is
// written and read whole (its dictionaries as one JSON document): it is made once, read by many requests, and
// replaced rather than edited, so one row per glossary keeps every change atomic.
import type { Glossary } from './types.ts';

export interface GlossaryStore {
  insert(g: Glossary): Promise<void>;
  /** Replaces name and dictionaries of an owner's glossary; false when it has none with that id. */
  update(g: Glossary): Promise<boolean>;
  get(owner: string, id: string): Promise<Glossary | undefined>;
  list(owner: string): Promise<Glossary[]>;
  count(owner: string): Promise<number>;
  /** false when the owner has no glossary with that id. */
  delete(owner: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface GlossaryRow {
  id: string;
  owner: string;
  name: string;
  created_at: number;
  dictionaries: string;
}

export const toRow = (g: Glossary): GlossaryRow => ({ id: g.id, owner: g.owner, name: g.name, created_at: g.createdAt, dictionaries: JSON.stringify(g.dictionaries) });

/**
 * Rows read lately, parsed: a glossary used by every request is parsed once, and the same Dictionary objects come back
 * while its row is unchanged, so the book's term matcher for it is built once too (a 1,000-entry glossary costs
 * ~1 ms to parse and index, a sizeable part of a short sentence's translation).
 */
const parsed = new Map<string, { raw: string; glossary: Glossary }>();
const PARSED_MAX = 64;

export function fromRow(r: GlossaryRow): Glossary {
  const hit = parsed.get(r.id);
  if (hit && hit.raw === r.dictionaries && hit.glossary.name === r.name && hit.glossary.owner === r.owner) return hit.glossary;
  const glossary: Glossary = {
    id: r.id, owner: r.owner, name: r.name, createdAt: Number(r.created_at), dictionaries: JSON.parse(r.dictionaries) as Glossary['dictionaries'],
  };
  parsed.delete(r.id);
  parsed.set(r.id, { raw: r.dictionaries, glossary });
  if (parsed.size > PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  return glossary;
}
