// What a key's documents may keep on disk: a limit per plan (DRAGOMAN_STORAGE_BYTES_<PLAN>) on the bytes of its jobs,
// each job counted by its record (JobRecord.storedBytes), so that a deleted or expired job frees its bytes with its
// record and no byte is counted twice. A job is counted from its acceptance with room for its result as large as its
// upload, so a key is refused before its files are written, not after.
import { storageSetting, type PlanStorage } from '../config/env.ts';
import type { PlanName } from '../accounts/types.ts';
import { ApiError } from '../errors/api-error.ts';

/** The bytes a job is counted for while its result is not written: the upload, and as much again for the result. */
export const reservedBytes = (uploadBytes: number): number => 2 * uploadBytes;

/** A key's storage as /v1/usage shows it. */
export interface StorageUsage {
  storageBytesUsed: number;
  /** null = no limit. */
  storageBytesLimit: number | null;
}

export function storageLimitOf(limits: PlanStorage, plan: PlanName): number | null {
  return limits[plan];
}

/** "12345678 bytes (12.3 MB)". */
function bytes(n: number): string {
  return `${n} bytes (${(n / 1e6).toFixed(1)} MB)`;
}

/** The refusal of a document that does not fit in what the key may keep (nothing was charged or kept). */
export function storageFull(plan: PlanName, limit: number, used: number, needed: number): ApiError {
  return new ApiError(
    413,
    'invalid_request',
    `Storage limit reached: the ${plan} plan keeps at most ${bytes(limit)} of documents per key (${storageSetting(plan)}). ` +
      `This key's documents keep ${bytes(used)}, and this one needs ${bytes(needed)} (the file and as much again for its ` +
      `translation). Space is freed when documents are deleted or expire; nothing was charged.`,
  );
}
