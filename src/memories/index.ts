// The memory store beside the accounts, on the same database (src/storage): the SQLite file or PostgreSQL.
import type { Config } from '../config/env.ts';
import type { Storage } from '../storage/index.ts';
import { MemoryBook } from './book.ts';
import { PgMemoryStore } from './postgres.ts';
import { SqliteMemoryStore } from './sqlite.ts';
import type { MemoryStore } from './store.ts';

export { MemoryBook, memoryNotFound, jobNotFound, language, type ImportFormat, type ImportResult, type Lookup } from './book.ts';
export type { MemoryStore, MemoryJob } from './store.ts';
export type { Memory, MemoryLimits, MemoryMatch, NewSegment, Segment, SegmentPage } from './types.ts';
export { similarity, normalise } from './text.ts';

export function memoryStore(storage: Storage): MemoryStore {
  return storage.kind === 'postgres' ? new PgMemoryStore(storage) : new SqliteMemoryStore(storage);
}

export function memoryBook(store: MemoryStore, config: Pick<Config, 'memoriesPerKey' | 'memoryMaxSegments' | 'memoryMaxSegmentChars' | 'memoryMaxFileBytes'>): MemoryBook {
  return new MemoryBook(store, {
    perKey: config.memoriesPerKey, maxSegments: config.memoryMaxSegments, maxSegmentChars: config.memoryMaxSegmentChars, maxFileBytes: config.memoryMaxFileBytes,
  });
}
