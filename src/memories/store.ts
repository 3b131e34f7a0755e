// Where memories live: the accounts database (SQLite file or PostgreSQL), in tables of their own (made by the migrations of src/storage).
// The book (book.ts) computes keys and index words; a store reads and writes rows, the index words as posting
// blocks (postings.ts).
import type { Memory, Segment, SegmentFilter, SegmentPage } from './types.ts';

/** A segment ready to store: its exact key and index words computed (text.ts). */
export interface SegmentRow {
  key: string;
  words: number[];
  source: string;
  target: string;
  targetLang: string;
  reviewed: boolean;
  sourceMarkup?: string | undefined;
  targetMarkup?: string | undefined;
}

/** How an add treats a segment already stored for the same key and language. */
export type AddMode = 'replace' | 'keep-reviewed';

export interface MemoryJob {
  id: string;
  owner: string;
  kind: 'import' | 'export';
  status: 'awaiting_input' | 'processing' | 'completed' | 'failed';
  token: string;
  memoryId?: string | undefined;
  displayName?: string | undefined;
  fileName?: string | undefined;
  contentType?: string | undefined;
  contentLength?: number | undefined;
  error?: string | undefined;
  skipped: number;
  createdAt: number;
  updatedAt: number;
}

export interface MemoryStore {
  /** A new, empty memory (visible at once). */
  create(m: Memory): Promise<void>;
  get(owner: string, id: string): Promise<Memory | undefined>;
  list(owner: string): Promise<Memory[]>;
  count(owner: string): Promise<number>;
  rename(owner: string, id: string, name: string): Promise<boolean>;
  /** The memory, its segments and index words; false when the owner has none with that id. */
  delete(owner: string, id: string): Promise<boolean>;

  /** A staging area for an import: a new memory `m` (into undefined) or segments to merge into memory `into`. */
  beginImport(m: Memory, into?: string): Promise<number>;
  /** One chunk of an import, in its own transaction; touches the heartbeat. Duplicate keys: the later one wins. */
  importChunk(staging: number, rows: SegmentRow[]): Promise<void>;
  /** The import's last transaction: the staging segments become the memory's (or the new memory appears). */
  finishImport(staging: number): Promise<Memory>;
  abortImport(staging: number): Promise<void>;
  /** Staging areas whose heartbeat is older than `before` (a killed import): removed. */
  sweep(before: number): Promise<number>;

  /** Segments added or changed in one transaction; answers the stored ids (undefined for a learned one refused). */
  add(owner: string, id: string, rows: SegmentRow[], mode: AddMode): Promise<(number | undefined)[]>;
  updateSegment(owner: string, id: string, segId: number, row: SegmentRow): Promise<Segment | undefined>;
  deleteSegment(owner: string, id: string, segId: number): Promise<boolean>;
  getSegment(owner: string, id: string, segId: number): Promise<Segment | undefined>;
  segments(owner: string, id: string, filter: SegmentFilter): Promise<SegmentPage | undefined>;

  /** The stored segment for an exact key and target language (reviewed or learned). */
  exact(memory: Memory, targetLang: string, key: string): Promise<Segment | undefined>;
  /** Exact segments of many keys at once (keys absent from the memory are absent from the map). */
  exactMany(memory: Memory, targetLang: string, keys: string[]): Promise<Map<string, Segment>>;
  /**
   * Posting lists of index words (postings.ts): for each word, its segment ids, or null for a common word (more than
   * `cap` ids), which the lookup passes over. A list may name a segment replaced by an import since: byIds leaves it out.
   */
  postings(memory: Memory, words: number[], cap: number): Promise<Map<number, number[] | null>>;
  /** Segments by id, of the memory and target language. */
  byIds(memory: Memory, targetLang: string, ids: number[]): Promise<Segment[]>;

  /** Characters served from a key's memories in a quota period (YYYY-MM), added to. */
  /** `day` (UTC `YYYY-MM-DD`, within `period`): the characters are added to the key's day in usage_days too. */
  addServed(owner: string, period: string, chars: number, day: string): Promise<void>;
  served(owner: string, period: string): Promise<number>;

  insertJob(job: MemoryJob): Promise<void>;
  getJob(id: string): Promise<MemoryJob | undefined>;
  updateJob(id: string, patch: Partial<Omit<MemoryJob, 'id' | 'owner' | 'kind' | 'token'>>): Promise<void>;

  close(): Promise<void>;
}

export interface MemoryRecord {
  num: number | string;
  id: string;
  owner: string;
  name: string;
  source: string;
  targets: string;
  segment_count: number | string;
  created_at: number | string;
  updated_at: number | string;
}

export const memoryOf = (r: MemoryRecord): Memory => ({
  num: Number(r.num),
  id: r.id,
  owner: r.owner,
  name: r.name,
  source: r.source,
  targets: r.targets ? r.targets.split(',') : [],
  segmentCount: Number(r.segment_count),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export interface SegmentRecord {
  id: number | string;
  source: string;
  target: string;
  target_lang: string;
  reviewed: number;
  source_markup: string | null;
  target_markup: string | null;
  created_at: number | string;
  updated_at: number | string;
}

export const segmentOf = (r: SegmentRecord): Segment => ({
  id: Number(r.id),
  source: r.source,
  target: r.target,
  targetLang: r.target_lang,
  reviewed: Number(r.reviewed) === 1,
  ...(r.source_markup != null ? { sourceMarkup: r.source_markup } : {}),
  ...(r.target_markup != null ? { targetMarkup: r.target_markup } : {}),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export interface JobRecord {
  id: string;
  owner: string;
  kind: string;
  status: string;
  token: string;
  memory_id: string | null;
  display_name: string | null;
  file_name: string | null;
  content_type: string | null;
  content_length: number | string | null;
  error: string | null;
  skipped: number | string;
  created_at: number | string;
  updated_at: number | string;
}

export const jobOf = (r: JobRecord): MemoryJob => ({
  id: r.id,
  owner: r.owner,
  kind: r.kind as MemoryJob['kind'],
  status: r.status as MemoryJob['status'],
  token: r.token,
  memoryId: r.memory_id ?? undefined,
  displayName: r.display_name ?? undefined,
  fileName: r.file_name ?? undefined,
  contentType: r.content_type ?? undefined,
  contentLength: r.content_length == null ? undefined : Number(r.content_length),
  error: r.error ?? undefined,
  skipped: Number(r.skipped),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** Job fields as columns, for an UPDATE. */
export const JOB_COLUMNS: Record<string, string> = {
  status: 'status', memoryId: 'memory_id', displayName: 'display_name', fileName: 'file_name', contentType: 'content_type',
  contentLength: 'content_length', error: 'error', skipped: 'skipped', createdAt: 'created_at', updatedAt: 'updated_at',
};

/** Rows of a chunk with duplicate (key, language) removed, the later kept (an upsert may touch a row once). */
export function lastOfEachKey(rows: SegmentRow[]): SegmentRow[] {
  const at = new Map<string, SegmentRow>();
  for (const r of rows) {
    const k = `${r.key}\t${r.targetLang}`;
    at.delete(k);
    at.set(k, r);
  }
  return at.size === rows.length ? rows : [...at.values()];
}
