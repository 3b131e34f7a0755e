// The document_jobs table, whichever database holds it: its columns, and how a job record maps to a row and back.
import type { ChargeState, JobRecord, JobStatus } from './job.ts';
import type { FormatId } from './formats/types.ts';

/** The SQL types of the numeric columns, which the two databases name differently. */
export interface NumericTypes {
  integer: string;
  real: string;
}

/** CREATE TABLE IF NOT EXISTS for document_jobs and its expiry index. */
export function createJobTable({ integer, real }: NumericTypes): string {
  return `CREATE TABLE IF NOT EXISTS document_jobs (
  id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL,
  status TEXT NOT NULL,
  filename TEXT NOT NULL,
  format TEXT NOT NULL,
  source TEXT,
  detected_source TEXT,
  target TEXT NOT NULL,
  characters ${integer} NOT NULL,
  progress ${real} NOT NULL DEFAULT 0,
  created_at ${integer} NOT NULL,
  expires_at ${integer} NOT NULL,
  error TEXT,
  charge_state TEXT NOT NULL,
  charge TEXT NOT NULL,
  lease_until ${integer} NOT NULL DEFAULT 0,
  glossary TEXT,
  memory TEXT
);
CREATE INDEX IF NOT EXISTS document_jobs_expiry ON document_jobs (expires_at);`;
}

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
  memory?: string | null;
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
    memory: r.memory ? (JSON.parse(r.memory) as JobRecord['memory']) : undefined,
  };
}

export const COLUMNS =
  'id, key_id, status, filename, format, source, detected_source, target, characters, progress, created_at, expires_at, error, charge_state, charge, lease_until, glossary, memory';

export function rowValues(j: JobRecord): unknown[] {
  return [j.id, j.keyId, j.status, j.filename, j.format, j.source ?? null, j.detectedSource ?? null, j.target, j.characters,
    j.progress, j.createdAt, j.expiresAt, j.error ?? null, j.chargeState, j.charge, j.leaseUntil, j.glossary ?? null,
    j.memory ? JSON.stringify(j.memory) : null];
}
