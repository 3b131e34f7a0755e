// Where job records live: the data directory's SQLite database, or PostgreSQL when DRAGOMAN_DATABASE_URL is set
// (replicas then share the records; the files must be on storage they share too, see docs/documents.md). Every
// transition is one conditional UPDATE, so two servers can never both take a job or both refund it.
import type { ChargeState, JobRecord, JobStatus } from './job.ts';

export interface JobUpdate {
  status?: JobStatus;
  progress?: number;
  error?: string;
  finishedAt?: number;
}

export type JobPage = JobRecord[];

export interface JobStore {
  insert(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Moves the charge from `from` to `to`; false when it was not in `from` (someone else moved it). */
  setChargeState(id: string, from: ChargeState, to: ChargeState, charge?: string): Promise<boolean>;
  /** Takes the job for `leaseMs` if nobody holds it (lease past) and it is not finished; false otherwise. */
  claim(id: string, nowMs: number, leaseMs: number): Promise<boolean>;
  /** Extends a lease this server holds. */
  renew(id: string, leaseUntil: number): Promise<void>;
  /** Gives the lease up (a shutdown: the next server takes the job at once). */
  release(id: string): Promise<void>;
  update(id: string, fields: JobUpdate): Promise<void>;
  /** The key's jobs not expired at `nowMs`, newest first (then by id), after the position `after`. */
  list(keyId: string, query: { nowMs: number; limit: number; after: { createdAt: number; id: string } | undefined }): Promise<JobPage>;
  /** Failed jobs whose charge was not given back yet (a crash or an outage interrupted the refund). */
  unrefunded(): Promise<JobRecord[]>;
  /** Unfinished jobs whose lease has passed (a server died or stopped while holding them). */
  orphans(nowMs: number): Promise<JobRecord[]>;
  /** Jobs whose expiry (`clockMs`, the service clock) has passed. */
  expired(clockMs: number): Promise<JobRecord[]>;
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}
