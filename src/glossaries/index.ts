// Opens the glossary store beside the accounts: the same SQLite file, or the same PostgreSQL database.
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { GlossaryBook } from './book.ts';
import { PgGlossaryStore } from './postgres.ts';
import { SqliteGlossaryStore } from './sqlite.ts';
import type { GlossaryStore } from './store.ts';

export { GlossaryBook, glossaryNotFound, type NewDictionary } from './book.ts';
export { parseEntries, toTsv, type EntriesFormat } from './entries.ts';
export type { Dictionary, Glossary, GlossaryLimits } from './types.ts';
export type { GlossaryStore } from './store.ts';

export function openGlossaryStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>): GlossaryStore {
  return config.databaseUrl ? new PgGlossaryStore(config.databaseUrl) : new SqliteGlossaryStore(join(config.dataDir, 'dragoman.db'));
}

export function glossaryBook(store: GlossaryStore, config: Pick<Config, 'glossaryMaxEntries' | 'glossaryMaxTermChars' | 'glossariesPerKey'>): GlossaryBook {
  return new GlossaryBook(store, { maxEntries: config.glossaryMaxEntries, maxTermChars: config.glossaryMaxTermChars, perKey: config.glossariesPerKey });
}
