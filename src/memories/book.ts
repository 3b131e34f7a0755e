// The memory operations every surface shares (/v1/memories, DeepL's /v3/translation_memories, the CLI, and the
// service's translation): a key's memories made, imported, exported, listed, edited and deleted, and looked up.
// Another key's memory does not exist for a caller (404, as an unknown id).
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { periodOf } from '../accounts/period.ts';
import { fullCollection } from '../config/full-collection.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import { readDelimited } from './delimited.ts';
import type { MemoryJob, MemoryStore, SegmentRow } from './store.ts';
import { exactKey, indexWords, maxDistance, normalise, similarityOfTokens, tokenDistance, tokens } from './text.ts';
import { MemoryFileError, readTmx, type TmxUnit } from './tmx-read.ts';
import { writeTmx } from './tmx-write.ts';
import type { Memory, MemoryLimits, MemoryMatch, NewSegment, Segment, SegmentFilter, SegmentPage } from './types.ts';

export const memoryNotFound = (id: string) => new ApiError(404, 'invalid_request', `Translation memory '${id.slice(0, 100)}' not found.`);
export const jobNotFound = (id: string) => new ApiError(404, 'invalid_request', `Translation memory job '${id.slice(0, 100)}' not found.`);

export type ImportFormat = 'tmx' | 'tsv' | 'csv';

export interface ImportOptions {
  format: ImportFormat;
  /** An existing memory to add the file's segments to; otherwise a new memory is made. */
  into?: string | undefined;
  name?: unknown;
  /** Source language: required for TSV/CSV and for a TMX whose header says srclang="*all*". */
  source?: unknown;
  /** Target language of TSV/CSV. */
  target?: unknown;
}

export interface ImportResult {
  memory: Memory;
  imported: number;
  skipped: number;
}

/** What a memory holds for one sentence: its exact segment, and the fuzzy matches at or above the threshold. */
export interface Lookup {
  exact?: Segment;
  matches: MemoryMatch[];
}

/** Segments written to the store per transaction during an import. */
const CHUNK = 2000;
/**
 * Chunks between two full collections during an import: the chunks' strings outlive a young collection while the
 * store writes them (PostgreSQL's driver holds them until the statement's answer), and V8 left to itself lets them
 * pile up to hundreds of megabytes in a million-unit import (docs/memories.md, "Speed").
 */
const CHUNKS_PER_COLLECTION = 50;
/** A posting list longer than this marks a common word, passed over by the fuzzy lookup. */
const POSTING_CAP = 1000;
/** Memories whose common words are remembered (the ones used last). */
const COMMON_CACHE = 256;
/** Candidates (most shared words) whose similarity is computed. */
const CANDIDATES = 40;
/** A staging area untouched this long belongs to an import that was killed. */
export const STALE_IMPORT_MS = 10 * 60_000;

export class MemoryBook {
  /** Per memory (its row number), the index words whose posting lists are longer than POSTING_CAP, as of `updatedAt`. */
  private readonly common = new Map<number, { updatedAt: number; words: Set<number> }>();

  constructor(private readonly store: MemoryStore, readonly limits: MemoryLimits, private readonly version = '1') {}

  async create(owner: string, name: unknown, source: unknown, targets: unknown = []): Promise<Memory> {
    const now = Date.now();
    const list = Array.isArray(targets) ? targets : targets === undefined || targets === null || targets === '' ? [] : [targets];
    const src = language('source', source);
    const m: Memory = {
      id: randomUUID(), num: 0, owner, name: checkName(name), source: src,
      targets: [...new Set(list.map((t) => language('target', t)))].sort(), segmentCount: 0, createdAt: now, updatedAt: now,
    };
    if (m.targets.includes(src)) throw invalidRequest(`A memory's target languages must differ from its source ('${src}').`);
    await this.checkCount(owner);
    await this.store.create(m);
    return (await this.store.get(owner, m.id))!;
  }

  private async checkCount(owner: string): Promise<void> {
    if ((await this.store.count(owner)) >= this.limits.perKey) {
      throw invalidRequest(`This key already has ${this.limits.perKey} translation memories (DRAGOMAN_MEMORIES_PER_KEY): delete one first.`);
    }
  }

  async get(owner: string, id: string): Promise<Memory> {
    const m = await this.store.get(owner, id);
    if (!m) throw memoryNotFound(id);
    return m;
  }

  list(owner: string): Promise<Memory[]> {
    return this.store.list(owner);
  }

  async rename(owner: string, id: string, name: unknown): Promise<Memory> {
    if (!(await this.store.rename(owner, id, checkName(name)))) throw memoryNotFound(id);
    return this.get(owner, id);
  }

  async delete(owner: string, id: string): Promise<void> {
    if (!(await this.store.delete(owner, id))) throw memoryNotFound(id);
  }

  /** Removes what imports killed mid-way left behind (invisible to every key meanwhile). */
  sweep(now = Date.now()): Promise<number> {
    return this.store.sweep(now - STALE_IMPORT_MS);
  }

  /**
   * A file's segments, streamed into a staging area in short transactions and made the memory's in one last one:
   * a failure (a bad line, a limit, a crash) leaves the memory as it was. Refusals are 400s naming the line.
   */
  async import(owner: string, opts: ImportOptions, input: AsyncIterable<Uint8Array>): Promise<ImportResult> {
    const into = opts.into === undefined ? undefined : await this.get(owner, opts.into);
    if (!into) await this.checkCount(owner);
    const given = opts.source === undefined || opts.source === null || opts.source === '' ? undefined : language('source', opts.source);
    if (into && given && given !== into.source) throw invalidRequest(`Memory '${into.id}' has source language '${into.source}', not '${given}'.`);
    const fallback = into?.source ?? given;
    let units: AsyncGenerator<TmxUnit[], unknown>;
    if (opts.format === 'tmx') units = readTmx(input, this.limits, fallback);
    else {
      if (!fallback) throw invalidRequest(`Missing 'source': the source language of the ${opts.format.toUpperCase()} file's first column.`);
      const target = language('target', opts.target);
      units = readDelimited(input, opts.format, { source: fallback, target }, this.limits);
    }
    const name = into?.name ?? (opts.name === undefined || opts.name === null || opts.name === '' ? 'Imported memory' : checkName(opts.name));
    let staging: number | undefined;
    let imported = 0;
    let skipped = 0;
    let source: string | undefined = fallback;
    let rows: SegmentRow[] = [];
    // One chunk written while the next is read: the store's writing (PostgreSQL's, in another process) overlaps the
    // parsing and hashing here. Its failure is seen at the next flush or at the end.
    let pending: Promise<void> | undefined;
    let chunks = 0;
    const flush = async () => {
      if (!rows.length) return;
      if (staging === undefined) {
        const now = Date.now();
        staging = await this.store.beginImport({ id: randomUUID(), num: 0, owner, name, source: source!, targets: [], segmentCount: 0, createdAt: now, updatedAt: now }, into?.id);
      }
      const chunk = rows;
      rows = [];
      if (++chunks % CHUNKS_PER_COLLECTION === 0) fullCollection();
      await pending;
      pending = this.store.importChunk(staging, chunk);
      pending.catch(() => undefined);
    };
    try {
      for await (const batch of units) {
        for (const u of batch) {
          if (!source) source = u.source.lang;
          if (into && u.source.lang !== into.source) {
            throw new MemoryFileError(u.line, `the unit's source language is '${u.source.lang}', the memory's is '${into.source}'.`);
          }
          if (u.source.lang !== source) throw new MemoryFileError(u.line, `the unit's source language is '${u.source.lang}', the file's is '${source}'.`);
          const text = u.source.text.trim();
          const targets = u.targets.filter((t) => t.lang !== u.source.lang && t.text.trim());
          if (!text || !targets.length) {
            skipped++;
            continue;
          }
          const key = exactKey(text);
          const words = indexWords(text);
          for (const t of targets) {
            rows.push({ key, words, source: text, target: t.text.trim(), targetLang: t.lang, reviewed: u.reviewed, sourceMarkup: u.source.markup, targetMarkup: t.markup });
            if (++imported > this.limits.maxSegments) {
              throw new MemoryFileError(u.line, `the file holds more than ${this.limits.maxSegments} segments (DRAGOMAN_MEMORY_MAX_SEGMENTS).`);
            }
          }
          if (rows.length >= CHUNK) await flush();
        }
      }
      await flush();
      await pending;
      if (staging === undefined) {
        if (into) return { memory: into, imported: 0, skipped };
        if (!source) throw new MemoryFileError(undefined, 'the file holds no translation unit and names no source language.');
        const now = Date.now();
        staging = await this.store.beginImport({ id: randomUUID(), num: 0, owner, name, source, targets: [], segmentCount: 0, createdAt: now, updatedAt: now });
      }
      const memory = await this.store.finishImport(staging);
      if (into && memory.segmentCount > this.limits.maxSegments) {
        // Too big once merged: the memory had its segments already; this import's stays out.
        throw invalidRequest(`Memory '${into.id}' would hold ${memory.segmentCount} segments, more than ${this.limits.maxSegments} (DRAGOMAN_MEMORY_MAX_SEGMENTS).`);
      }
      return { memory, imported, skipped };
    } catch (err) {
      // No chunk may land after the staging area is removed.
      await pending?.catch(() => undefined);
      if (staging !== undefined) await this.store.abortImport(staging).catch(() => undefined);
      if (err instanceof MemoryFileError) throw invalidRequest(`The ${opts.format.toUpperCase()} file cannot be imported. ${err.message}`);
      throw err;
    }
  }

  /** The memory as TMX, a page of segments at a time. */
  async export(owner: string, id: string): Promise<{ memory: Memory; chunks: AsyncGenerator<string> }> {
    const memory = await this.get(owner, id);
    const store = this.store;
    async function* pages(): AsyncGenerator<Segment[]> {
      let after = 0;
      for (;;) {
        const page = await store.segments(owner, id, { after, limit: 1000 });
        if (!page || !page.segments.length) return;
        yield page.segments;
        if (page.next === undefined) return;
        after = page.next;
      }
    }
    return { memory, chunks: writeTmx(memory, pages(), this.version) };
  }

  async segments(owner: string, id: string, filter: SegmentFilter): Promise<SegmentPage> {
    const page = await this.store.segments(owner, id, filter);
    if (!page) throw memoryNotFound(id);
    return page;
  }

  async segment(owner: string, id: string, segId: number): Promise<Segment> {
    const s = await this.store.getSegment(owner, id, segId);
    if (!s) throw segmentNotFound(id, segId);
    return s;
  }

  /** Segments entered by a person (reviewed unless said otherwise): one for a source and target language replaces the stored one. */
  async add(owner: string, id: string, list: NewSegment[]): Promise<Segment[]> {
    const m = await this.get(owner, id);
    const rows = list.map((s, i) => this.row(m, s, `segments[${i}]`));
    if (m.segmentCount + rows.length > this.limits.maxSegments) throw invalidRequest(`A memory may hold at most ${this.limits.maxSegments} segments (DRAGOMAN_MEMORY_MAX_SEGMENTS).`);
    const ids = await this.store.add(owner, id, rows, 'replace');
    const out: Segment[] = [];
    for (const segId of ids) if (segId !== undefined) out.push(await this.segment(owner, id, segId));
    return out;
  }

  async update(owner: string, id: string, segId: number, patch: Partial<NewSegment>): Promise<Segment> {
    const m = await this.get(owner, id);
    const old = await this.segment(owner, id, segId);
    const next: NewSegment = {
      source: patch.source ?? old.source, target: patch.target ?? old.target, targetLang: patch.targetLang ?? old.targetLang,
      reviewed: patch.reviewed ?? true,
      ...(patch.source === undefined && old.sourceMarkup ? { sourceMarkup: old.sourceMarkup } : {}),
      ...(patch.target === undefined && old.targetMarkup ? { targetMarkup: old.targetMarkup } : {}),
    };
    try {
      const s = await this.store.updateSegment(owner, id, segId, this.row(m, next, 'segment'));
      if (!s) throw segmentNotFound(id, segId);
      return s;
    } catch (err) {
      if ((err as { code?: string }).code === 'duplicate') throw new ApiError(409, 'invalid_request', 'The memory already holds a segment with this source for this target language.');
      throw err;
    }
  }

  async deleteSegment(owner: string, id: string, segId: number): Promise<void> {
    if (!(await this.store.deleteSegment(owner, id, segId))) {
      await this.get(owner, id);
      throw segmentNotFound(id, segId);
    }
  }

  private row(m: Memory, s: NewSegment, where: string): SegmentRow {
    if (typeof s.source !== 'string' || typeof s.target !== 'string') throw invalidRequest(`${where}: 'source' and 'target' must be strings.`);
    const source = s.source.trim();
    const target = s.target.trim();
    if (!source || !target) throw invalidRequest(`${where}: 'source' and 'target' must not be empty.`);
    for (const t of [source, target]) {
      if (t.length > this.limits.maxSegmentChars) throw invalidRequest(`${where}: a segment may have at most ${this.limits.maxSegmentChars} characters (DRAGOMAN_MEMORY_MAX_SEGMENT_CHARS).`);
    }
    const targetLang = language('target', s.targetLang);
    if (targetLang === m.source) throw invalidRequest(`${where}: the target language must differ from the memory's source ('${m.source}').`);
    return {
      key: exactKey(source), words: indexWords(source), source, target, targetLang, reviewed: s.reviewed !== false,
      sourceMarkup: s.sourceMarkup, targetMarkup: s.targetMarkup,
    };
  }

  /** A key's memory for a translation into `target`: 404 when unknown. */
  async forTranslation(owner: string, id: string): Promise<Memory> {
    return this.get(owner, id);
  }

  /**
   * What the memory holds for each sentence: an exact segment when the normalised text is stored for `target`,
   * and (`fuzzy`) the best matches at or above `threshold` for the others (and none for exact ones).
   */
  async lookup(m: Memory, target: string, sentences: readonly string[], opts: { threshold: number; fuzzy: boolean; limit?: number }): Promise<Lookup[]> {
    const keys = sentences.map(exactKey);
    const exact = await this.store.exactMany(m, target, keys);
    const out: Lookup[] = [];
    for (const [i, s] of sentences.entries()) {
      const hit = exact.get(keys[i]!);
      if (hit) out.push({ exact: hit, matches: [{ source: hit.source, target: hit.target, similarity: 100, reviewed: hit.reviewed }] });
      else out.push({ matches: opts.fuzzy ? await this.fuzzy(m, target, s, opts.threshold, opts.limit ?? 3) : [] });
    }
    return out;
  }

  /** The common words of a memory as far as lookups found them; forgotten when the memory changes. */
  private commonWords(m: Memory): Set<number> {
    let c = this.common.get(m.num);
    if (!c || c.updatedAt !== m.updatedAt) {
      if (this.common.size >= COMMON_CACHE) this.common.delete(this.common.keys().next().value!);
      this.common.set(m.num, (c = { updatedAt: m.updatedAt, words: new Set() }));
    }
    return c.words;
  }

  /** Fuzzy matches of one sentence: candidates through the index words, then the token edit distance (text.ts). */
  async fuzzy(m: Memory, target: string, sentence: string, threshold: number, limit = 3): Promise<MemoryMatch[]> {
    const all = indexWords(sentence, 32);
    if (!all.length) return [];
    // Words already found common in this memory are not read again (their lists are the long ones), unless no other
    // word is left to find candidates by.
    const common = this.commonWords(m);
    const fresh = all.filter((w) => !common.has(w));
    const lists = await this.store.postings(m, fresh.length ? fresh : all, POSTING_CAP);
    const rare: number[][] = [];
    for (const [w, l] of lists) {
      if (l === null) common.add(w);
      else rare.push(l);
    }
    const counts = new Map<number, number>();
    for (const l of rare) for (const seg of l) counts.set(seg, (counts.get(seg) ?? 0) + 1);
    const ids = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, CANDIDATES).map(([id]) => id);
    const q = tokens(sentence);
    const norm = normalise(sentence);
    const found: MemoryMatch[] = [];
    for (const s of await this.store.byIds(m, target, ids)) {
      const t = tokens(s.source);
      const max = maxDistance(q.length, t.length, threshold);
      if (tokenDistance(q, t, max) > max) continue;
      const sim = normalise(s.source) === norm ? 100 : similarityOfTokens(q, t);
      if (sim >= threshold) found.push({ source: s.source, target: s.target, similarity: sim, reviewed: s.reviewed });
    }
    return found.sort((a, b) => b.similarity - a.similarity || Number(b.reviewed) - Number(a.reviewed)).slice(0, limit);
  }

  /** Translations a request returned, added as learned segments; a reviewed segment of the same source stays. */
  async learn(m: Memory, target: string, pairs: readonly [string, string][]): Promise<void> {
    const rows: SegmentRow[] = [];
    for (const [s, t] of pairs) {
      const source = s.trim();
      const tr = t.trim();
      if (!source || !tr || source.length > this.limits.maxSegmentChars || tr.length > this.limits.maxSegmentChars) continue;
      rows.push({ key: exactKey(source), words: indexWords(source), source, target: tr, targetLang: target, reviewed: false });
    }
    if (!rows.length || m.segmentCount + rows.length > this.limits.maxSegments) return;
    await this.store.add(m.owner, m.id, rows, 'keep-reviewed');
  }

  /** Characters a key was served from its memories (exact segments), counted per quota period (YYYY-MM). */
  async recordServed(owner: string, chars: number, now: number): Promise<void> {
    if (chars > 0) await this.store.addServed(owner, periodOf(now), chars, new Date(now).toISOString().slice(0, 10));
  }

  served(owner: string, period: string): Promise<number> {
    return this.store.served(owner, period);
  }

  // ── DeepL's job model: an import declared, its file PUT to an upload URL, an export's file fetched from a download URL ──

  async createImportJob(owner: string, file: { fileName: string; contentLength?: number; contentType?: string; displayName?: string }): Promise<MemoryJob> {
    await this.checkCount(owner);
    const now = Date.now();
    const job: MemoryJob = {
      id: randomUUID(), owner, kind: 'import', status: 'awaiting_input', token: randomBytes(24).toString('base64url'),
      fileName: file.fileName, contentLength: file.contentLength, contentType: file.contentType, displayName: file.displayName,
      skipped: 0, createdAt: now, updatedAt: now,
    };
    await this.store.insertJob(job);
    return job;
  }

  /** The file of an import job, taken from its upload URL (the token is the URL's capability). */
  async upload(jobId: string, token: string, input: AsyncIterable<Uint8Array>, format: ImportFormat = 'tmx'): Promise<MemoryJob> {
    const job = await this.jobByToken(jobId, token, 'import');
    if (job.status !== 'awaiting_input') throw new ApiError(409, 'invalid_request', `The file of import job '${jobId}' was uploaded already.`);
    await this.store.updateJob(job.id, { status: 'processing' });
    try {
      const r = await this.import(job.owner, { format, name: job.displayName ?? job.fileName?.replace(/\.[^.]*$/, '') }, input);
      await this.store.updateJob(job.id, { status: 'completed', memoryId: r.memory.id, skipped: r.skipped });
    } catch (err) {
      const message = err instanceof ApiError && err.status < 500 ? err.message : 'The import failed on the server.';
      await this.store.updateJob(job.id, { status: 'failed', error: message });
      throw err;
    }
    return (await this.store.getJob(job.id))!;
  }

  async createExportJob(owner: string, memoryId: string): Promise<MemoryJob> {
    await this.get(owner, memoryId);
    const now = Date.now();
    const job: MemoryJob = {
      id: randomUUID(), owner, kind: 'export', status: 'completed', token: randomBytes(24).toString('base64url'), memoryId,
      skipped: 0, createdAt: now, updatedAt: now,
    };
    await this.store.insertJob(job);
    return job;
  }

  async job(owner: string, jobId: string): Promise<MemoryJob> {
    const job = await this.store.getJob(jobId);
    if (!job || job.owner !== owner) throw jobNotFound(jobId);
    return job;
  }

  /** An export job's file, from its download URL. */
  async download(jobId: string, token: string): Promise<{ memory: Memory; chunks: AsyncGenerator<string> }> {
    const job = await this.jobByToken(jobId, token, 'export');
    return this.export(job.owner, job.memoryId!);
  }

  private async jobByToken(jobId: string, token: string, kind: MemoryJob['kind']): Promise<MemoryJob> {
    const job = await this.store.getJob(jobId);
    if (!job || job.kind !== kind || !sameToken(job.token, token)) throw jobNotFound(jobId);
    return job;
  }
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const segmentNotFound = (id: string, segId: number) => new ApiError(404, 'invalid_request', `Translation memory '${id.slice(0, 100)}' has no segment ${segId}.`);

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !name.trim()) throw invalidRequest("Missing required field 'name': the memory's name.");
  if (name.length > 1000) throw invalidRequest("Field 'name' may have at most 1000 characters.");
  return name.trim();
}

export function language(field: 'source' | 'target', code: unknown): string {
  if (typeof code !== 'string' || !code) throw invalidRequest(`Missing required field '${field}' of the memory: a language code such as "en".`);
  const lang = resolveLanguage(code);
  if (!lang) throw invalidRequest(`Unsupported ${field} language code '${code.slice(0, 50)}' for a translation memory.`);
  return lang.code;
}
