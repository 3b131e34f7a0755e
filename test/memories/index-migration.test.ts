// A memory stored with the index of a row per word and segment (memory_words, migrations up to 011) is found the same
// once migration 012 has put it in posting blocks: exact and fuzzy lookups, a segment changed and deleted, an import
// into it. Real SQLite files in a temp dir, and a fresh PostgreSQL database when DRAGOMAN_TEST_DATABASE_URL is set.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { itNeeding } from '../tools.ts';
import { memoryBook, memoryStore, type MemoryBook } from '../../src/memories/index.ts';
import { exactKey, indexWords } from '../../src/memories/text.ts';
import { openPostgres, openSqlite, type Storage } from '../../src/storage/index.ts';
import { migrate as migratePostgres } from '../../src/storage/postgres/migrate.ts';
import { migrate as migrateSqlite } from '../../src/storage/sqlite/migrate.ts';
import { openDatabase } from '../../src/storage/sqlite/open.ts';
import { freshDatabase } from '../postgres/pg-helpers.ts';
import { FUZZY_STORED, tmx } from './fixtures.ts';

const SERIES = {
  sqlite: fileURLToPath(new URL('../../src/storage/sqlite/migrations/', import.meta.url)),
  postgres: fileURLToPath(new URL('../../src/storage/postgres/migrations/', import.meta.url)),
};

/** The series up to 011, copied to a folder of its own. */
function before012(kind: 'sqlite' | 'postgres', dir: string): string {
  const out = join(dir, `${kind}-011`);
  mkdirSync(out, { recursive: true });
  for (const f of readdirSync(SERIES[kind])) if (Number(f.slice(0, 3)) <= 11) copyFileSync(join(SERIES[kind], f), join(out, f));
  return `${out}/`;
}

/** Segments 1..n of a memory (num 1) written as 011 stored them: a row per segment, a row per index word. */
const SEGMENTS = [
  { source: FUZZY_STORED.source, target: FUZZY_STORED.target },
  ...Array.from({ length: 30 }, (_, i) => ({ source: `Line ${i} of the old memory is kept.`, target: `Zeile ${i} des alten Speichers bleibt.` })),
];
const oldRows = () => SEGMENTS.map((s, i) => [i + 1, 1, 'de', exactKey(s.source), s.source, s.target, null, null, 1, 1, 1] as const);
const oldWords = () => SEGMENTS.flatMap((s, i) => indexWords(s.source).map((w) => [1, w, i + 1] as const));
const MEMORY = ['m-old', 'key-1', 'old', 'en', 'de', SEGMENTS.length, 'ready', null, 1, 1, 1] as const;

const limits = { memoriesPerKey: 10, memoryMaxSegments: 1000, memoryMaxSegmentChars: 5000, memoryMaxFileBytes: 1 << 20 };

async function checks(storage: Storage): Promise<void> {
  const book: MemoryBook = memoryBook(memoryStore(storage), limits);
  const m = await book.get('key-1', 'm-old');
  expect(m.segmentCount).toBe(SEGMENTS.length);
  const [exact] = await book.lookup(m, 'de', [SEGMENTS[3]!.source], { threshold: 75, fuzzy: false });
  expect(exact!.exact?.target).toBe(SEGMENTS[3]!.target);
  const near = 'The weather is very nice today and we are going to the beach.';
  expect((await book.fuzzy(m, 'de', near, 75))[0]).toMatchObject({ source: FUZZY_STORED.source });
  // Changed: found by its new words, not its old ones; deleted: found no more.
  await book.update('key-1', 'm-old', 1, { source: 'The garden is green and the birds are singing loudly today.' });
  expect(await book.fuzzy(m, 'de', near, 75)).toEqual([]);
  const m2 = await book.get('key-1', 'm-old');
  expect((await book.fuzzy(m2, 'de', 'The garden is green and the birds are singing softly today.', 75))[0]?.source).toBe('The garden is green and the birds are singing loudly today.');
  await book.deleteSegment('key-1', 'm-old', 1);
  const m3 = await book.get('key-1', 'm-old');
  expect(await book.fuzzy(m3, 'de', 'The garden is green and the birds are singing softly today.', 75)).toEqual([]);
  // An import into it: a source it holds replaced, a new one added, both found.
  const r = await book.import('key-1', { format: 'tmx', into: 'm-old' }, Readable.from([Buffer.from(tmx([
    { source: SEGMENTS[5]!.source, target: 'Ersetzt.' }, { source: 'A brand new sentence about invoices.', target: 'Ein neuer Satz.' },
  ], 'en', 'de'))]));
  expect(r.memory.segmentCount).toBe(SEGMENTS.length);
  const [replaced, added] = await book.lookup(r.memory, 'de', [SEGMENTS[5]!.source, 'A brand new sentence about invoices.'], { threshold: 75, fuzzy: false });
  expect([replaced!.exact?.target, added!.exact?.target]).toEqual(['Ersetzt.', 'Ein neuer Satz.']);
  expect((await book.fuzzy(r.memory, 'de', 'A brand new sentence about bills.', 60))[0]?.source).toBe('A brand new sentence about invoices.');
}

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('migration 012: a memory indexed a row per word', () => {
  it('SQLite: is found the same in posting blocks', async () => {
    dir = mkdtempSync(join(tmpdir(), 'dragoman-memory-index-'));
    const file = join(dir, 'dragoman.db');
    const db = openDatabase(file);
    migrateSqlite(db, before012('sqlite', dir));
    db.prepare('INSERT INTO memories (id, owner, name, source, targets, segment_count, state, into_num, heartbeat, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(...MEMORY);
    const seg = db.prepare('INSERT INTO memory_segments (id, mem, target_lang, key, source, target, source_markup, target_markup, reviewed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const r of oldRows()) seg.run(...r);
    const word = db.prepare('INSERT INTO memory_words (mem, word, seg) VALUES (?, ?, ?)');
    for (const w of oldWords()) word.run(...w);
    db.close();
    const storage = openSqlite(file);
    try {
      await checks(storage);
    } finally {
      await storage.close();
    }
  });

  itNeeding('postgresql')('PostgreSQL: is found the same in posting blocks', async () => {
    dir = mkdtempSync(join(tmpdir(), 'dragoman-memory-index-'));
    const fresh = await freshDatabase();
    try {
      const pool = new pg.Pool({ connectionString: fresh.url, max: 1 });
      await migratePostgres(pool, before012('postgres', dir));
      await pool.query('INSERT INTO memories (id, owner, name, source, targets, segment_count, state, into_num, heartbeat, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [...MEMORY]);
      const rows = oldRows();
      for (const r of rows) await pool.query('INSERT INTO memory_segments (id, mem, target_lang, key, source, target, source_markup, target_markup, reviewed, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)', [...r]);
      await pool.query(`SELECT setval('memory_segments_id_seq', ${rows.length})`);
      for (const w of oldWords()) await pool.query('INSERT INTO memory_words (mem, word, seg) VALUES ($1, $2, $3)', [...w]);
      await pool.end();
      const storage = openPostgres(fresh.url);
      try {
        await storage.ready();
        await checks(storage);
      } finally {
        await storage.close();
      }
    } finally {
      await fresh.drop();
    }
  });
});
