// The job engine: accepts a document (checked, stored, charged), translates it in the background through the
// service layer, and keeps its record and files until it expires. Crash safety: a job is charged once at
// acceptance, by a charge named by its id (charge.ts), and its charge state is in the record; a server that starts
// (or any replica, every few seconds) takes over unfinished jobs whose lease has passed and finishes them, settles
// acceptances a crash cut short, and finishes refunds a crash interrupted. Document content is never logged.
import { randomBytes } from 'node:crypto';
import type { Admission, Gate } from '../accounts/gate.ts';
import type { Clock } from '../accounts/clock.ts';
import { QuotaExceeded } from '../accounts/errors.ts';
import type { KeyRecord } from '../accounts/types.ts';
import type { PlanStorage } from '../config/env.ts';
import { TooManyTerms } from '../engine/errors.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Service } from '../service/index.ts';
import { modelChoiceOf } from '../service/model-choice.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import { checkDocument, limitsOf, planDocumentFile, type DocumentSettings } from './accept.ts';
import { chargeOf, plannedCharge, refundJob } from './charge.ts';
import { JobFiles } from './files.ts';
import { formatById } from './formats/index.ts';
import { resultFilenameOf, type JobMemory, type JobRecord } from './job.ts';
import type { JobPage, JobStore } from './store.ts';
import { translateUnits, untranslated } from './units.ts';
import { DocumentWorkers, type DocumentWorkerSettings } from './worker/pool.ts';
import type { PlannedDocument } from './worker/tasks.ts';
import { reservedBytes, storageFull, storageLimitOf, type StorageUsage } from './storage.ts';

/** How long a server holds a job without renewing, how often it renews and looks for orphans and expired jobs. */
const LEASE_MS = 15_000;
const RENEW_MS = 5_000;
const SWEEP_MS = 5_000;
/** Jobs translated at once by one server (each sends a few batches at a time to the shared engine). */
const CONCURRENT_JOBS = 2;
/**
 * Accepted documents kept planned, for this server to translate without planning them again; beyond this many
 * waiting, a job is planned again (on a document worker) when its turn comes (memory stays bounded).
 */
const KEPT_OPEN = CONCURRENT_JOBS + 2;

export interface JobLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface DocumentJobsDeps {
  settings: DocumentSettings & DocumentWorkerSettings & { dataDir: string; documentTtlMs: number; storageBytes: PlanStorage; documentContextChars: number };
  service: Service;
  gate: Gate;
  store: JobStore;
  clock: Clock;
  log: JobLog;
}

export interface Submission {
  admission: Admission;
  filename: string;
  bytes: Uint8Array;
  target: unknown;
  source: unknown;
  /** The id of one of the submitting key's glossaries (undefined or empty: none). */
  glossary?: unknown;
  /** The id of one of the submitting key's translation memories, its match threshold (0-100) and learning. */
  memory?: { id: unknown; threshold?: unknown; update?: unknown };
  /** "quality", "speed" or an installed model's name (undefined or empty: the usual route). */
  model?: unknown;
  /** LibreTranslate's translate_file: the SHA-256 (hex) of the token its download URL carries (JobRecord.downloadToken). */
  downloadToken?: string;
}

/** A job this server ran to its end: how it ended and how long its translation took. */
export interface JobOutcome {
  status: 'done' | 'error';
  seconds: number;
}

export const notFound = (id: string) =>
  new ApiError(404, 'invalid_request', `No document ${id.slice(0, 40)}: it does not exist, has expired, or was made with another key.`);

export class DocumentJobs {
  readonly files: JobFiles;
  /** Where documents are opened, planned and written: never on the event loop. */
  readonly workers: DocumentWorkers;
  private readonly queue: string[] = [];
  /** Jobs this server is translating, each with what stops it (a deletion, a shutdown). */
  private readonly running = new Map<string, AbortController>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Documents accepted here, planned, until their run takes them. */
  private readonly opened = new Map<string, PlannedDocument>();
  private timer: NodeJS.Timeout | undefined;
  private readonly outcomeListeners = new Set<(outcome: JobOutcome) => void>();
  private closing = false;
  private readonly stop = new AbortController();

  constructor(private readonly deps: DocumentJobsDeps) {
    this.files = new JobFiles(deps.settings.dataDir);
    this.workers = new DocumentWorkers(deps.settings);
  }

  /** Jobs waiting for this server and jobs it is translating (the metrics read them when scraped). */
  stats(): { queued: number; running: number } {
    return { queued: this.queue.length, running: this.running.size };
  }

  /** Calls `listener` each time a job this server runs ends (done or failed); returns how to stop. */
  onOutcome(listener: (outcome: JobOutcome) => void): () => void {
    this.outcomeListeners.add(listener);
    return () => this.outcomeListeners.delete(listener);
  }

  private ended(status: JobOutcome['status'], startedMs: number): void {
    for (const listener of this.outcomeListeners) listener({ status, seconds: (Date.now() - startedMs) / 1000 });
  }

  /** Takes over orphaned jobs now and every few seconds; deletes expired ones. */
  start(): void {
    void this.sweep();
    this.timer = setInterval(() => void this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  async submit(s: Submission): Promise<JobRecord> {
    const { service, gate, store, clock, settings } = this.deps;
    if (s.glossary !== undefined && s.glossary !== '' && typeof s.glossary !== 'string') {
      throw new ApiError(400, 'invalid_request', "Field 'glossary' must be the id of one of this key's glossaries.");
    }
    const glossary = s.glossary ? { owner: s.admission.key.id, id: s.glossary } : undefined;
    const memory = memoryOf(s.memory);
    const model = modelChoiceOf(s.model);
    // What the key keeps is read first, so a key at its storage limit costs no opening of the file; the insert
    // below checks it again, atomically.
    const { plan } = s.admission.key;
    const storageLimit = storageLimitOf(settings.storageBytes, plan);
    const storedBytes = reservedBytes(s.bytes.length);
    if (storageLimit !== null) {
      const used = await store.storedBytes(s.admission.key.id);
      if (used + storedBytes > storageLimit) throw storageFull(plan, storageLimit, used, storedBytes);
    }
    const checked = await checkDocument(service, this.workers, { ...s, glossary, memory: memory && { owner: s.admission.key.id, id: memory.id }, model, quota: { gate, admission: s.admission } }, settings);
    const id = randomBytes(16).toString('hex');
    const now = clock.now();
    const job: JobRecord = {
      id,
      keyId: s.admission.key.id,
      status: 'queued',
      filename: cleanName(s.filename),
      format: checked.format.id,
      source: s.source !== undefined && checked.detected === undefined ? checked.source?.code : undefined,
      detectedSource: checked.detected,
      target: checked.target.code,
      glossary: glossary?.id,
      memory,
      ...(model ? { model: s.model as string } : {}),
      characters: checked.characters,
      progress: 0,
      createdAt: now,
      expiresAt: now + settings.documentTtlMs,
      finishedAt: undefined,
      error: undefined,
      chargeState: 'pending',
      charge: '',
      leaseUntil: Date.now() + LEASE_MS,
      storedBytes,
      downloadToken: s.downloadToken,
    };
    const planned = plannedCharge(job, settings.documentTtlMs);
    job.charge = planned.charge;
    await this.files.writeSource(id, s.bytes);
    let stored: { inserted: boolean; used: number };
    try {
      stored = await store.insertWithin(job, storageLimit);
    } catch (err) {
      await this.files.remove(id);
      throw err;
    }
    if (!stored.inserted) {
      await this.files.remove(id);
      throw storageFull(plan, storageLimit!, stored.used, storedBytes);
    }
    try {
      job.charge = JSON.stringify((await gate.charge(s.admission, checked.characters, planned.named)).charge);
    } catch (err) {
      await this.files.remove(id);
      // Over quota: nothing was charged and nothing of the job remains. Anything else (the database went away) may
      // have left the charge made: the pending record stays for the sweep, which gives the named charge back.
      if (err instanceof QuotaExceeded) await store.delete(id).catch(() => undefined);
      throw err;
    }
    job.chargeState = 'charged';
    if (!(await store.setChargeState(id, 'pending', 'charged', job.charge))) {
      // Accepting took longer than the lease and a sweep settled the job as cut short (its charge given back).
      this.deps.log.warn({ document: id }, 'document acceptance overran its lease: given up');
      await this.files.remove(id);
      throw new ApiError(503, 'server_error', 'Accepting the document took too long and was given up (nothing was charged): send it again.');
    }
    // The lease held while accepting is given up: whichever server claims the job first runs it (usually this one;
    // should this write fail, the lease runs out and a sweep takes the job: it is accepted and charged either way).
    await store.release(id).catch(() => undefined);
    job.leaseUntil = 0;
    this.deps.log.info({ document: id, format: job.format, characters: job.characters }, 'document accepted');
    if (this.opened.size < KEPT_OPEN) this.opened.set(id, checked.planned);
    this.enqueue(id);
    return job;
  }

  /** The job of `keyId` (404 for another key's, an unknown or an expired one). */
  async find(keyId: string, id: string): Promise<JobRecord> {
    const job = /^[0-9a-f]{32}$/.test(id) ? await this.deps.store.get(id) : undefined;
    if (!job || job.keyId !== keyId || job.expiresAt <= this.deps.clock.now()) throw notFound(id);
    return job;
  }

  /** A page of the key's jobs, newest first; `cursor` continues after the previous page's last job. */
  async list(keyId: string, limit: number, cursor: string | undefined): Promise<{ jobs: JobRecord[]; next: string | undefined }> {
    const after = cursor === undefined ? undefined : readCursor(cursor);
    if (cursor !== undefined && !after) {
      throw new ApiError(400, 'invalid_request', "Query parameter 'cursor' is not one this server gave: pass the 'nextCursor' of the previous page.");
    }
    const page: JobPage = await this.deps.store.list(keyId, { nowMs: this.deps.clock.now(), limit: limit + 1, after });
    const jobs = page.slice(0, limit);
    return { jobs, next: page.length > limit ? cursorOf(jobs[jobs.length - 1]!) : undefined };
  }

  /** The finished job's file: where it is, its type and its download name. 409 while it is not done. */
  async result(keyId: string, id: string): Promise<{ job: JobRecord; path: string; mediaType: string; filename: string }> {
    return this.resultOf(await this.find(keyId, id));
  }

  /** The file of a job already found (its owner's, or by its download token). */
  resultOf(job: JobRecord): { job: JobRecord; path: string; mediaType: string; filename: string } {
    const { id } = job;
    if (job.status !== 'done') {
      throw new ApiError(409, 'invalid_request', job.status === 'error'
        ? `The document's translation failed: ${job.error ?? 'see GET /v1/documents/' + id}.`
        : `The document is not translated yet (status ${job.status}, progress ${Math.round(job.progress * 100)} %): ask again when its status is done.`);
    }
    const format = formatById(job.format)!;
    return { job, path: this.files.resultPath(id), mediaType: format.mediaType, filename: resultFilenameOf(job) };
  }

  /** The bytes the key's documents keep, and its plan's limit. */
  async storage(key: KeyRecord): Promise<StorageUsage> {
    return { storageBytesUsed: await this.deps.store.storedBytes(key.id), storageBytesLimit: storageLimitOf(this.deps.settings.storageBytes, key.plan) };
  }

  /** The job whose download token (LibreTranslate's translatedFileUrl) hashes to `tokenHash`; 404 for any other. */
  async byDownloadToken(tokenHash: string): Promise<JobRecord> {
    const job = await this.deps.store.byDownloadToken(tokenHash);
    if (!job || job.expiresAt <= this.deps.clock.now()) throw notFound(tokenHash);
    return job;
  }

  /** Deletes the job and its files; a job being translated here is stopped before its next batch first (not refunded). */
  async remove(keyId: string, id: string): Promise<void> {
    await this.find(keyId, id);
    const running = this.running.get(id);
    if (running) {
      // Stopped first: a run still writing its result would otherwise write into the folder being removed.
      const over = new Promise<void>((resolve) => this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]));
      running.abort();
      await over;
    }
    this.opened.delete(id);
    await this.deps.store.delete(id);
    await this.files.remove(id);
  }

  /** Resolves when the job is done or failed (LibreTranslate's synchronous translate_file). */
  async settled(id: string): Promise<JobRecord> {
    for (;;) {
      const job = await this.deps.store.get(id);
      if (!job) throw notFound(id);
      if (job.status === 'done' || job.status === 'error') return job;
      await new Promise<void>((resolve) => {
        const list = this.waiters.get(id) ?? [];
        list.push(resolve);
        this.waiters.set(id, list);
        // Another replica may run it: look again now and then.
        setTimeout(resolve, 1000).unref();
      });
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stop.abort();
    this.opened.clear();
    if (this.timer) clearInterval(this.timer);
    // Running jobs stop before their next batch and give their lease up, for the next start to finish them.
    while (this.running.size > 0) await new Promise((r) => setTimeout(r, 20));
    await this.workers.close();
    await this.deps.store.close();
  }

  private enqueue(id: string): void {
    if (this.running.has(id) || this.queue.includes(id)) return;
    this.queue.push(id);
    this.pump();
  }

  private pump(): void {
    while (!this.closing && this.running.size < CONCURRENT_JOBS && this.queue.length > 0) {
      const id = this.queue.shift()!;
      this.running.set(id, new AbortController());
      void this.run(id).finally(() => {
        this.running.delete(id);
        for (const w of this.waiters.get(id) ?? []) w();
        this.waiters.delete(id);
        this.pump();
      });
    }
  }

  private async sweep(): Promise<void> {
    if (this.closing) return;
    const { store, gate, clock, log } = this.deps;
    try {
      // Failed jobs whose refund a crash or an outage interrupted: refunded now (by id: once, however late).
      for (const job of await store.unrefunded()) {
        if (chargeOf(job) && (await refundJob(store, gate, job))) log.info({ document: job.id }, 'document refunded (interrupted before)');
      }
      for (const job of await store.expired(clock.now())) {
        if (this.running.has(job.id)) continue;
        if (job.status === 'error' && job.chargeState !== 'refunded' && chargeOf(job)) continue; // its refund first
        await store.delete(job.id);
        await this.files.remove(job.id);
        log.info({ document: job.id }, 'document expired: deleted');
      }
      for (const job of await store.orphans(Date.now())) {
        if (this.running.has(job.id) || this.queue.includes(job.id)) continue;
        if (job.chargeState === 'pending') {
          // The server stopped between writing the job and recording its charge (the client had no answer): the
          // job fails and its named charge, if it was made, is given back; one not made yet can no longer be.
          if (await store.claim(job.id, Date.now(), LEASE_MS)) {
            await store.update(job.id, {
              status: 'error',
              error: 'The server stopped while accepting this document; nothing was charged: send it again.',
              finishedAt: clock.now(),
            });
            await refundJob(store, gate, job);
          }
          continue;
        }
        log.info({ document: job.id }, 'document taken over (its server stopped)');
        this.enqueue(job.id);
      }
    } catch (err) {
      log.error({ err }, 'document sweep failed');
    }
  }

  private async run(id: string): Promise<void> {
    const { store, service, settings, log } = this.deps;
    const kept = this.opened.get(id);
    this.opened.delete(id);
    // Claimed atomically: if another server (a replica's sweep) took it first, it is theirs to run.
    if (!(await store.claim(id, Date.now(), LEASE_MS))) return;
    const fresh = await store.get(id);
    if (!fresh || fresh.status === 'done' || fresh.status === 'error') return;
    const stopped = AbortSignal.any([this.stop.signal, this.running.get(id)!.signal]);
    const renew = setInterval(() => void store.renew(id, Date.now() + LEASE_MS).catch(() => undefined), RENEW_MS);
    renew.unref();
    const started = Date.now();
    try {
      await store.update(id, { status: 'translating' });
      const glossary = fresh.glossary ? { owner: fresh.keyId, id: fresh.glossary } : undefined;
      await this.glossaryKept(glossary);
      const bytes = await this.files.readSource(id);
      const planned = kept ?? (await planDocumentFile(this.workers, bytes, fresh.filename, settings)).planned;
      const source = resolveLanguage(fresh.source ?? fresh.detectedSource ?? 'und');
      const target = resolveLanguage(fresh.target)!;
      let lastWrite = 0;
      const translations = !source || fresh.characters === 0
        ? untranslated(planned.segments)
        : await translateUnits(service, planned.segments, source, target, async (done, total) => {
            if (Date.now() - lastWrite < 250 && done < total) return;
            lastWrite = Date.now();
            await store.update(id, { progress: done / total });
          }, stopped, {
            ...(glossary ? { glossary } : {}),
            ...(settings.documentContextChars > 0 ? { documentContext: { chars: settings.documentContextChars } } : {}),
            ...(fresh.model ? { model: modelChoiceOf(fresh.model)! } : {}),
            ...(fresh.memory ? {
              memory: {
                owner: fresh.keyId, id: fresh.memory.id, threshold: fresh.memory.threshold, update: fresh.memory.update,
                // Fuzzy matches are looked up only for the formats that carry them (XLIFF).
                matches: fresh.format === 'xliff', countServed: false,
              },
            } : {}),
          }).catch(async (err: unknown) => {
            await this.glossaryKept(glossary); // a batch that found the glossary gone: said as such
            throw err;
          });
      // Deleted while the job ran (its last batches may have read it just before): the job fails all the same.
      await this.glossaryKept(glossary);
      await this.files.writeResult(id, await this.workers.write(bytes, planned.format, limitsOf(settings), translations, target.code));
      // The characters the memory gave, counted once for the job, when its result is there.
      if (fresh.memory && translations.memoryChars) await service.deps.memories?.recordServed(fresh.keyId, translations.memoryChars, this.deps.clock.now());
      // The room held for the result becomes the result's own size (set, not added: a job run again counts once).
      await store.setStoredBytes(id, await this.files.size(id));
      await store.update(id, { status: 'done', progress: 1, finishedAt: this.deps.clock.now() });
      log.info({ document: id, format: fresh.format, characters: fresh.characters, ms: Date.now() - started }, 'document translated');
      this.ended('done', started);
    } catch (err) {
      if (this.closing) {
        await store.release(id).catch(() => undefined);
        return;
      }
      if (stopped.aborted) return; // deleted while it ran: nothing left to mark
      await this.fail(fresh, err);
      this.ended('error', started);
    } finally {
      clearInterval(renew);
    }
  }

  /** Throws the job's failure when the glossary it was accepted with has been deleted since. */
  private async glossaryKept(glossary: { owner: string; id: string } | undefined): Promise<void> {
    if (!glossary) return;
    const glossaries = this.deps.service.deps.glossaries;
    const gone = glossaries ? await glossaries.get(glossary.owner, glossary.id).then(() => false, (err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return true;
      throw err;
    }) : true;
    if (gone) {
      throw new ApiError(404, 'invalid_request', `The glossary '${glossary.id}' was deleted before the document was translated: the job failed and its characters were refunded.`);
    }
  }

  private async fail(job: JobRecord, err: unknown): Promise<void> {
    const { store, gate, log } = this.deps;
    // A service or engine refusal says what is wrong (a model gone since acceptance, a sentence with more glossary
    // terms than fit); anything else is ours to hide.
    const refused = err instanceof ApiError || err instanceof TooManyTerms;
    const message = refused ? `${err.message}${err instanceof TooManyTerms ? ' The characters were refunded.' : ''}` : 'The translation failed on the server; the characters were refunded. Sending the file again is safe.';
    log.error({ document: job.id, err: err instanceof ApiError ? { status: err.status } : refused ? { refused: (err as Error).name } : err }, 'document translation failed');
    // Failed first, so that no server runs it again; then refunded once (a refund cut short is finished by the sweep).
    await store.update(job.id, { status: 'error', error: message, finishedAt: this.deps.clock.now() });
    await refundJob(store, gate, job).catch((e: unknown) => log.error({ err: e, document: job.id }, 'refund failed: retried by the sweep'));
    // No result will be written: the room held for it is given back (the upload stays until the job expires).
    await this.files.size(job.id).then((bytes) => store.setStoredBytes(job.id, bytes)).catch(() => undefined);
  }
}

/** A submission's memory fields checked: the id, a threshold from 0 to 100 (default 75), learning on or off. */
function memoryOf(m: Submission['memory']): JobMemory | undefined {
  if (!m || m.id === undefined || m.id === '') {
    if (m && ((m.threshold !== undefined && m.threshold !== '') || (m.update !== undefined && m.update !== '' && m.update !== false))) {
      throw new ApiError(400, 'invalid_request', "'memoryThreshold' and 'memoryUpdate' need 'memory': the id of one of the key's translation memories.");
    }
    return undefined;
  }
  if (typeof m.id !== 'string') throw new ApiError(400, 'invalid_request', "Field 'memory' must be the id of one of this key's translation memories.");
  let threshold = 75;
  if (m.threshold !== undefined && m.threshold !== '') {
    threshold = typeof m.threshold === 'number' ? m.threshold : /^\d{1,3}$/.test(String(m.threshold)) ? Number(m.threshold) : NaN;
    if (!Number.isInteger(threshold) || threshold < 0 || threshold > 100) {
      throw new ApiError(400, 'invalid_request', "Field 'memoryThreshold' must be a whole number from 0 to 100.");
    }
  }
  const u = m.update;
  if (u !== undefined && u !== '' && u !== true && u !== false && u !== 'true' && u !== 'false') {
    throw new ApiError(400, 'invalid_request', "Field 'memoryUpdate' must be true or false.");
  }
  return { id: m.id, threshold, update: u === true || u === 'true' };
}

/** The key's jobs not yet expired, newest first, `limit` of them after `cursor` (from the previous page). */
export function cursorOf(job: Pick<JobRecord, 'createdAt' | 'id'>): string {
  return Buffer.from(`${job.createdAt}.${job.id}`).toString('base64url');
}

/** The position a cursor names, or undefined when it is not one this server wrote. */
export function readCursor(cursor: string): { createdAt: number; id: string } | undefined {
  const m = /^(\d{1,16})\.([0-9a-f]{32})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? { createdAt: Number(m[1]), id: m[2]! } : undefined;
}

/** The client's file name as shown and used for the download: its last path part, printable, at most 200 characters. */
function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, '').trim().slice(0, 200);
  return clean || 'document';
}

export { resultName } from './job.ts';
