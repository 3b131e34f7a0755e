// The glossary store beside the accounts, on the same database (src/storage): the SQLite file or PostgreSQL.
import type { Config } from '../config/env.ts';
import type { Storage } from '../storage/index.ts';
import { GlossaryBook } from './book.ts';
import { PgGlossaryStore } from './postgres.ts';
import { SqliteGlossaryStore } from './sqlite.ts';
import type { GlossaryStore } from './store.ts';

export { GlossaryBook, glossaryNotFound, type NewDictionary } from './book.ts';
export { parseEntries, toTsv, type EntriesFormat } from './entries.ts';
export type { Dictionary, Glossary, GlossaryLimits } from './types.ts';
export type { GlossaryStore } from './store.ts';

export function glossaryStore(storage: Storage): GlossaryStore {
  return storage.kind === 'postgres' ? new PgGlossaryStore(storage) : new SqliteGlossaryStore(storage);
}

export function glossaryBook(store: GlossaryStore, config: Pick<Config, 'glossaryMaxEntries' | 'glossaryMaxTermChars' | 'glossariesPerKey'>): GlossaryBook {
  return new GlossaryBook(store, { maxEntries: config.glossaryMaxEntries, maxTermChars: config.glossaryMaxTermChars, perKey: config.glossariesPerKey });
}
