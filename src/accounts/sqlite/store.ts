// SQLite backend of AccountStore (better-sqlite3), on the process's one connection (src/storage/sqlite: WAL, so the
// CLI and the server can use the same file at once). Statements prepared once, and every check-and-write in one IMMEDIATE
// transaction, which is what makes concurrent quota charges unable to overspend.
import type Database from 'better-sqlite3';
import type { SqliteStorage } from '../../storage/index.ts';
import type { AccountStore, LimitFields } from '../store.ts';
import type * as records from '../types.ts';
import { PLAN_NAMES } from '../types.ts';
import { encode, toKey, toPlan, type KeyRow, type PlanRow } from '../stored-row.ts';

/** The SQLite header's application id of a Dragoman database: "DRGM". Written by ping(). */
const APPLICATION_ID = 0x4452474d;

const WINDOW_MS = 60_000;
/** How long the mark of a refund that found no charge is kept (the charge it stands for can only come sooner). */
const MARK_MS = 24 * 60 * 60_000;



interface LedgerRow {
  key_id: string;
  period: string;
  chars: number;
  refunded: number;
  day: string | null;
}

/** The UTC day of a wall-clock time, as usage_days holds it. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

interface DailyRow {
  key_id: string;
  plan: records.PlanName;
  day: string;
  chars: number;
  requests: number;
  document_chars: number;
  memory_chars: number;
}

interface AuditLogRow {
  id: number;
  at: number;
  actor: string;
  action: string;
  key_id: string | null;
  detail: string;
}

export class SqliteAccountStore implements AccountStore {
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly tx;

  /** On the process's SQLite connection (src/storage/sqlite), which owns the schema and is closed after the stores. */
  constructor(
    storage: SqliteStorage,
    private readonly defaults: Record<records.PlanName, records.Limits>,
  ) {
    this.db = storage.db;
    const db = this.db;
    this.stmt = {
      insertKey: db.prepare(`INSERT INTO api_keys (id, prefix, hash, name, email, plan, monthly_chars, rpm, created_at)
        VALUES (@id, @prefix, @hash, @name, @email, @plan, @monthly_chars, @rpm, @created_at)`),
      keyByHash: db.prepare('SELECT * FROM api_keys WHERE hash = ?'),
      keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      keys: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      setKeyPlan: db.prepare('UPDATE api_keys SET plan = ? WHERE id = ?'),
      setKeyMonthly: db.prepare('UPDATE api_keys SET monthly_chars = ? WHERE id = ?'),
      setKeyRpm: db.prepare('UPDATE api_keys SET rpm = ? WHERE id = ?'),
      plan: db.prepare('SELECT monthly_chars, rpm FROM plans WHERE name = ?'),
      ensurePlan: db.prepare('INSERT OR IGNORE INTO plans (name) VALUES (?)'),
      setPlanMonthly: db.prepare('UPDATE plans SET monthly_chars = ? WHERE name = ?'),
      setPlanRpm: db.prepare('UPDATE plans SET rpm = ? WHERE name = ?'),
      usage: db.prepare('SELECT chars, requests FROM usage WHERE key_id = ? AND period = ?'),
      addUsage: db.prepare(`INSERT INTO usage (key_id, period, chars, requests) VALUES (?, ?, ?, 1)
        ON CONFLICT (key_id, period) DO UPDATE SET chars = chars + excluded.chars, requests = requests + 1`),
      refund: db.prepare(`UPDATE usage SET chars = MAX(0, chars - ?), requests = MAX(0, requests - 1)
        WHERE key_id = ? AND period = ?`),
      credit: db.prepare('UPDATE usage SET chars = MAX(0, chars - ?) WHERE key_id = ? AND period = ?'),
      creditLedger: db.prepare('UPDATE charges SET chars = chars - ? WHERE id = ? AND refunded = 0 AND chars >= ?'),
      creditDay: db.prepare('UPDATE usage_days SET chars = MAX(0, chars - ?) WHERE key_id = ? AND day = ?'),
      usageAll: db.prepare(`SELECT k.id AS key_id, COALESCE(u.chars, 0) AS chars, COALESCE(u.requests, 0) AS requests
        FROM api_keys k LEFT JOIN usage u ON u.key_id = k.id AND u.period = ? ORDER BY k.created_at, k.id`),
      addDay: db.prepare(`INSERT INTO usage_days (key_id, day, chars, requests, document_chars) VALUES (?, ?, ?, 1, ?)
        ON CONFLICT (key_id, day) DO UPDATE SET chars = chars + excluded.chars, requests = requests + 1,
          document_chars = document_chars + excluded.document_chars`),
      refundDay: db.prepare(`UPDATE usage_days SET chars = MAX(0, chars - ?), requests = MAX(0, requests - 1),
          document_chars = MAX(0, document_chars - ?) WHERE key_id = ? AND day = ?`),
      days: db.prepare(`SELECT d.key_id, k.plan, d.day, d.chars, d.requests, d.document_chars, d.memory_chars
        FROM usage_days d JOIN api_keys k ON k.id = d.key_id
        WHERE d.day >= @from AND d.day <= @to AND (@key IS NULL OR d.key_id = @key) AND (@plan IS NULL OR k.plan = @plan)
          AND (d.chars > 0 OR d.requests > 0 OR d.memory_chars > 0)
        ORDER BY d.day, k.created_at, d.key_id`),
      addAudit: db.prepare('INSERT INTO audit_log (at, actor, action, key_id, detail) VALUES (?, ?, ?, ?, ?)'),
      auditLog: db.prepare('SELECT id, at, actor, action, key_id, detail FROM audit_log WHERE at >= ? ORDER BY at, id'),
      ledger: db.prepare('SELECT key_id, period, chars, refunded, day FROM charges WHERE id = ?'),
      addLedger: db.prepare('INSERT INTO charges (id, key_id, period, chars, keep_until, refunded, day) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      markRefunded: db.prepare('UPDATE charges SET refunded = 1 WHERE id = ? AND refunded = 0'),
      pruneLedger: db.prepare('DELETE FROM charges WHERE keep_until < ?'),
      dropOldHits: db.prepare('DELETE FROM rate_hits WHERE key_id = ? AND at_ms <= ?'),
      countHits: db.prepare('SELECT COUNT(*) AS n, MIN(at_ms) AS oldest FROM rate_hits WHERE key_id = ?'),
      nthHit: db.prepare('SELECT at_ms FROM rate_hits WHERE key_id = ? ORDER BY at_ms LIMIT 1 OFFSET ?'),
      addHit: db.prepare('INSERT INTO rate_hits (key_id, at_ms) VALUES (?, ?)'),
    };
    this.tx = {
      charge: db.transaction((keyId: string, period: string, chars: number, day: string, document = false): records.ChargeOutcome => {
        const limits = this.limitsSync(keyId);
        if (!limits) return { ok: false, used: 0, limit: 0 }; // no such key: nothing can be charged
        const limit = limits.monthlyChars;
        const row = this.stmt.usage.get(keyId, period) as { chars: number } | undefined;
        const used = row?.chars ?? 0;
        if (limit !== null && used + chars > limit) return { ok: false, used, limit };
        this.stmt.addUsage.run(keyId, period, chars);
        // The day's row in the same transaction: the per-day report adds up to the month's usage.
        this.stmt.addDay.run(keyId, day, chars, document ? chars : 0);
        return { ok: true, charge: { keyId, period, chars, day }, used: used + chars, limit };
      }),
      /** A named charge: once per id (a repeat answers as the first did), recorded in the ledger. */
      chargeNamed: db.transaction((keyId: string, period: string, chars: number, named: records.ChargeOptions, day: string): records.ChargeOutcome => {
        this.stmt.pruneLedger.run(Date.now());
        const prior = this.stmt.ledger.get(named.id) as LedgerRow | undefined;
        if (prior) {
          if (prior.refunded) throw new Error(`charge ${named.id} was refunded before it was made`);
          const used = (this.stmt.usage.get(prior.key_id, prior.period) as { chars: number } | undefined)?.chars ?? 0;
          const charge = { id: named.id, keyId: prior.key_id, period: prior.period, chars: prior.chars, ...(prior.day ? { day: prior.day } : {}) };
          return { ok: true, charge, used, limit: this.limitsSync(keyId)?.monthlyChars ?? null };
        }
        const outcome = this.tx.charge(keyId, period, chars, day, true);
        if (!outcome.ok) return outcome;
        this.stmt.addLedger.run(named.id, keyId, period, chars, named.keepUntil, 0, outcome.charge.day ?? null);
        return { ...outcome, charge: { ...outcome.charge, id: named.id } };
      }),
      /** A named charge given back once; an id not (yet) charged is marked refunded so it never will be. */
      refundNamed: db.transaction((charge: records.Charge & { id: string }): void => {
        const prior = this.stmt.ledger.get(charge.id) as LedgerRow | undefined;
        if (!prior) {
          this.stmt.addLedger.run(charge.id, charge.keyId, charge.period, 0, Date.now() + MARK_MS, 1, null);
          return;
        }
        if (this.stmt.markRefunded.run(charge.id).changes === 1) {
          this.stmt.refund.run(prior.chars, prior.key_id, prior.period);
          if (prior.day) this.stmt.refundDay.run(prior.chars, prior.chars, prior.key_id, prior.day);
        }
      }),
      /** A charge without an id: the month's row and the day's row given back together. */
      refundPlain: db.transaction((charge: records.Charge): void => {
        this.stmt.refund.run(charge.chars, charge.keyId, charge.period);
        if (charge.day) this.stmt.refundDay.run(charge.chars, 0, charge.keyId, charge.day);
      }),
      hit: db.transaction((keyId: string, limit: number, now: number): records.RateOutcome => {
        this.stmt.dropOldHits.run(keyId, now - WINDOW_MS);
        const { n, oldest } = this.stmt.countHits.get(keyId) as { n: number; oldest: number | null };
        if (n < limit) {
          this.stmt.addHit.run(keyId, now);
          const first = oldest ?? now;
          return {
            ok: true,
            limit,
            remaining: limit - n - 1,
            resetSeconds: Math.ceil((first + WINDOW_MS - now) / 1000),
          };
        }
        // The window holds n >= limit requests: one more is accepted once the (n - limit + 1)th oldest leaves.
        // (A limit of 0 has no hit to wait for: a slot never frees, say a whole window.)
        const nth = limit > 0 ? (this.stmt.nthHit.get(keyId, n - limit) as { at_ms: number } | undefined) : undefined;
        const wait = nth === undefined ? WINDOW_MS / 1000 : Math.max(1, Math.ceil((nth.at_ms + WINDOW_MS - now) / 1000));
        return { ok: false, limit, remaining: 0, retryAfterSeconds: wait, resetSeconds: wait };
      }),
      setPlan: db.transaction((name: records.PlanName, patch: records.LimitsPatch) => {
        this.stmt.ensurePlan.run(name);
        if (patch.monthlyChars !== undefined) this.stmt.setPlanMonthly.run(encode(patch.monthlyChars), name);
        if (patch.rpm !== undefined) this.stmt.setPlanRpm.run(encode(patch.rpm), name);
      }),
      setKeyOverrides: db.transaction((id: string, patch: records.LimitsPatch): boolean => {
        if (!this.stmt.keyById.get(id)) return false;
        if (patch.monthlyChars !== undefined) this.stmt.setKeyMonthly.run(encode(patch.monthlyChars), id);
        if (patch.rpm !== undefined) this.stmt.setKeyRpm.run(encode(patch.rpm), id);
        return true;
      }),
      clearKey: db.transaction((id: string, which: LimitFields): boolean => {
        if (!this.stmt.keyById.get(id)) return false;
        if (which.monthlyChars) this.stmt.setKeyMonthly.run(null, id);
        if (which.rpm) this.stmt.setKeyRpm.run(null, id);
        return true;
      }),
      resetPlan: db.transaction((name: records.PlanName, which: LimitFields) => {
        this.stmt.ensurePlan.run(name);
        if (which.monthlyChars) this.stmt.setPlanMonthly.run(null, name);
        if (which.rpm) this.stmt.setPlanRpm.run(null, name);
      }),
    };
  }

  private planSync(name: records.PlanName): records.Plan {
    return toPlan(name, this.stmt.plan.get(name) as PlanRow | undefined, this.defaults[name]);
  }

  private limitsSync(keyId: string): records.Limits | undefined {
    const row = this.stmt.keyById.get(keyId) as KeyRow | undefined;
    if (!row) return undefined;
    const key = toKey(row);
    const plan = this.planSync(key.plan);
    return {
      monthlyChars: key.overrides.monthlyChars !== undefined ? key.overrides.monthlyChars : plan.monthlyChars,
      rpm: key.overrides.rpm !== undefined ? key.overrides.rpm : plan.rpm,
    };
  }

  async insertKey(key: records.NewKey): Promise<records.KeyRecord> {
    this.stmt.insertKey.run({
      id: key.id,
      prefix: key.prefix,
      hash: key.hash,
      name: key.name ?? null,
      email: key.email ?? null,
      plan: key.plan,
      monthly_chars: encode(key.overrides?.monthlyChars),
      rpm: encode(key.overrides?.rpm),
      created_at: key.createdAt,
    });
    return toKey(this.stmt.keyById.get(key.id) as KeyRow);
  }

  async findKeyByHash(hash: string) {
    const row = this.stmt.keyByHash.get(hash) as KeyRow | undefined;
    return row ? { key: toKey(row), hash: row.hash } : undefined;
  }

  async getKey(id: string) {
    const row = this.stmt.keyById.get(id) as KeyRow | undefined;
    return row ? toKey(row) : undefined;
  }

  async listKeys() {
    return (this.stmt.keys.all() as KeyRow[]).map(toKey);
  }

  async revokeKey(id: string, at: number) {
    return this.stmt.revoke.run(at, id).changes > 0;
  }

  async setKeyPlan(id: string, plan: records.PlanName) {
    return this.stmt.setKeyPlan.run(plan, id).changes > 0;
  }

  async setKeyOverrides(id: string, patch: records.LimitsPatch) {
    return this.tx.setKeyOverrides.immediate(id, patch);
  }

  async clearKeyOverrides(id: string, which: LimitFields) {
    return this.tx.clearKey.immediate(id, which);
  }

  async resetPlan(name: records.PlanName, which: LimitFields) {
    this.tx.resetPlan.immediate(name, which);
    return this.planSync(name);
  }

  async listPlans() {
    return PLAN_NAMES.map((n) => this.planSync(n));
  }

  async setPlan(name: records.PlanName, patch: records.LimitsPatch) {
    this.tx.setPlan.immediate(name, patch);
    return this.planSync(name);
  }

  async limitsFor(keyId: string) {
    return this.limitsSync(keyId);
  }

  async charge(keyId: string, period: string, chars: number, named?: records.ChargeOptions, day = dayOf(Date.now())) {
    return named ? this.tx.chargeNamed.immediate(keyId, period, chars, named, day) : this.tx.charge.immediate(keyId, period, chars, day);
  }

  async refund(charge: records.Charge) {
    if (charge.id !== undefined) this.tx.refundNamed.immediate({ ...charge, id: charge.id });
    else this.tx.refundPlain.immediate(charge);
  }

  async credit(charge: records.Charge, chars: number): Promise<records.Charge> {
    const n = Math.min(chars, charge.chars);
    if (n <= 0) return charge;
    this.db.transaction(() => {
      let day = charge.day;
      if (charge.id !== undefined) {
        // A named charge's ledger entry holds what a refund gives back: it shrinks with the credit, or, refunded, takes none.
        if (this.stmt.creditLedger.run(n, charge.id, n).changes === 0) return;
        day = (this.stmt.ledger.get(charge.id) as LedgerRow | undefined)?.day ?? day;
      }
      // The month and the day the charge counts in shrink together, so the per-day report adds up to the month.
      this.stmt.credit.run(n, charge.keyId, charge.period);
      if (day) this.stmt.creditDay.run(n, charge.keyId, day);
    }).immediate();
    return { ...charge, chars: charge.chars - n };
  }

  async hitRateLimit(keyId: string, limit: number | null, nowMs: number): Promise<records.RateOutcome> {
    if (limit === null) return { ok: true, limit: null, remaining: null, resetSeconds: 0 };
    return this.tx.hit.immediate(keyId, limit, nowMs);
  }

  async usage(keyId: string, period: string): Promise<records.UsageRow> {
    const row = this.stmt.usage.get(keyId, period) as { chars: number; requests: number } | undefined;
    return { keyId, period, chars: row?.chars ?? 0, requests: row?.requests ?? 0 };
  }

  async usageReport(period: string, keyId?: string): Promise<records.UsageRow[]> {
    const rows = this.stmt.usageAll.all(period) as { key_id: string; chars: number; requests: number }[];
    return rows
      .filter((r) => keyId === undefined || r.key_id === keyId)
      .map((r) => ({ keyId: r.key_id, period, chars: r.chars, requests: r.requests }));
  }

  async dailyUsage(query: records.DailyUsageQuery): Promise<records.DailyUsageRow[]> {
    const rows = this.stmt.days.all({ from: query.from, to: query.to, key: query.keyId ?? null, plan: query.plan ?? null }) as DailyRow[];
    return rows.map((r) => ({
      keyId: r.key_id,
      plan: r.plan,
      day: r.day,
      characters: r.chars,
      requests: r.requests,
      documentCharacters: r.document_chars,
      memoryCharacters: r.memory_chars,
    }));
  }

  async addAudit(entry: records.NewAuditLogEntry): Promise<void> {
    this.stmt.addAudit.run(entry.at, entry.actor, entry.action, entry.keyId, JSON.stringify(entry.detail));
  }

  async listAudit(since: number): Promise<records.AuditLogEntry[]> {
    return (this.stmt.auditLog.all(since) as AuditLogRow[]).map((r) => ({
      id: r.id,
      at: r.at,
      actor: r.actor,
      action: r.action,
      keyId: r.key_id,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    }));
  }

  async ping() {
    // A committed write, the smallest there is (the header's application id, 'DRGM'): taking the write lock and
    // rolling back writes nothing, so it passed on a full disk while every charge failed.
    this.db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
  }

  /** Nothing of its own to release: the connection belongs to the storage layer. */
  async close() {}
}
