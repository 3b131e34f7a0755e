// How this backend talks to PostgreSQL: the pool's options, BIGINT as numbers, TLS modes spelled as node-postgres
// applies them, and how often a call whose connection failed is repeated.
import pg from 'pg';

/** Delays before repeating a call whose connection failed: reads once, charges for about 1.75 s. */
export const READ_RETRIES = [50];
export const CHARGE_RETRIES = [50, 200, 500, 1000];
export const NO_RETRIES: number[] = [];

export interface PgStoreOptions {
  /** Connections per process (default 10). */
  poolSize?: number;
  /** Give up connecting after this long (default 2000 ms): a request fails fast when the database is away. */
  connectTimeoutMs?: number;
  /** Give up on a statement after this long (default 10000 ms). */
  queryTimeoutMs?: number;
}

// BIGINT (oid 20) as a JS number: every figure here (ms timestamps, characters) is far below 2^53.
export const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * node-postgres 8 treats `sslmode=prefer|require|verify-ca` as `verify-full` (docs/scaling.md, TLS) and says so in a
 * multi-line warning on stderr, among the JSON log lines. Spelling the mode it applies anyway keeps the same
 * behaviour without that warning (and keeps it when a later node-postgres gives these modes libpq's weaker sense).
 */
export function withVerifiedSslMode(url: string): string {
  if (/[?&]uselibpqcompat=true(&|$)/i.test(url)) return url;
  return url.replace(/([?&]sslmode=)(prefer|require|verify-ca)(?=&|#|$)/i, '$1verify-full');
}
