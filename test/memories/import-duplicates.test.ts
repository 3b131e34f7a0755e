// A source given twice in one file, in chunks far apart (an import writes 2,000 segments a transaction): the later
// unit wins, the memory counts it once, and the exact and fuzzy lookups find the later target only. Real SQLite in a
// temp dir, and a fresh PostgreSQL database when DRAGOMAN_TEST_DATABASE_URL is set.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { itNeeding } from '../tools.ts';
import { memoryBook, memoryStore } from '../../src/memories/index.ts';
import { openPostgres, openSqlite, type Storage } from '../../src/storage/index.ts';
import { freshDatabase } from '../postgres/pg-helpers.ts';
import { generated, tmx } from './fixtures.ts';

const UNITS = 2600;
const units = Array.from({ length: UNITS }, (_, i) => generated(i));
// Unit 2500 gives unit 3's source again, with a target of its own.
units[2500] = { source: units[3]!.source, target: 'Die spätere Übersetzung gewinnt.' };

async function checks(storage: Storage): Promise<void> {
  const book = memoryBook(memoryStore(storage), { memoriesPerKey: 10, memoryMaxSegments: 10_000, memoryMaxSegmentChars: 5000, memoryMaxFileBytes: 1 << 24 });
  const r = await book.import('key-1', { format: 'tmx', name: 'twice' }, Readable.from([Buffer.from(tmx(units, 'en', 'de'))]));
  expect(r.memory.segmentCount).toBe(UNITS - 1);
  const [hit] = await book.lookup(r.memory, 'de', [units[3]!.source], { threshold: 75, fuzzy: false });
  expect(hit!.exact?.target).toBe('Die spätere Übersetzung gewinnt.');
  const near = units[3]!.source.replace(' was sent to ', ' was mailed to ');
  const matches = await book.fuzzy(r.memory, 'de', near, 75);
  expect(matches.filter((m) => m.source === units[3]!.source).map((m) => m.target)).toEqual(['Die spätere Übersetzung gewinnt.']);
  expect((await book.segments('key-1', r.memory.id, { limit: 10_000 })).segments).toHaveLength(UNITS - 1);
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('a source given twice in one import', () => {
  it('SQLite: the later unit wins', async () => {
    dir = mkdtempSync(join(tmpdir(), 'dragoman-memory-twice-'));
    const storage = openSqlite(join(dir, 'dragoman.db'));
    try {
      await checks(storage);
    } finally {
      await storage.close();
    }
  });

  itNeeding('postgresql')('PostgreSQL: the later unit wins', async () => {
    dir = mkdtempSync(join(tmpdir(), 'dragoman-memory-twice-'));
    const fresh = await freshDatabase();
    const storage = openPostgres(fresh.url);
    try {
      await storage.ready();
      await checks(storage);
    } finally {
      await storage.close();
      await fresh.drop();
    }
  });
});
