// Memories on the process's SQLite connection (src/storage/sqlite), which the accounts use too. An import writes
// its chunks in short transactions under a staging row, so the accounts' writes are never held up for long, and
// makes them the memory's in one last transaction.
import type Database from 'better-sqlite3';
import type { SqliteStorage } from '../storage/index.ts';
import {
  JOB_COLUMNS, jobOf, lastOfEachKey, memoryOf, segmentOf,
  type AddMode, type JobRecord, type MemoryJob, type MemoryRecord, type MemoryStore, type SegmentRecord, type SegmentRow,
} from './store.ts';
import type { Memory, Segment, SegmentFilter, SegmentPage } from './types.ts';

const MEMORY = 'SELECT * FROM memories WHERE owner = ? AND id = ? AND state = \'ready\'';

export class SqliteMemoryStore implements MemoryStore {
  private readonly db: Database.Database;
  private readonly s;
  private readonly servedTx: (owner: string, period: string, day: string, chars: number) => void;
  private readonly wordInserts = new Map<number, Database.Statement>();

  constructor(storage: SqliteStorage) {
    // The process's one connection (src/storage/sqlite); the tables are made by its migrations.
    this.db = storage.db;
    // SQLite's lower() folds ASCII only: a filter on "Häuschen" must find "HÄUSCHEN".
    this.db.function('memory_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
    const db = this.db;
    this.s = {
      addServed: db.prepare('INSERT INTO memory_usage (owner, period, chars) VALUES (?, ?, ?) ON CONFLICT (owner, period) DO UPDATE SET chars = chars + excluded.chars'),
      addServedDay: db.prepare('INSERT INTO usage_days (key_id, day, memory_chars) VALUES (?, ?, ?) ON CONFLICT (key_id, day) DO UPDATE SET memory_chars = memory_chars + excluded.memory_chars'),
      insertMemory: db.prepare(`INSERT INTO memories (id, owner, name, source, targets, segment_count, state, into_num, heartbeat, created_at, updated_at)
        VALUES (@id, @owner, @name, @source, @targets, 0, @state, @into, @now, @now, @now)`),
      get: db.prepare(MEMORY),
      byNum: db.prepare('SELECT * FROM memories WHERE num = ?'),
      list: db.prepare('SELECT * FROM memories WHERE owner = ? AND state = \'ready\' ORDER BY created_at, id'),
      count: db.prepare('SELECT COUNT(*) AS n FROM memories WHERE owner = ? AND state = \'ready\''),
      rename: db.prepare('UPDATE memories SET name = ?, updated_at = ? WHERE owner = ? AND id = ? AND state = \'ready\''),
      heartbeat: db.prepare('UPDATE memories SET heartbeat = ? WHERE num = ?'),
      deleteMemory: db.prepare('DELETE FROM memories WHERE num = ?'),
      deleteSegments: db.prepare('DELETE FROM memory_segments WHERE mem = ?'),
      deleteWords: db.prepare('DELETE FROM memory_words WHERE mem = ?'),
      find: db.prepare('SELECT id, reviewed FROM memory_segments WHERE mem = ? AND key = ? AND target_lang = ?'),
      insert: db.prepare(`INSERT INTO memory_segments (mem, target_lang, key, source, target, source_markup, target_markup, reviewed, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      replace: db.prepare('UPDATE memory_segments SET source = ?, target = ?, source_markup = ?, target_markup = ?, reviewed = ?, updated_at = ? WHERE id = ?'),
      segment: db.prepare('SELECT * FROM memory_segments WHERE mem = ? AND id = ?'),
      deleteSegment: db.prepare('DELETE FROM memory_segments WHERE mem = ? AND id = ?'),
      deleteSegmentWords: db.prepare('DELETE FROM memory_words WHERE mem = ? AND seg = ?'),
      exact: db.prepare('SELECT * FROM memory_segments WHERE mem = ? AND key = ? AND target_lang = ?'),
      postings: db.prepare('SELECT seg FROM memory_words WHERE mem = ? AND word = ? LIMIT ?'),
      recount: db.prepare('UPDATE memories SET segment_count = (SELECT COUNT(*) FROM memory_segments WHERE mem = @num), updated_at = @now, targets = @targets WHERE num = @num'),
      languages: db.prepare('SELECT DISTINCT target_lang FROM memory_segments WHERE mem = ?'),
      stale: db.prepare('SELECT num FROM memories WHERE state = \'staging\' AND heartbeat < ?'),
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
    this.s.deleteWords.run(num);
    this.s.deleteSegments.run(num);
    this.s.deleteMemory.run(num);
  }

  async beginImport(m: Memory, into?: string): Promise<number> {
    let intoNum: number | null = null;
    if (into !== undefined) intoNum = this.memory(m.owner, into)?.num ?? null;
    const r = this.s.insertMemory.run({ id: m.id, owner: m.owner, name: m.name, source: m.source, targets: '', state: 'staging', into: intoNum, now: Date.now() });
    return Number(r.lastInsertRowid);
  }

  async importChunk(staging: number, rows: SegmentRow[]): Promise<void> {
    this.db.transaction(() => {
      this.s.heartbeat.run(Date.now(), staging);
      this.write(staging, rows, 'replace');
    })();
  }

  async finishImport(staging: number): Promise<Memory> {
    return this.db.transaction(() => {
      const st = this.s.byNum.get(staging) as (MemoryRecord & { into_num: number | null; state: string }) | undefined;
      if (!st || st.state !== 'staging') throw new Error('memory import: the staging area is gone');
      let num = staging;
      if (st.into_num !== null) {
        num = st.into_num;
        if (!this.s.byNum.get(num)) throw new Error('memory import: the memory was deleted during the import');
        // Stored segments the file gives again are replaced by the file's.
        this.db.prepare(`DELETE FROM memory_words WHERE mem = @num AND seg IN (SELECT a.id FROM memory_segments a JOIN memory_segments b
          ON b.mem = @staging AND a.key = b.key AND a.target_lang = b.target_lang WHERE a.mem = @num)`).run({ num, staging });
        this.db.prepare(`DELETE FROM memory_segments WHERE mem = @num AND id IN (SELECT a.id FROM memory_segments a JOIN memory_segments b
          ON b.mem = @staging AND a.key = b.key AND a.target_lang = b.target_lang WHERE a.mem = @num)`).run({ num, staging });
        this.db.prepare('UPDATE memory_segments SET mem = ? WHERE mem = ?').run(num, staging);
        this.db.prepare('UPDATE memory_words SET mem = ? WHERE mem = ?').run(num, staging);
        this.s.deleteMemory.run(staging);
      } else {
        this.db.prepare('UPDATE memories SET state = \'ready\' WHERE num = ?').run(staging);
      }
      this.recount(num);
      return memoryOf(this.s.byNum.get(num) as MemoryRecord);
    })();
  }

  async abortImport(staging: number): Promise<void> {
    this.db.transaction(() => this.drop(staging))();
  }

  async sweep(before: number): Promise<number> {
    const stale = this.s.stale.all(before) as { num: number }[];
    for (const { num } of stale) this.db.transaction(() => this.drop(num))();
    return stale.length;
  }

  private recount(num: number): void {
    const targets = (this.s.languages.all(num) as { target_lang: string }[]).map((r) => r.target_lang).sort().join(',');
    this.s.recount.run({ num, now: Date.now(), targets });
  }

  /** Rows written under `num`; answers the ids (undefined where a reviewed segment kept its place). */
  private write(num: number, rows: SegmentRow[], mode: AddMode): (number | undefined)[] {
    const now = Date.now();
    return lastOfEachKey(rows).map((r) => {
      const old = this.s.find.get(num, r.key, r.targetLang) as { id: number; reviewed: number } | undefined;
      const reviewed = r.reviewed ? 1 : 0;
      if (old) {
        if (mode === 'keep-reviewed' && old.reviewed === 1) return undefined;
        this.s.replace.run(r.source, r.target, r.sourceMarkup ?? null, r.targetMarkup ?? null, reviewed, now, old.id);
        return old.id;
      }
      const id = Number(this.s.insert.run(num, r.targetLang, r.key, r.source, r.target, r.sourceMarkup ?? null, r.targetMarkup ?? null, reviewed, now, now).lastInsertRowid);
      if (r.words.length) this.wordInsert(r.words.length).run(...r.words.flatMap((w) => [num, w, id]));
      return id;
    });
  }

  private wordInsert(n: number): Database.Statement {
    let st = this.wordInserts.get(n);
    if (!st) {
      st = this.db.prepare(`INSERT OR IGNORE INTO memory_words (mem, word, seg) VALUES ${Array.from({ length: n }, () => '(?, ?, ?)').join(', ')}`);
      this.wordInserts.set(n, st);
    }
    return st;
  }

  async add(owner: string, id: string, rows: SegmentRow[], mode: AddMode): Promise<(number | undefined)[]> {
    const m = this.memory(owner, id);
    if (!m) return [];
    return this.db.transaction(() => {
      const ids = this.write(m.num, rows, mode);
      this.recountSmall(m, rows);
      return ids;
    })();
  }

  /** segment_count and targets after a few segments changed: counted on the key index, not the whole table. */
  private recountSmall(m: Memory, rows: SegmentRow[]): void {
    const n = (this.db.prepare('SELECT COUNT(*) AS n FROM memory_segments WHERE mem = ?').get(m.num) as { n: number }).n;
    const targets = [...new Set([...m.targets, ...rows.map((r) => r.targetLang)])].sort().join(',');
    this.db.prepare('UPDATE memories SET segment_count = ?, targets = ?, updated_at = ? WHERE num = ?').run(n, targets, Date.now(), m.num);
  }

  async updateSegment(owner: string, id: string, segId: number, row: SegmentRow): Promise<Segment | undefined> {
    const m = this.memory(owner, id);
    if (!m) return undefined;
    return this.db.transaction(() => {
      if (!this.s.segment.get(m.num, segId)) return undefined;
      const clash = this.s.find.get(m.num, row.key, row.targetLang) as { id: number } | undefined;
      if (clash && clash.id !== segId) throw Object.assign(new Error('duplicate'), { code: 'duplicate' });
      this.s.deleteSegmentWords.run(m.num, segId);
      this.db.prepare(`UPDATE memory_segments SET key = ?, target_lang = ?, source = ?, target = ?, source_markup = ?, target_markup = ?, reviewed = ?, updated_at = ?
        WHERE id = ?`).run(row.key, row.targetLang, row.source, row.target, row.sourceMarkup ?? null, row.targetMarkup ?? null, row.reviewed ? 1 : 0, Date.now(), segId);
      if (row.words.length) this.wordInsert(row.words.length).run(...row.words.flatMap((w) => [m.num, w, segId]));
      this.recount(m.num);
      return segmentOf(this.s.segment.get(m.num, segId) as SegmentRecord);
    })();
  }

  async deleteSegment(owner: string, id: string, segId: number): Promise<boolean> {
    const m = this.memory(owner, id);
    if (!m) return false;
    return this.db.transaction(() => {
      if (this.s.deleteSegment.run(m.num, segId).changes === 0) return false;
      this.s.deleteSegmentWords.run(m.num, segId);
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

  async postings(m: Memory, words: number[], cap: number): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    for (const w of words) out.set(w, (this.s.postings.raw().all(m.num, w, cap + 1) as [number][]).map((r) => r[0]));
    return out;
  }

  async byIds(m: Memory, targetLang: string, ids: number[]): Promise<Segment[]> {
    if (!ids.length) return [];
    const rows = this.db.prepare(`SELECT * FROM memory_segments WHERE mem = ? AND target_lang = ? AND id IN (${ids.map(() => '?').join(',')})`)
      .all(m.num, targetLang, ...ids) as SegmentRecord[];
    return rows.map(segmentOf);
  }

  async addServed(owner: string, period: string, chars: number, day: string): Promise<void> {
    // The month's count and the day's (usage_days, the per-day usage report) in one transaction.
    this.servedTx(owner, period, day, chars);
  }

  async served(owner: string, period: string): Promise<number> {
    return (this.db.prepare('SELECT chars FROM memory_usage WHERE owner = ? AND period = ?').get(owner, period) as { chars: number } | undefined)?.chars ?? 0;
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
