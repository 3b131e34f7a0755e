// Opens the memory store beside the accounts: the same SQLite file, or the same PostgreSQL database.
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { MemoryBook } from './book.ts';
import { PgMemoryStore } from './postgres.ts';
import { SqliteMemoryStore } from './sqlite.ts';
import type { MemoryStore } from './store.ts';

export { MemoryBook, memoryNotFound, jobNotFound, language, type ImportFormat, type ImportResult, type Lookup } from './book.ts';
export type { MemoryStore, MemoryJob } from './store.ts';
export type { Memory, MemoryLimits, MemoryMatch, NewSegment, Segment, SegmentPage } from './types.ts';
export { similarity, normalise } from './text.ts';

export function openMemoryStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>): MemoryStore {
  return config.databaseUrl ? new PgMemoryStore(config.databaseUrl) : new SqliteMemoryStore(join(config.dataDir, 'dragoman.db'));
}

export function memoryBook(store: MemoryStore, config: Pick<Config, 'memoriesPerKey' | 'memoryMaxSegments' | 'memoryMaxSegmentChars' | 'memoryMaxFileBytes'>): MemoryBook {
  return new MemoryBook(store, {
    perKey: config.memoriesPerKey, maxSegments: config.memoryMaxSegments, maxSegmentChars: config.memoryMaxSegmentChars, maxFileBytes: config.memoryMaxFileBytes,
  });
}
