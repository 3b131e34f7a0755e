// A job's charge is named by the job's id (the account store's named charge): charging it again charges nothing
// more and refunding it again gives nothing more back, in SQLite as in PostgreSQL, however late. So the job record
// and the charge need no transaction across two stores: the record is written first (charge pending, naming the
// charge it is about to make), then the charge is made, then the record says charged. A crash anywhere in between
// leaves a pending record, which the sweep settles by refunding the id (a charge that was made is given back, one
// that was not can no longer be made) and marking the job failed. A failed job is marked failed first (nobody
// runs it again), then refunded by id, then marked refunded; the sweep finishes what a crash interrupted.
import type { Gate } from '../accounts/gate.ts';
import { periodOf } from '../accounts/period.ts';
import type { Charge, ChargeOptions } from '../accounts/types.ts';
import type { JobRecord } from './job.ts';
import type { JobStore } from './store.ts';

/** A named charge's ledger entry outlives its job by this much (a refund may come as late as the job's expiry). */
const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60_000;

/** The charge a job is about to make, as its pending record names it, and the account store's naming of it. */
export function plannedCharge(job: Pick<JobRecord, 'id' | 'keyId' | 'characters' | 'createdAt'>, ttlMs: number): { charge: string; named: ChargeOptions } {
  const charge: Charge = { id: job.id, keyId: job.keyId, period: periodOf(job.createdAt), chars: job.characters };
  return { charge: JSON.stringify(charge), named: { id: job.id, keepUntil: Date.now() + ttlMs + KEEP_AFTER_EXPIRY_MS } };
}

/** The charge a record names; undefined for a record written before charges were named (it has no id). */
export function chargeOf(job: JobRecord): Charge | undefined {
  if (!job.charge) return undefined;
  const charge = JSON.parse(job.charge) as Charge;
  return charge.id === undefined ? undefined : charge;
}

/**
 * Gives the job's charge back, once: true when the record now says refunded. A charge without an id (an older
 * record) is refunded only by the server whose conditional update moved it to refunded.
 */
export async function refundJob(store: JobStore, gate: Gate, job: JobRecord): Promise<boolean> {
  if (job.chargeState === 'refunded') return true;
  const charge = chargeOf(job);
  if (charge === undefined) {
    if (job.chargeState !== 'charged' || !(await store.setChargeState(job.id, 'charged', 'refunded'))) return false;
    await gate.refund(JSON.parse(job.charge) as Charge);
    return true;
  }
  await gate.refund(charge);
  await store.setChargeState(job.id, job.chargeState, 'refunded');
  return true;
}
