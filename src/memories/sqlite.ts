// Memories on the process's SQLite connection (src/storage/sqlite), which the accounts use too. An import appends its
// chunks in short transactions under a staging row, its index words gathered in memory and written as posting blocks
// (postings.ts) a few million at a time; its last transaction fills the exact-match index (memory_keys) in key order
// and makes the segments the memory's. Until then the staged segments are no memory's: a killed import leaves the
// memory as it was, and its staging row is swept.
import type Database from 'better-sqlite3';
import type { SqliteStorage } from '../storage/index.ts';
import { decodeBlock, FLUSH_POSTINGS, PostingBuilder, type PostingBlock } from './postings.ts';
import {
  JOB_COLUMNS, jobOf, lastOfEachKey, memoryOf, segmentOf,
  type AddMode, type JobRecord, type MemoryJob, type MemoryRecord, type MemoryStore, type SegmentRecord, type SegmentRow,
} from './store.ts';
import { indexWords } from './text.ts';
import type { Memory, Segment, SegmentFilter, SegmentPage } from './types.ts';

const MEMORY = 'SELECT * FROM memories WHERE owner = ? AND id = ? AND state = \'ready\'';
const BY_KEY = 'FROM memory_keys k JOIN memory_segments s ON s.id = k.seg WHERE k.mem = ? AND k.key = ? AND k.target_lang = ?';

/** What a running import holds in memory: its postings not yet written, and the segments it appended. */
interface Staged {
  postings: PostingBuilder;
  rows: number;
}

export class SqliteMemoryStore implements MemoryStore {
  private readonly db: Database.Database;
  private readonly s;
  private readonly servedTx: (owner: string, period: string, day: string, chars: number) => void;
  private readonly staged = new Map<number, Staged>();

  constructor(storage: SqliteStorage) {
    // The process's one connection (src/storage/sqlite); the tables are made by its migrations.
    this.db = storage.db;
    // SQLite's lower() folds ASCII only: a filter on "Häuschen" must find "HÄUSCHEN".
    this.db.function('memory_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
    const db = this.db;
    // Every statement prepared here, once (src/storage/sqlite/open.ts: none is left for the collector).
    this.s = {
      addServed: db.prepare('INSERT INTO memory_usage (owner, period, chars) VALUES (?, ?, ?) ON CONFLICT (owner, period) DO UPDATE SET chars = chars + excluded.chars'),
      addServedDay: db.prepare('INSERT INTO usage_days (key_id, day, memory_chars) VALUES (?, ?, ?) ON CONFLICT (key_id, day) DO UPDATE SET memory_chars = memory_chars + excluded.memory_chars'),
      served: db.prepare('SELECT chars FROM memory_usage WHERE owner = ? AND period = ?'),
      insertMemory: db.prepare(`INSERT INTO memories (id, owner, name, source, targets, segment_count, state, into_num, heartbeat, created_at, updated_at)
        VALUES (@id, @owner, @name, @source, @targets, 0, @state, @into, @now, @now, @now)`),
      get: db.prepare(MEMORY),
      byNum: db.prepare('SELECT * FROM memories WHERE num = ?'),
      list: db.prepare('SELECT * FROM memories WHERE owner = ? AND state = \'ready\' ORDER BY created_at, id'),
      count: db.prepare('SELECT COUNT(*) AS n FROM memories WHERE owner = ? AND state = \'ready\''),
      rename: db.prepare('UPDATE memories SET name = ?, updated_at = ? WHERE owner = ? AND id = ? AND state = \'ready\''),
      heartbeat: db.prepare('UPDATE memories SET heartbeat = ? WHERE num = ?'),
      ready: db.prepare('UPDATE memories SET state = \'ready\' WHERE num = ?'),
      deleteMemory: db.prepare('DELETE FROM memories WHERE num = ?'),
      deleteSegments: db.prepare('DELETE FROM memory_segments WHERE mem = ?'),
      deleteKeys: db.prepare('DELETE FROM memory_keys WHERE mem = ?'),
      deletePostings: db.prepare('DELETE FROM memory_postings WHERE mem = ?'),
      find: db.prepare(`SELECT s.id, s.reviewed ${BY_KEY}`),
      insert: db.prepare(`INSERT INTO memory_segments (mem, target_lang, key, source, target, source_markup, target_markup, reviewed, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertKey: db.prepare('INSERT INTO memory_keys (mem, key, target_lang, seg) VALUES (?, ?, ?, ?)'),
      deleteKey: db.prepare('DELETE FROM memory_keys WHERE mem = ? AND key = ? AND target_lang = ?'),
      replace: db.prepare('UPDATE memory_segments SET source = ?, target = ?, source_markup = ?, target_markup = ?, reviewed = ?, updated_at = ? WHERE id = ?'),
      change: db.prepare(`UPDATE memory_segments SET key = ?, target_lang = ?, source = ?, target = ?, source_markup = ?, target_markup = ?, reviewed = ?, updated_at = ?
        WHERE id = ?`),
      segment: db.prepare('SELECT * FROM memory_segments WHERE mem = ? AND id = ?'),
      deleteSegment: db.prepare('DELETE FROM memory_segments WHERE mem = ? AND id = ?'),
      exact: db.prepare(`SELECT s.* ${BY_KEY}`),
      insertBlock: db.prepare('INSERT INTO memory_postings (mem, word, first, last, n, segs) VALUES (?, ?, ?, ?, ?, ?)'),
      total: db.prepare('SELECT COALESCE(SUM(n), 0) AS n FROM memory_postings WHERE mem = ? AND word = ?'),
      blocks: db.prepare('SELECT first, segs FROM memory_postings WHERE mem = ? AND word = ?'),
      holding: db.prepare('SELECT rowid AS r, first, segs FROM memory_postings WHERE mem = ? AND word = ? AND first <= ? AND last >= ?'),
      rewriteBlock: db.prepare('UPDATE memory_postings SET first = ?, last = ?, n = ?, segs = ? WHERE rowid = ?'),
      deleteBlock: db.prepare('DELETE FROM memory_postings WHERE rowid = ?'),
      byIds: db.prepare('SELECT * FROM memory_segments WHERE mem = ? AND target_lang = ? AND id IN (SELECT value FROM json_each(?))'),
      countKeys: db.prepare('SELECT COUNT(*) AS n FROM memory_keys WHERE mem = ?'),
      languages: db.prepare('SELECT DISTINCT target_lang FROM memory_keys WHERE mem = ?'),
      recount: db.prepare('UPDATE memories SET segment_count = @n, updated_at = @now, targets = @targets WHERE num = @num'),
      stale: db.prepare('SELECT num FROM memories WHERE state = \'staging\' AND heartbeat < ?'),
      // An import's end: the staged segments' keys in key order (a key given twice: the later segment), ...
      stagedKeys: db.prepare(`INSERT INTO memory_keys (mem, key, target_lang, seg) SELECT @num, key, target_lang, id FROM memory_segments
        WHERE mem = @staging ORDER BY key, target_lang, id ON CONFLICT (mem, key, target_lang) DO UPDATE SET seg = excluded.seg`),
      // ... the earlier segment of a key given twice dropped, ...
      stagedOrphans: db.prepare(`DELETE FROM memory_segments WHERE mem = @staging AND NOT EXISTS (SELECT 1 FROM memory_keys k
        WHERE k.mem = @num AND k.key = memory_segments.key AND k.target_lang = memory_segments.target_lang AND k.seg = memory_segments.id)`),
      // ... and, into an existing memory, the stored segments the file gives again replaced, ...
      replacedSegments: db.prepare(`DELETE FROM memory_segments WHERE id IN (SELECT k.seg FROM memory_segments b
        JOIN memory_keys k ON k.mem = @num AND k.key = b.key AND k.target_lang = b.target_lang WHERE b.mem = @staging)`),
      replacedKeys: db.prepare('DELETE FROM memory_keys WHERE mem = @num AND (key, target_lang) IN (SELECT key, target_lang FROM memory_segments WHERE mem = @staging)'),
      // ... then the segments and their blocks moved in.
      moveSegments: db.prepare('UPDATE memory_segments SET mem = @num WHERE mem = @staging'),
      movePostings: db.prepare('UPDATE memory_postings SET mem = @num WHERE mem = @staging'),
      insertJob: db.prepare(`INSERT INTO memory_jobs (id, owner, kind, status, token, memory_id, display_name, file_name, content_type, content_length, error, skipped, created_at, updated_at)
        VALUES (@id, @owner, @kind, @status, @token, @memoryId, @displayName, @fileName, @contentType, @contentLength, @error, @skipped, @createdAt, @updatedAt)`),
      getJob: db.prepare('SELECT * FROM memory_jobs WHERE id = ?'),
    };
    const served = db.transaction((owner: string, period: string, day: string, chars: number) => {
      this.s.addServed.run(owner, period, chars);
      this.s.addServedDay.run(owner, day, chars);
    });
    this.servedTx = (owner, period, day, chars) => served.immediate(owner, period, day, chars);
  }

  private memory(owner: string, id: string): Memory | undefined {
    const r = this.s.get.get(owner, id) as MemoryRecord | undefined;
    return r && memoryOf(r);
  }

  async create(m: Memory): Promise<void> {
    this.s.insertMemory.run({ id: m.id, owner: m.owner, name: m.name, source: m.source, targets: m.targets.join(','), state: 'ready', into: null, now: m.createdAt });
  }

  async get(owner: string, id: string): Promise<Memory | undefined> {
    return this.memory(owner, id);
  }

  async list(owner: string): Promise<Memory[]> {
    return (this.s.list.all(owner) as MemoryRecord[]).map(memoryOf);
  }

  async count(owner: string): Promise<number> {
    return (this.s.count.get(owner) as { n: number }).n;
  }

  async rename(owner: string, id: string, name: string): Promise<boolean> {
    return this.s.rename.run(name, Date.now(), owner, id).changes > 0;
  }

  async delete(owner: string, id: string): Promise<boolean> {
    const m = this.memory(owner, id);
    if (!m) return false;
    this.db.transaction(() => this.drop(m.num))();
    return true;
  }

  private drop(num: number): void {
    this.staged.delete(num);
    this.s.deletePostings.run(num);
    this.s.deleteKeys.run(num);
    this.s.deleteSegments.run(num);
    this.s.deleteMemory.run(num);
  }

  async beginImport(m: Memory, into?: string): Promise<number> {
    let intoNum: number | null = null;
    if (into !== undefined) intoNum = this.memory(m.owner, into)?.num ?? null;
    const r = this.s.insertMemory.run({ id: m.id, owner: m.owner, name: m.name, source: m.source, targets: '', state: 'staging', into: intoNum, now: Date.now() });
    const num = Number(r.lastInsertRowid);
    this.staged.set(num, { postings: new PostingBuilder(), rows: 0 });
    return num;
  }

  private stagedOf(staging: number): Staged {
    const st = this.staged.get(staging);
    if (!st) throw new Error('memory import: the staging area is gone');
    return st;
  }

  async importChunk(staging: number, rows: SegmentRow[]): Promise<void> {
    const st = this.stagedOf(staging);
    this.db.transaction(() => {
      this.s.heartbeat.run(Date.now(), staging);
      const now = Date.now();
      // Appended only: the staging area has no key index; a key given twice is settled at the end (finishImport).
      for (const r of lastOfEachKey(rows)) {
        const id = Number(this.s.insert.run(staging, r.targetLang, r.key, r.source, r.target, r.sourceMarkup ?? null, r.targetMarkup ?? null, r.reviewed ? 1 : 0, now, now).lastInsertRowid);
        st.postings.add(id, r.words);
        st.rows++;
      }
      if (st.postings.size >= FLUSH_POSTINGS) this.writeBlocks(staging, st.postings.take());
    })();
  }

  private writeBlocks(num: number, blocks: Iterable<PostingBlock>): void {
    for (const b of blocks) this.s.insertBlock.run(num, b.word, b.first, b.last, b.n, b.segs);
  }

  async finishImport(staging: number): Promise<Memory> {
    const st = this.staged.get(staging) ?? { postings: new PostingBuilder(), rows: 0 };
    try {
      return this.db.transaction(() => {
        const rec = this.s.byNum.get(staging) as (MemoryRecord & { into_num: number | null; state: string }) | undefined;
        if (!rec || rec.state !== 'staging') throw new Error('memory import: the staging area is gone');
        this.writeBlocks(staging, st.postings.take());
        const num = rec.into_num ?? staging;
        const p = { num, staging };
        if (num !== staging) {
          if (!this.s.byNum.get(num)) throw new Error('memory import: the memory was deleted during the import');
          // Stored segments the file gives again are replaced by the file's (their stale postings name no segment).
          this.s.replacedSegments.run(p);
          this.s.replacedKeys.run(p);
        }
        const before = num === staging ? 0 : (this.s.countKeys.get(num) as { n: number }).n;
        this.s.stagedKeys.run(p);
        if ((this.s.countKeys.get(num) as { n: number }).n - before < st.rows) this.s.stagedOrphans.run(p);
        if (num !== staging) {
          this.s.moveSegments.run(p);
          this.s.movePostings.run(p);
          this.s.deleteMemory.run(staging);
        } else {
          this.s.ready.run(staging);
        }
        this.recount(num);
        return memoryOf(this.s.byNum.get(num) as MemoryRecord);
      })();
    } finally {
      this.staged.delete(staging);
    }
  }

  async abortImport(staging: number): Promise<void> {
    this.db.transaction(() => this.drop(staging))();
  }

  async sweep(before: number): Promise<number> {
    const stale = this.s.stale.all(before) as { num: number }[];
    for (const { num } of stale) this.db.transaction(() => this.drop(num))();
    return stale.length;
  }

  private recount(num: number, targets?: string): void {
    const n = (this.s.countKeys.get(num) as { n: number }).n;
    targets ??= (this.s.languages.all(num) as { target_lang: string }[]).map((r) => r.target_lang).sort().join(',');
    this.s.recount.run({ num, n, now: Date.now(), targets });
  }

  /** Rows written under a ready memory `num`; answers the ids (undefined where a reviewed segment kept its place). */
  private write(num: number, rows: SegmentRow[], mode: AddMode): (number | undefined)[] {
    const now = Date.now();
    const postings = new PostingBuilder();
    const ids = lastOfEachKey(rows).map((r) => {
      const old = this.s.find.get(num, r.key, r.targetLang) as { id: number; reviewed: number } | undefined;
      const reviewed = r.reviewed ? 1 : 0;
      if (old) {
        // The same key is the same normalised source: the same index words, the postings stay.
        if (mode === 'keep-reviewed' && old.reviewed === 1) return undefined;
        this.s.replace.run(r.source, r.target, r.sourceMarkup ?? null, r.targetMarkup ?? null, reviewed, now, old.id);
        return old.id;
      }
      const id = Number(this.s.insert.run(num, r.targetLang, r.key, r.source, r.target, r.sourceMarkup ?? null, r.targetMarkup ?? null, reviewed, now, now).lastInsertRowid);
      this.s.insertKey.run(num, r.key, r.targetLang, id);
      postings.add(id, r.words);
      return id;
    });
    this.writeBlocks(num, postings.take());
    return ids;
  }

  /** A segment's id taken out of the blocks of its source's index words. */
  private unindex(num: number, seg: number, source: string): void {
    for (const w of indexWords(source)) {
      for (const b of this.s.holding.all(num, w, seg, seg) as { r: number; first: number; segs: string }[]) {
        const ids = decodeBlock(b.first, b.segs).filter((x) => x !== seg);
        if (!ids.length) this.s.deleteBlock.run(b.r);
        else {
          let segs = '';
          for (let i = 1; i < ids.length; i++) segs += (i > 1 ? ',' : '') + (ids[i]! - ids[i - 1]!);
          this.s.rewriteBlock.run(ids[0], ids[ids.length - 1], ids.length, segs, b.r);
        }
      }
    }
  }

  async add(owner: string, id: string, rows: SegmentRow[], mode: AddMode): Promise<(number | undefined)[]> {
    const m = this.memory(owner, id);
    if (!m) return [];
    return this.db.transaction(() => {
      const ids = this.write(m.num, rows, mode);
      this.recount(m.num, [...new Set([...m.targets, ...rows.map((r) => r.targetLang)])].sort().join(','));
      return ids;
    })();
  }

  async updateSegment(owner: string, id: string, segId: number, row: SegmentRow): Promise<Segment | undefined> {
    const m = this.memory(owner, id);
    if (!m) return undefined;
    return this.db.transaction(() => {
      const old = this.s.segment.get(m.num, segId) as (SegmentRecord & { key: string }) | undefined;
      if (!old) return undefined;
      const clash = this.s.find.get(m.num, row.key, row.targetLang) as { id: number } | undefined;
      if (clash && clash.id !== segId) throw Object.assign(new Error('duplicate'), { code: 'duplicate' });
      this.unindex(m.num, segId, old.source);
      this.s.deleteKey.run(m.num, old.key, old.target_lang);
      this.s.change.run(row.key, row.targetLang, row.source, row.target, row.sourceMarkup ?? null, row.targetMarkup ?? null, row.reviewed ? 1 : 0, Date.now(), segId);
      this.s.insertKey.run(m.num, row.key, row.targetLang, segId);
      const postings = new PostingBuilder();
      postings.add(segId, row.words);
      this.writeBlocks(m.num, postings.take());
      this.recount(m.num);
      return segmentOf(this.s.segment.get(m.num, segId) as SegmentRecord);
    })();
  }

  async deleteSegment(owner: string, id: string, segId: number): Promise<boolean> {
    const m = this.memory(owner, id);
    if (!m) return false;
    return this.db.transaction(() => {
      const old = this.s.segment.get(m.num, segId) as (SegmentRecord & { key: string }) | undefined;
      if (!old) return false;
      this.s.deleteSegment.run(m.num, segId);
      this.s.deleteKey.run(m.num, old.key, old.target_lang);
      this.unindex(m.num, segId, old.source);
      this.recount(m.num);
      return true;
    })();
  }

  async getSegment(owner: string, id: string, segId: number): Promise<Segment | undefined> {
    const m = this.memory(owner, id);
    const r = m && (this.s.segment.get(m.num, segId) as SegmentRecord | undefined);
    return r ? segmentOf(r) : undefined;
  }

  async segments(owner: string, id: string, f: SegmentFilter): Promise<SegmentPage | undefined> {
    const m = this.memory(owner, id);
    if (!m) return undefined;
    const where = ['mem = ?', 'id > ?'];
    const params: unknown[] = [m.num, f.after ?? 0];
    if (f.targetLang) { where.push('target_lang = ?'); params.push(f.targetLang); }
    if (f.reviewed !== undefined) { where.push('reviewed = ?'); params.push(f.reviewed ? 1 : 0); }
    if (f.text) {
      if (f.caseSensitive) where.push('(instr(source, ?) > 0 OR instr(target, ?) > 0)');
      else where.push('(instr(memory_fold(source), memory_fold(?)) > 0 OR instr(memory_fold(target), memory_fold(?)) > 0)');
      params.push(f.text, f.text);
    }
    const rows = this.db.prepare(`SELECT * FROM memory_segments WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`).all(...params, f.limit + 1) as SegmentRecord[];
    const segments = rows.slice(0, f.limit).map(segmentOf);
    return { segments, total: m.segmentCount, ...(rows.length > f.limit ? { next: segments[segments.length - 1]!.id } : {}) };
  }

  async exact(m: Memory, targetLang: string, key: string): Promise<Segment | undefined> {
    const r = this.s.exact.get(m.num, key, targetLang) as SegmentRecord | undefined;
    return r && segmentOf(r);
  }

  async exactMany(m: Memory, targetLang: string, keys: string[]): Promise<Map<string, Segment>> {
    const out = new Map<string, Segment>();
    for (const k of new Set(keys)) {
      const r = this.s.exact.get(m.num, k, targetLang) as SegmentRecord | undefined;
      if (r) out.set(k, segmentOf(r));
    }
    return out;
  }

  async postings(m: Memory, words: number[], cap: number): Promise<Map<number, number[] | null>> {
    const out = new Map<number, number[] | null>();
    for (const w of words) {
      // A common word's blocks are counted, not read.
      if ((this.s.total.get(m.num, w) as { n: number }).n > cap) {
        out.set(w, null);
        continue;
      }
      const ids: number[] = [];
      for (const b of this.s.blocks.all(m.num, w) as { first: number; segs: string }[]) decodeBlock(b.first, b.segs, ids);
      out.set(w, ids);
    }
    return out;
  }

  async byIds(m: Memory, targetLang: string, ids: number[]): Promise<Segment[]> {
    if (!ids.length) return [];
    return (this.s.byIds.all(m.num, targetLang, JSON.stringify(ids)) as SegmentRecord[]).map(segmentOf);
  }

  async addServed(owner: string, period: string, chars: number, day: string): Promise<void> {
    // The month's count and the day's (usage_days, the per-day usage report) in one transaction.
    this.servedTx(owner, period, day, chars);
  }

  async served(owner: string, period: string): Promise<number> {
    return (this.s.served.get(owner, period) as { chars: number } | undefined)?.chars ?? 0;
  }

  async insertJob(job: MemoryJob): Promise<void> {
    this.s.insertJob.run({
      ...job, memoryId: job.memoryId ?? null, displayName: job.displayName ?? null, fileName: job.fileName ?? null,
      contentType: job.contentType ?? null, contentLength: job.contentLength ?? null, error: job.error ?? null,
    });
  }

  async getJob(id: string): Promise<MemoryJob | undefined> {
    const r = this.s.getJob.get(id) as JobRecord | undefined;
    return r && jobOf(r);
  }

  async updateJob(id: string, patch: Partial<MemoryJob>): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [k, v] of Object.entries({ ...patch, updatedAt: Date.now() })) {
      const col = JOB_COLUMNS[k];
      if (!col) continue;
      sets.push(`${col} = ?`);
      params.push(v ?? null);
    }
    this.db.prepare(`UPDATE memory_jobs SET ${sets.join(', ')} WHERE id = ?`).run(...params, id);
  }

  /** Nothing of its own to release: the connection belongs to the storage layer. */
  async close(): Promise<void> {}
}
