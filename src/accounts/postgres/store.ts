// PostgreSQL backend of AccountStore (node-postgres pool), for several replicas sharing keys, plans, usage
// and rate limits. Every check-and-write is ONE call of a function from src/storage/postgres/migrations/001_init.sql, so it is
// atomic in the database and costs one round trip. Nothing is cached: a revocation or a plan change made by
// any replica (or the CLI) is seen by the next request everywhere.
//
// Connection faults: a failure to reach the database becomes AccountsUnavailable (src/storage/postgres/unavailable.ts). Reads are
// retried once (a pooled connection may have died with a database restart). A charge carries an id, so it
// is repeated after a lost connection without charging twice (the ledger says "already"); if the database
// stays away, the charge is cancelled in the background (a refund by id, which leaves a tombstone that a
// copy still in flight collides with), so a request answered 503 costs nothing.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { PgStorage } from '../../storage/index.ts';
import type { AccountStore, LimitFields } from '../store.ts';
import type * as records from '../types.ts';
import { AccountsUnavailable } from '../errors.ts';
import { PLAN_NAMES } from '../types.ts';
import { decode, encode, toKey, toPlan, UNLIMITED, type KeyRow, type PlanRow, type Stored } from '../stored-row.ts';
import { isUnavailable } from '../../storage/postgres/unavailable.ts';
import { CHARGE_RETRIES, NO_RETRIES, READ_RETRIES, sleep } from '../../storage/postgres/connection.ts';

const databaseUnavailable = () => new AccountsUnavailable();

const WINDOW_MS = 60_000;
/**
 * How long ledger rows live: far longer than any request, so a refund always finds its charge. A named charge (a
 * document job's) is kept until its own keep_until_ms instead.
 */
const LEDGER_TTL_MS = 60 * 60_000;
/** How long a cancellation of a charge of unknown fate is retried while the database is away. */
const CANCEL_GIVE_UP_MS = 30 * 60_000;
const MAINTENANCE_MS = 60_000;

/**
 * Whole seconds until a hit leaves the window. Another replica may have recorded a hit stamped a few ms after
 * this replica read its clock (it read the time before waiting for the key's lock), so the raw difference can
 * exceed the window by those ms; no hit really stays longer than the window, hence the cap.
 */
const windowSeconds = (ms: number): number => Math.min(WINDOW_MS / 1000, Math.ceil(ms / 1000));

/** A charge of this backend: the ledger id makes its refund exact-once. */
export interface PgCharge extends records.Charge {
  id: string;
}

export class PgAccountStore implements AccountStore {
  private readonly pool: pg.Pool;
  private readonly monthlyDefaults: string;
  /** Charges whose fate is unknown after the database went away: cancelled as soon as it is back. */
  private readonly toCancel = new Map<string, { charge: PgCharge; since: number }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private closed = false;
  /** Latest time a rate-limit hit was recorded with (the clock callers pass, which tests move by hand). */
  private lastHitAt = 0;

  /** On the process's pool (src/storage/postgres), which owns the schema and is closed after the stores. */
  constructor(
    private readonly storage: PgStorage,
    private readonly defaults: Record<records.PlanName, records.Limits>,
  ) {
    this.pool = storage.pool;
    const monthly: Record<string, number> = {};
    for (const name of PLAN_NAMES) monthly[name] = encode(defaults[name].monthlyChars) ?? UNLIMITED;
    this.monthlyDefaults = JSON.stringify(monthly);
    this.timers.push(setInterval(() => void this.cancelPending(), 1000).unref());
    this.timers.push(setInterval(() => void this.maintain(), MAINTENANCE_MS).unref());
  }

  /** Apply pending migrations now (also done lazily by the first call); 503 when unreachable. */
  async start(): Promise<void> {
    await this.ensureSchema();
  }

  private async ensureSchema(): Promise<void> {
    try {
      await this.storage.ready();
    } catch (err) {
      if (isUnavailable(err)) throw databaseUnavailable();
      throw err;
    }
  }

  private async query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
    retries: number[],
  ): Promise<pg.QueryResult<R>> {
    if (this.closed) throw new Error('account store is closed');
    await this.ensureSchema();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.pool.query<R>(text, values);
      } catch (err) {
        if (!isUnavailable(err)) throw err;
        const delay = retries[attempt];
        if (delay === undefined || this.closed) throw databaseUnavailable();
        await sleep(delay);
      }
    }
  }

  private plan(name: records.PlanName, row: PlanRow | undefined): records.Plan {
    return toPlan(name, row, this.defaults[name]);
  }

  async insertKey(key: records.NewKey): Promise<records.KeyRecord> {
    try {
      const { rows } = await this.query<KeyRow>(
        `INSERT INTO api_keys (id, prefix, hash, name, email, plan, monthly_chars, rpm, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
        [
          key.id,
          key.prefix,
          key.hash,
          key.name ?? null,
          key.email ?? null,
          key.plan,
          encode(key.overrides?.monthlyChars),
          encode(key.overrides?.rpm),
          key.createdAt,
        ],
        NO_RETRIES,
      );
      return toKey(rows[0]!);
    } catch (err) {
      // Same wording as SQLite, which Accounts.createKey recognises to draw another id.
      if ((err as { code?: string }).code === '23505') {
        throw new Error(`UNIQUE constraint failed: ${(err as { constraint?: string }).constraint ?? 'api_keys'}`);
      }
      throw err;
    }
  }

  async findKeyByHash(hash: string) {
    const { rows } = await this.query<KeyRow>('SELECT * FROM api_keys WHERE hash = $1', [hash], READ_RETRIES);
    return rows[0] ? { key: toKey(rows[0]), hash: rows[0].hash } : undefined;
  }

  async getKey(id: string) {
    const { rows } = await this.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [id], READ_RETRIES);
    return rows[0] ? toKey(rows[0]) : undefined;
  }

  async listKeys() {
    const { rows } = await this.query<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id', [], READ_RETRIES);
    return rows.map(toKey);
  }

  async revokeKey(id: string, at: number) {
    const r = await this.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id], NO_RETRIES);
    return (r.rowCount ?? 0) > 0;
  }

  async setKeyPlan(id: string, plan: records.PlanName) {
    const r = await this.query('UPDATE api_keys SET plan = $1 WHERE id = $2', [plan, id], READ_RETRIES);
    return (r.rowCount ?? 0) > 0;
  }

  async setKeyOverrides(id: string, patch: records.LimitsPatch) {
    const r = await this.query(
      `UPDATE api_keys SET monthly_chars = CASE WHEN $2 THEN $3::BIGINT ELSE monthly_chars END,
                           rpm = CASE WHEN $4 THEN $5::BIGINT ELSE rpm END
       WHERE id = $1`,
      [id, patch.monthlyChars !== undefined, encode(patch.monthlyChars), patch.rpm !== undefined, encode(patch.rpm)],
      READ_RETRIES,
    );
    return (r.rowCount ?? 0) > 0;
  }

  async clearKeyOverrides(id: string, which: LimitFields) {
    const r = await this.query(
      `UPDATE api_keys SET monthly_chars = CASE WHEN $2 THEN NULL ELSE monthly_chars END,
                           rpm = CASE WHEN $3 THEN NULL ELSE rpm END
       WHERE id = $1`,
      [id, which.monthlyChars === true, which.rpm === true],
      READ_RETRIES,
    );
    return (r.rowCount ?? 0) > 0;
  }

  async resetPlan(name: records.PlanName, which: LimitFields) {
    const { rows } = await this.query<PlanRow>(
      `INSERT INTO plans AS p (name) VALUES ($1)
       ON CONFLICT (name) DO UPDATE
         SET monthly_chars = CASE WHEN $2 THEN NULL ELSE p.monthly_chars END,
             rpm = CASE WHEN $3 THEN NULL ELSE p.rpm END
       RETURNING monthly_chars, rpm`,
      [name, which.monthlyChars === true, which.rpm === true],
      READ_RETRIES,
    );
    return this.plan(name, rows[0]);
  }

  async listPlans() {
    const { rows } = await this.query<PlanRow & { name: string }>(
      'SELECT name, monthly_chars, rpm FROM plans',
      [],
      READ_RETRIES,
    );
    const byName = new Map(rows.map((r) => [r.name, r]));
    return PLAN_NAMES.map((n) => this.plan(n, byName.get(n)));
  }

  async setPlan(name: records.PlanName, patch: records.LimitsPatch) {
    const { rows } = await this.query<PlanRow>(
      `INSERT INTO plans AS p (name, monthly_chars, rpm) VALUES ($1, $3::BIGINT, $5::BIGINT)
       ON CONFLICT (name) DO UPDATE
         SET monthly_chars = CASE WHEN $2 THEN EXCLUDED.monthly_chars ELSE p.monthly_chars END,
             rpm = CASE WHEN $4 THEN EXCLUDED.rpm ELSE p.rpm END
       RETURNING monthly_chars, rpm`,
      [name, patch.monthlyChars !== undefined, encode(patch.monthlyChars), patch.rpm !== undefined, encode(patch.rpm)],
      READ_RETRIES,
    );
    return this.plan(name, rows[0]);
  }

  async limitsFor(keyId: string): Promise<records.Limits | undefined> {
    const { rows } = await this.query<{ plan: records.PlanName; km: Stored; kr: Stored; pm: Stored; pr: Stored }>(
      `SELECT k.plan, k.monthly_chars AS km, k.rpm AS kr, p.monthly_chars AS pm, p.rpm AS pr
       FROM api_keys k LEFT JOIN plans p ON p.name = k.plan WHERE k.id = $1`,
      [keyId],
      READ_RETRIES,
    );
    const r = rows[0];
    if (!r) return undefined;
    const plan = this.plan(r.plan, { monthly_chars: r.pm, rpm: r.pr });
    const km = decode(r.km);
    const kr = decode(r.kr);
    return {
      monthlyChars: km !== undefined ? km : plan.monthlyChars,
      rpm: kr !== undefined ? kr : plan.rpm,
    };
  }

  async charge(keyId: string, period: string, chars: number, named?: records.ChargeOptions, day?: string): Promise<records.ChargeOutcome> {
    const now = Date.now();
    const charge: PgCharge = { id: named?.id ?? randomUUID(), keyId, period, chars, day: day ?? new Date(now).toISOString().slice(0, 10) };
    let row: { status: string; used: number; lim: number } | undefined;
    try {
      ({ rows: [row] } = await this.query<{ status: string; used: number; lim: number }>(
        named
          ? 'SELECT status, used, lim FROM dragoman_charge_kept($1, $2, $3, $4, $5::JSONB, $6, $7, $8)'
          : 'SELECT status, used, lim FROM dragoman_charge($1, $2, $3, $4, $5::JSONB, $6, $7)',
        [charge.id, keyId, period, chars, this.monthlyDefaults, now, ...(named ? [named.keepUntil] : []), charge.day],
        CHARGE_RETRIES,
      ));
    } catch (err) {
      // The charge may have committed before the connection broke: make sure it does not stand.
      if (isUnavailableError(err)) this.toCancel.set(charge.id, { charge, since: Date.now() });
      throw err;
    }
    const limit: records.Limit = row!.lim === UNLIMITED ? null : row!.lim;
    switch (row!.status) {
      case 'charged':
      case 'already':
        return { ok: true, charge, used: row!.used, limit };
      case 'refused':
        return { ok: false, used: row!.used, limit };
      default:
        // 'cancelled': only a charge we gave up on is cancelled, and that call has already failed.
        throw new Error(`charge ${charge.id}: unexpected ledger status ${row!.status}`);
    }
  }

  async refund(charge: records.Charge): Promise<void> {
    const id = (charge as Partial<PgCharge>).id;
    if (id === undefined) throw new Error('refund of a charge this store did not make');
    try {
      await this.query(
        'SELECT dragoman_refund($1, $2, $3, $4)',
        [id, charge.keyId, charge.period, Date.now()],
        CHARGE_RETRIES,
      );
    } catch (err) {
      if (!isUnavailableError(err)) throw err;
      // Idempotent by id: finish it when the database is back.
      this.toCancel.set(id, { charge: { ...charge, id }, since: Date.now() });
    }
  }

  async credit(charge: records.Charge, chars: number): Promise<records.Charge> {
    const id = (charge as Partial<PgCharge>).id;
    const n = Math.min(chars, charge.chars);
    if (id === undefined || n <= 0) return charge;
    // One statement: the ledger entry (what a refund would give back), the month's usage and the day's row shrink together.
    await this.query(
      `WITH c AS (UPDATE charges SET chars = chars - $2 WHERE id = $1 AND NOT cancelled AND chars >= $2
                  RETURNING key_id, period, COALESCE(day, dragoman_day(at_ms)) AS day),
            m AS (UPDATE usage u SET chars = GREATEST(0, u.chars - $2) FROM c WHERE u.key_id = c.key_id AND u.period = c.period)
       UPDATE usage_days d SET chars = GREATEST(0, d.chars - $2) FROM c WHERE d.key_id = c.key_id AND d.day = c.day`,
      [id, n],
      NO_RETRIES,
    );
    return { ...charge, chars: charge.chars - n };
  }

  async hitRateLimit(keyId: string, limit: number | null, nowMs: number): Promise<records.RateOutcome> {
    if (limit === null) return { ok: true, limit: null, remaining: null, resetSeconds: 0 };
    this.lastHitAt = Math.max(this.lastHitAt, nowMs);
    // Not repeated on a lost connection: a hit has no id, so a repeat could count twice.
    const { rows } = await this.query<{ ok: boolean; n: number; oldest: number | null; nth: number | null }>(
      'SELECT ok, n, oldest, nth FROM dragoman_hit($1, $2, $3, $4)',
      [keyId, limit, nowMs, WINDOW_MS],
      NO_RETRIES,
    );
    const { ok, n, oldest, nth } = rows[0]!;
    if (ok) {
      const first = oldest ?? nowMs;
      return {
        ok: true,
        limit,
        remaining: limit - n - 1,
        resetSeconds: windowSeconds(first + WINDOW_MS - nowMs),
      };
    }
    // The window holds n >= limit requests: one more is accepted once the (n - limit + 1)th oldest leaves.
    // (A limit of 0 has no hit to wait for: a slot never frees, say a whole window.)
    const wait = nth === null ? WINDOW_MS / 1000 : Math.max(1, windowSeconds(nth + WINDOW_MS - nowMs));
    return { ok: false, limit, remaining: 0, retryAfterSeconds: wait, resetSeconds: wait };
  }

  async usage(keyId: string, period: string): Promise<records.UsageRow> {
    const { rows } = await this.query<{ chars: number; requests: number }>(
      'SELECT chars, requests FROM usage WHERE key_id = $1 AND period = $2',
      [keyId, period],
      READ_RETRIES,
    );
    return { keyId, period, chars: rows[0]?.chars ?? 0, requests: rows[0]?.requests ?? 0 };
  }

  async usageReport(period: string, keyId?: string): Promise<records.UsageRow[]> {
    const { rows } = await this.query<{ key_id: string; chars: number; requests: number }>(
      `SELECT k.id AS key_id, COALESCE(u.chars, 0) AS chars, COALESCE(u.requests, 0) AS requests
       FROM api_keys k LEFT JOIN usage u ON u.key_id = k.id AND u.period = $1
       WHERE $2::TEXT IS NULL OR k.id = $2
       ORDER BY k.created_at, k.id`,
      [period, keyId ?? null],
      READ_RETRIES,
    );
    return rows.map((r) => ({ keyId: r.key_id, period, chars: r.chars, requests: r.requests }));
  }

  async dailyUsage(query: records.DailyUsageQuery): Promise<records.DailyUsageRow[]> {
    const { rows } = await this.query<{
      key_id: string; plan: records.PlanName; day: string; chars: number; requests: number; document_chars: number; memory_chars: number;
    }>(
      `SELECT d.key_id, k.plan, d.day, d.chars, d.requests, d.document_chars, d.memory_chars
       FROM usage_days d JOIN api_keys k ON k.id = d.key_id
       WHERE d.day >= $1 AND d.day <= $2 AND ($3::TEXT IS NULL OR d.key_id = $3) AND ($4::TEXT IS NULL OR k.plan = $4)
         AND (d.chars > 0 OR d.requests > 0 OR d.memory_chars > 0)
       ORDER BY d.day, k.created_at, d.key_id`,
      [query.from, query.to, query.keyId ?? null, query.plan ?? null],
      READ_RETRIES,
    );
    return rows.map((r) => ({
      keyId: r.key_id,
      plan: r.plan,
      day: r.day,
      characters: Number(r.chars),
      requests: Number(r.requests),
      documentCharacters: Number(r.document_chars),
      memoryCharacters: Number(r.memory_chars),
    }));
  }

  async addAudit(entry: records.NewAuditLogEntry): Promise<void> {
    await this.query(
      'INSERT INTO audit_log (at, actor, action, key_id, detail) VALUES ($1, $2, $3, $4, $5)',
      [entry.at, entry.actor, entry.action, entry.keyId, JSON.stringify(entry.detail)],
      NO_RETRIES,
    );
  }

  async listAudit(since: number): Promise<records.AuditLogEntry[]> {
    const { rows } = await this.query<{ id: number; at: number; actor: string; action: string; key_id: string | null; detail: string }>(
      'SELECT id, at, actor, action, key_id, detail FROM audit_log WHERE at >= $1 ORDER BY at, id',
      [since],
      READ_RETRIES,
    );
    return rows.map((r) => ({
      id: Number(r.id),
      at: Number(r.at),
      actor: r.actor,
      action: r.action,
      keyId: r.key_id,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    }));
  }

  /**
   * Throws unless the database answers and accepts writes (for /ready): one row of schema_migrations is rewritten
   * unchanged and committed, so a standby, a read-only role or database, revoked rights or a full disk show here
   * and not only as failing charges (a SELECT alone kept /ready green while every charge was refused).
   */
  async ping(): Promise<void> {
    const { rows } = await this.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby', [], NO_RETRIES);
    if (rows[0]?.standby) throw new Error('the account database is a read-only standby');
    try {
      await this.query(
        'UPDATE schema_migrations SET applied_at = applied_at WHERE version = (SELECT min(version) FROM schema_migrations)',
        [],
        NO_RETRIES,
      );
    } catch (err) {
      if (err instanceof AccountsUnavailable) throw err;
      throw new Error(`the account database refuses writes: ${(err as Error).message}`);
    }
  }

  /** Charges waiting to be cancelled because the database was away (for tests and /ready details). */
  pendingCancellations(): number {
    return this.toCancel.size;
  }

  private async cancelPending(): Promise<void> {
    for (const [id, { charge, since }] of [...this.toCancel]) {
      if (this.closed) return;
      try {
        await this.pool.query('SELECT dragoman_refund($1, $2, $3, $4)', [id, charge.keyId, charge.period, Date.now()]);
        this.toCancel.delete(id);
      } catch {
        if (Date.now() - since > CANCEL_GIVE_UP_MS) this.toCancel.delete(id);
        return; // still away: try again on the next tick
      }
    }
  }

  /** Prune ledger rows and windows of keys that went quiet (each replica does it; it is cheap and idempotent). */
  private async maintain(): Promise<void> {
    if (!this.storage.migrated || this.closed) return;
    const now = Date.now();
    try {
      await this.pool.query('DELETE FROM charges WHERE at_ms < $1 AND (keep_until_ms IS NULL OR keep_until_ms < $2)', [now - LEDGER_TTL_MS, now]);
      // Twice the window, so a replica whose clock runs a little ahead never removes a hit still counted.
      if (this.lastHitAt > 0) {
        await this.pool.query('DELETE FROM rate_hits WHERE at_ms < $1', [this.lastHitAt - 2 * WINDOW_MS]);
      }
    } catch {
      // Database away: next time.
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    for (const t of this.timers) clearInterval(t);
    if (this.toCancel.size > 0) await this.cancelPending();
    this.closed = true; // the pool is the storage layer's, closed after the stores
  }
}

function isUnavailableError(err: unknown): boolean {
  return err instanceof AccountsUnavailable;
}
