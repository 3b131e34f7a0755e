// The document_jobs table, whichever database holds it (made by src/storage's migrations): its columns, and how a
// job record maps to a row and back.
import type { ChargeState, JobMemory, JobRecord, JobStatus } from './job.ts';
import type { FormatId } from './formats/types.ts';

export interface JobRow {
  id: string;
  key_id: string;
  status: string;
  filename: string;
  format: string;
  source: string | null;
  detected_source: string | null;
  target: string;
  characters: number | string;
  progress: number;
  created_at: number | string;
  expires_at: number | string;
  error: string | null;
  charge_state: string;
  charge: string;
  lease_until: number | string;
  glossary?: string | null;
  stored_bytes?: number | string;
  download_token?: string | null;
  memory?: string | null;
  model?: string | null;
  finished_at?: number | string | null;
}

export function fromRow(r: JobRow): JobRecord {
  return {
    id: r.id,
    keyId: r.key_id,
    status: r.status as JobStatus,
    filename: r.filename,
    format: r.format as FormatId,
    source: r.source ?? undefined,
    detectedSource: r.detected_source ?? undefined,
    target: r.target,
    characters: Number(r.characters),
    progress: Number(r.progress),
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
    error: r.error ?? undefined,
    chargeState: r.charge_state as ChargeState,
    charge: r.charge,
    leaseUntil: Number(r.lease_until),
    glossary: r.glossary ?? undefined,
    storedBytes: Number(r.stored_bytes ?? 0),
    downloadToken: r.download_token ?? undefined,
    memory: r.memory ? (JSON.parse(r.memory) as JobMemory) : undefined,
    model: r.model ?? undefined,
    finishedAt: r.finished_at === null || r.finished_at === undefined ? undefined : Number(r.finished_at),
  };
}

export const COLUMNS =
  'id, key_id, status, filename, format, source, detected_source, target, characters, progress, created_at, expires_at, error, charge_state, charge, lease_until, glossary, finished_at, stored_bytes, download_token, memory, model';

export function rowValues(j: JobRecord): unknown[] {
  return [j.id, j.keyId, j.status, j.filename, j.format, j.source ?? null, j.detectedSource ?? null, j.target, j.characters,
    j.progress, j.createdAt, j.expiresAt, j.error ?? null, j.chargeState, j.charge, j.leaseUntil, j.glossary ?? null, j.finishedAt ?? null,
    j.storedBytes, j.downloadToken ?? null, j.memory ? JSON.stringify(j.memory) : null, j.model ?? null];
}
