// Memories in the PostgreSQL database the accounts use (DRAGOMAN_DATABASE_URL): replicas share them like keys.
// Tables made by the storage layer's migrations. An import's chunks are each one statement over arrays (unnest), under a
// staging row, committed without waiting for the disk (the last transaction waits, and a crash before it leaves only a
// staging row to sweep); its index words are gathered in memory and written as posting blocks (postings.ts) a few
// million at a time. Its last transaction makes the segments the memory's, and the tables' statistics are renewed
// after it, so the planner knows the memory's size.
import type pg from 'pg';
import { AccountsUnavailable } from '../accounts/errors.ts';
import type { PgStorage } from '../storage/index.ts';
import { isUnavailable } from '../storage/postgres/unavailable.ts';
import { decodeBlock, encodeBlock, FLUSH_POSTINGS, PostingBuilder, type PostingBlock } from './postings.ts';
import {
  JOB_COLUMNS, jobOf, lastOfEachKey, memoryOf, segmentOf,
  type AddMode, type JobRecord, type MemoryJob, type MemoryRecord, type MemoryStore, type SegmentRecord, type SegmentRow,
} from './store.ts';
import { indexWords } from './text.ts';
import type { Memory, Segment, SegmentFilter, SegmentPage } from './types.ts';

type Q = Pick<pg.PoolClient, 'query'>;

export class PgMemoryStore implements MemoryStore {
  private readonly pool: pg.Pool;
  /** Postings of running imports not yet written, by staging row. */
  private readonly staged = new Map<number, PostingBuilder>();

  // The process's pool (src/storage/postgres); the tables are made by its migrations.
  constructor(private readonly storage: PgStorage) {
    this.pool = storage.pool;
  }

  private async schema(): Promise<void> {
    await this.storage.ready();
  }

  /** A query; a `name`d one is prepared once per connection (a lookup's: parsed and planned once, not per call). */
  private async q<T extends pg.QueryResultRow>(sql: string, params: unknown[] = [], name?: string): Promise<pg.QueryResult<T>> {
    try {
      await this.schema();
      return await this.pool.query<T>(name ? { name, text: sql, values: params } : { text: sql, values: params });
    } catch (err) {
      if (isUnavailable(err)) throw new AccountsUnavailable();
      throw err;
    }
  }

  private async tx<T>(work: (c: Q) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      await this.schema();
      client = await this.pool.connect();
    } catch (err) {
      if (isUnavailable(err)) throw new AccountsUnavailable();
      throw err;
    }
    try {
      await client.query('BEGIN');
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (isUnavailable(err)) throw new AccountsUnavailable();
      throw err;
    } finally {
      client.release();
    }
  }

  private async memory(owner: string, id: string, c: Q = this.pool): Promise<Memory | undefined> {
    if (c === this.pool) await this.schema();
    const r = (await c.query<MemoryRecord>("SELECT * FROM memories WHERE owner = $1 AND id = $2 AND state = 'ready'", [owner, id])).rows[0];
    return r && memoryOf(r);
  }

  async create(m: Memory): Promise<void> {
    await this.q(`INSERT INTO memories (id, owner, name, source, targets, segment_count, state, heartbeat, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, 0, 'ready', $6, $6, $6)`, [m.id, m.owner, m.name, m.source, m.targets.join(','), m.createdAt]);
  }

  async get(owner: string, id: string): Promise<Memory | undefined> {
    try {
      return await this.memory(owner, id);
    } catch (err) {
      if (isUnavailable(err)) throw new AccountsUnavailable();
      throw err;
    }
  }

  async list(owner: string): Promise<Memory[]> {
    return (await this.q<MemoryRecord>("SELECT * FROM memories WHERE owner = $1 AND state = 'ready' ORDER BY created_at, id", [owner])).rows.map(memoryOf);
  }

  async count(owner: string): Promise<number> {
    return Number((await this.q<{ n: string }>("SELECT COUNT(*) AS n FROM memories WHERE owner = $1 AND state = 'ready'", [owner])).rows[0]!.n);
  }

  async rename(owner: string, id: string, name: string): Promise<boolean> {
    return ((await this.q("UPDATE memories SET name = $1, updated_at = $2 WHERE owner = $3 AND id = $4 AND state = 'ready'", [name, Date.now(), owner, id])).rowCount ?? 0) > 0;
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return this.tx(async (c) => {
      const m = await this.memory(owner, id, c);
      if (!m) return false;
      await drop(c, m.num);
      return true;
    });
  }

  async beginImport(m: Memory, into?: string): Promise<number> {
    const intoNum = into === undefined ? null : (await this.memory(m.owner, into))?.num ?? null;
    const now = Date.now();
    const r = await this.q<{ num: string }>(`INSERT INTO memories (id, owner, name, source, targets, segment_count, state, into_num, heartbeat, created_at, updated_at)
      VALUES ($1, $2, $3, $4, '', 0, 'staging', $5, $6, $6, $6) RETURNING num`, [m.id, m.owner, m.name, m.source, intoNum, now]);
    const num = Number(r.rows[0]!.num);
    this.staged.set(num, new PostingBuilder());
    return num;
  }

  async importChunk(staging: number, rows: SegmentRow[]): Promise<void> {
    const postings = this.staged.get(staging);
    if (!postings) throw new Error('memory import: the staging area is gone');
    await this.tx(async (c) => {
      await c.query('SET LOCAL synchronous_commit = off');
      await c.query('UPDATE memories SET heartbeat = $1 WHERE num = $2', [Date.now(), staging]);
      await write(c, staging, rows, 'replace', postings);
      if (postings.size >= FLUSH_POSTINGS) await insertBlocks(c, staging, postings.take());
    });
  }

  async finishImport(staging: number): Promise<Memory> {
    const postings = this.staged.get(staging) ?? new PostingBuilder();
    this.staged.delete(staging);
    const memory = await this.tx(async (c) => {
      const st = (await c.query<MemoryRecord & { into_num: string | null; state: string }>('SELECT * FROM memories WHERE num = $1 FOR UPDATE', [staging])).rows[0];
      if (!st || st.state !== 'staging') throw new Error('memory import: the staging area is gone');
      await insertBlocks(c, staging, postings.take());
      let num = staging;
      if (st.into_num !== null) {
        num = Number(st.into_num);
        if (!(await c.query('SELECT 1 FROM memories WHERE num = $1 FOR UPDATE', [num])).rowCount) throw new Error('memory import: the memory was deleted during the import');
        // Stored segments the file gives again are replaced by the file's (their stale postings name no segment).
        const replaced = `SELECT a.id FROM memory_segments a JOIN memory_segments b ON b.mem = $2 AND a.key = b.key AND a.target_lang = b.target_lang WHERE a.mem = $1`;
        await c.query(`DELETE FROM memory_segments WHERE mem = $1 AND id IN (${replaced})`, [num, staging]);
        await c.query('UPDATE memory_segments SET mem = $1 WHERE mem = $2', [num, staging]);
        await c.query('UPDATE memory_postings SET mem = $1 WHERE mem = $2', [num, staging]);
        await c.query('DELETE FROM memories WHERE num = $1', [staging]);
      } else {
        await c.query("UPDATE memories SET state = 'ready' WHERE num = $1", [staging]);
      }
      await recount(c, num);
      return memoryOf((await c.query<MemoryRecord>('SELECT * FROM memories WHERE num = $1', [num])).rows[0]!);
    });
    // Statistics of the tables as they are now: planned on an empty memory's, a lookup would scan the memory.
    await this.q('ANALYZE memory_segments, memory_postings').catch(() => undefined);
    return memory;
  }

  async abortImport(staging: number): Promise<void> {
    this.staged.delete(staging);
    await this.tx((c) => drop(c, staging));
  }

  async sweep(before: number): Promise<number> {
    const stale = (await this.q<{ num: string }>("SELECT num FROM memories WHERE state = 'staging' AND heartbeat < $1", [before])).rows;
    for (const { num } of stale) await this.tx((c) => drop(c, Number(num)));
    return stale.length;
  }

  async add(owner: string, id: string, rows: SegmentRow[], mode: AddMode): Promise<(number | undefined)[]> {
    return this.tx(async (c) => {
      const m = await this.memory(owner, id, c);
      if (!m) return [];
      const postings = new PostingBuilder();
      const ids = await write(c, m.num, rows, mode, postings);
      await insertBlocks(c, m.num, postings.take());
      const targets = [...new Set([...m.targets, ...rows.map((r) => r.targetLang)])].sort().join(',');
      await c.query('UPDATE memories SET segment_count = (SELECT COUNT(*) FROM memory_segments WHERE mem = $1), targets = $2, updated_at = $3 WHERE num = $1', [m.num, targets, Date.now()]);
      return ids;
    });
  }

  async updateSegment(owner: string, id: string, segId: number, row: SegmentRow): Promise<Segment | undefined> {
    return this.tx(async (c) => {
      const m = await this.memory(owner, id, c);
      if (!m) return undefined;
      const old = (await c.query<{ source: string }>('SELECT source FROM memory_segments WHERE mem = $1 AND id = $2', [m.num, segId])).rows[0];
      if (!old) return undefined;
      const clash = (await c.query<{ id: string }>('SELECT id FROM memory_segments WHERE mem = $1 AND key = $2 AND target_lang = $3', [m.num, row.key, row.targetLang])).rows[0];
      if (clash && Number(clash.id) !== segId) throw Object.assign(new Error('duplicate'), { code: 'duplicate' });
      await unindex(c, m.num, segId, old.source);
      await c.query(`UPDATE memory_segments SET key = $1, target_lang = $2, source = $3, target = $4, source_markup = $5, target_markup = $6, reviewed = $7, updated_at = $8
        WHERE id = $9`, [row.key, row.targetLang, row.source, row.target, row.sourceMarkup ?? null, row.targetMarkup ?? null, row.reviewed ? 1 : 0, Date.now(), segId]);
      await insertBlocks(c, m.num, row.words.map((w) => encodeBlock(w, [segId])));
      await recount(c, m.num);
      return segmentOf((await c.query<SegmentRecord>('SELECT * FROM memory_segments WHERE id = $1', [segId])).rows[0]!);
    });
  }

  async deleteSegment(owner: string, id: string, segId: number): Promise<boolean> {
    return this.tx(async (c) => {
      const m = await this.memory(owner, id, c);
      if (!m) return false;
      const old = (await c.query<{ source: string }>('DELETE FROM memory_segments WHERE mem = $1 AND id = $2 RETURNING source', [m.num, segId])).rows[0];
      if (!old) return false;
      await unindex(c, m.num, segId, old.source);
      await recount(c, m.num);
      return true;
    });
  }

  async getSegment(owner: string, id: string, segId: number): Promise<Segment | undefined> {
    const m = await this.get(owner, id);
    if (!m) return undefined;
    const r = (await this.q<SegmentRecord>('SELECT * FROM memory_segments WHERE mem = $1 AND id = $2', [m.num, segId])).rows[0];
    return r && segmentOf(r);
  }

  async segments(owner: string, id: string, f: SegmentFilter): Promise<SegmentPage | undefined> {
    const m = await this.get(owner, id);
    if (!m) return undefined;
    const params: unknown[] = [m.num, f.after ?? 0];
    const where = ['mem = $1', 'id > $2'];
    if (f.targetLang) where.push(`target_lang = $${params.push(f.targetLang)}`);
    if (f.reviewed !== undefined) where.push(`reviewed = $${params.push(f.reviewed ? 1 : 0)}`);
    if (f.text) {
      const p = `$${params.push(f.text)}`;
      where.push(f.caseSensitive ? `(strpos(source, ${p}) > 0 OR strpos(target, ${p}) > 0)` : `(strpos(lower(source), lower(${p})) > 0 OR strpos(lower(target), lower(${p})) > 0)`);
    }
    const rows = (await this.q<SegmentRecord>(`SELECT * FROM memory_segments WHERE ${where.join(' AND ')} ORDER BY id LIMIT $${params.push(f.limit + 1)}`, params)).rows;
    const segments = rows.slice(0, f.limit).map(segmentOf);
    return { segments, total: m.segmentCount, ...(rows.length > f.limit ? { next: segments[segments.length - 1]!.id } : {}) };
  }

  async exact(m: Memory, targetLang: string, key: string): Promise<Segment | undefined> {
    const r = (await this.q<SegmentRecord>('SELECT * FROM memory_segments WHERE mem = $1 AND key = $2 AND target_lang = $3', [m.num, key, targetLang])).rows[0];
    return r && segmentOf(r);
  }

  async exactMany(m: Memory, targetLang: string, keys: string[]): Promise<Map<string, Segment>> {
    const out = new Map<string, Segment>();
    if (!keys.length) return out;
    // One sentence (a lookup's usual size) by plain equality: a third cheaper than `= ANY` of a one-key array.
    const distinct = [...new Set(keys)];
    const rows = (distinct.length === 1
      ? await this.q<SegmentRecord & { key: string }>('SELECT * FROM memory_segments WHERE mem = $1 AND key = $3 AND target_lang = $2', [m.num, targetLang, distinct[0]], 'memory-exact-one')
      : await this.q<SegmentRecord & { key: string }>('SELECT * FROM memory_segments WHERE mem = $1 AND target_lang = $2 AND key = ANY($3::text[])', [m.num, targetLang, distinct], 'memory-exact')).rows;
    for (const r of rows) out.set(r.key, segmentOf(r));
    return out;
  }

  async postings(m: Memory, words: number[], cap: number): Promise<Map<number, number[] | null>> {
    const out = new Map<number, number[] | null>(words.map((w) => [w, []]));
    if (!words.length) return out;
    // One round trip: each word's total, and its blocks unless the total marks a common word.
    const rows = (await this.q<{ word: number; total: string; first: string | null; segs: string | null }>(`SELECT g.word, t.total, b.first, b.segs
      FROM unnest($2::int[]) AS g(word)
      CROSS JOIN LATERAL (SELECT COALESCE(SUM(n), 0) AS total FROM memory_postings WHERE mem = $1 AND word = g.word) t
      LEFT JOIN LATERAL (SELECT first, segs FROM memory_postings WHERE mem = $1 AND word = g.word AND t.total <= $3) b ON true`, [m.num, words, cap], 'memory-postings')).rows;
    for (const r of rows) {
      if (Number(r.total) > cap) out.set(r.word, null);
      else if (r.first !== null) decodeBlock(Number(r.first), r.segs!, out.get(r.word)!);
    }
    return out;
  }

  async byIds(m: Memory, targetLang: string, ids: number[]): Promise<Segment[]> {
    if (!ids.length) return [];
    return (await this.q<SegmentRecord>('SELECT * FROM memory_segments WHERE mem = $1 AND target_lang = $2 AND id = ANY($3::bigint[])', [m.num, targetLang, ids], 'memory-by-ids')).rows.map(segmentOf);
  }

  async addServed(owner: string, period: string, chars: number, day: string): Promise<void> {
    // The month's count and the day's (usage_days, the per-day usage report) in one statement, so one transaction.
    await this.q(`WITH month AS (INSERT INTO memory_usage (owner, period, chars) VALUES ($1, $2, $3)
        ON CONFLICT (owner, period) DO UPDATE SET chars = memory_usage.chars + excluded.chars)
      INSERT INTO usage_days AS d (key_id, day, memory_chars) VALUES ($1, $4, $3)
        ON CONFLICT (key_id, day) DO UPDATE SET memory_chars = d.memory_chars + excluded.memory_chars`, [owner, period, chars, day]);
  }

  async served(owner: string, period: string): Promise<number> {
    return Number((await this.q<{ chars: string }>('SELECT chars FROM memory_usage WHERE owner = $1 AND period = $2', [owner, period])).rows[0]?.chars ?? 0);
  }

  async insertJob(j: MemoryJob): Promise<void> {
    await this.q(`INSERT INTO memory_jobs (id, owner, kind, status, token, memory_id, display_name, file_name, content_type, content_length, error, skipped, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [j.id, j.owner, j.kind, j.status, j.token, j.memoryId ?? null, j.displayName ?? null, j.fileName ?? null, j.contentType ?? null, j.contentLength ?? null, j.error ?? null, j.skipped, j.createdAt, j.updatedAt]);
  }

  async getJob(id: string): Promise<MemoryJob | undefined> {
    const r = (await this.q<JobRecord>('SELECT * FROM memory_jobs WHERE id = $1', [id])).rows[0];
    return r && jobOf(r);
  }

  async updateJob(id: string, patch: Partial<MemoryJob>): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [k, v] of Object.entries({ ...patch, updatedAt: Date.now() })) {
      const col = JOB_COLUMNS[k];
      if (col) sets.push(`${col} = $${params.push(v ?? null)}`);
    }
    await this.q(`UPDATE memory_jobs SET ${sets.join(', ')} WHERE id = $${params.push(id)}`, params);
  }

  /** Nothing of its own to release: the pool belongs to the storage layer. */
  async close(): Promise<void> {}
}

async function drop(c: Q, num: number): Promise<void> {
  await c.query('DELETE FROM memory_postings WHERE mem = $1', [num]);
  await c.query('DELETE FROM memory_segments WHERE mem = $1', [num]);
  await c.query('DELETE FROM memories WHERE num = $1', [num]);
}

async function recount(c: Q, num: number): Promise<void> {
  await c.query(`UPDATE memories SET segment_count = (SELECT COUNT(*) FROM memory_segments WHERE mem = $1),
    targets = COALESCE((SELECT string_agg(t, ',' ORDER BY t) FROM (SELECT DISTINCT target_lang AS t FROM memory_segments WHERE mem = $1) x), ''),
    updated_at = $2 WHERE num = $1`, [num, Date.now()]);
}

/** Blocks written in statements of at most 20,000 rows. */
async function insertBlocks(c: Q, num: number, blocks: Iterable<PostingBlock>): Promise<void> {
  let part: PostingBlock[] = [];
  const write = async () => {
    if (!part.length) return;
    await c.query(`INSERT INTO memory_postings (mem, word, first, last, n, segs)
      SELECT $1, * FROM unnest($2::int[], $3::bigint[], $4::bigint[], $5::int[], $6::text[])`,
    [num, part.map((b) => b.word), part.map((b) => b.first), part.map((b) => b.last), part.map((b) => b.n), part.map((b) => b.segs)]);
    part = [];
  };
  for (const b of blocks) {
    part.push(b);
    if (part.length >= 20_000) await write();
  }
  await write();
}

/** A segment's id taken out of the blocks of its source's index words. */
async function unindex(c: Q, num: number, seg: number, source: string): Promise<void> {
  const blocks = (await c.query<{ ctid: string; first: string; segs: string }>(
    'SELECT ctid, first, segs FROM memory_postings WHERE mem = $1 AND word = ANY($2::int[]) AND first <= $3 AND last >= $3', [num, indexWords(source), seg])).rows;
  for (const b of blocks) {
    const ids = decodeBlock(Number(b.first), b.segs).filter((x) => x !== seg);
    if (!ids.length) await c.query('DELETE FROM memory_postings WHERE ctid = $1', [b.ctid]);
    else {
      const e = encodeBlock(0, ids);
      await c.query('UPDATE memory_postings SET first = $1, last = $2, n = $3, segs = $4 WHERE ctid = $5', [e.first, e.last, e.n, e.segs, b.ctid]);
    }
  }
}

/** Rows upserted under `num` in one statement; ids in the order of `rows` (undefined where a reviewed one stayed). */
async function write(c: Q, num: number, all: SegmentRow[], mode: AddMode, postings: PostingBuilder): Promise<(number | undefined)[]> {
  const rows = lastOfEachKey(all);
  if (!rows.length) return [];
  const now = Date.now();
  const col = <T>(f: (r: SegmentRow) => T) => rows.map(f);
  const res = await c.query<{ id: string; key: string; target_lang: string; inserted: boolean }>(`
    INSERT INTO memory_segments (mem, target_lang, key, source, target, source_markup, target_markup, reviewed, created_at, updated_at)
    SELECT $1, t, k, s, g, sm, tm, r, $2, $2 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::smallint[]) AS x(t, k, s, g, sm, tm, r)
    ON CONFLICT (mem, key, target_lang) DO UPDATE SET source = excluded.source, target = excluded.target, source_markup = excluded.source_markup,
      target_markup = excluded.target_markup, reviewed = excluded.reviewed, updated_at = excluded.updated_at
      ${mode === 'keep-reviewed' ? 'WHERE memory_segments.reviewed = 0' : ''}
    RETURNING id, key, target_lang, (xmax = 0) AS inserted`,
  [num, now, col((r) => r.targetLang), col((r) => r.key), col((r) => r.source), col((r) => r.target), col((r) => r.sourceMarkup ?? null),
    col((r) => r.targetMarkup ?? null), col((r) => (r.reviewed ? 1 : 0))]);
  const ids = new Map<string, { id: number; inserted: boolean }>();
  for (const r of res.rows) ids.set(`${r.key}\t${r.target_lang}`, { id: Number(r.id), inserted: r.inserted });
  return rows.map((r) => {
    const hit = ids.get(`${r.key}\t${r.targetLang}`);
    // A replaced segment keeps its id and its words (same key, same normalised source).
    if (hit?.inserted) postings.add(hit.id, r.words);
    return hit?.id;
  });
}
