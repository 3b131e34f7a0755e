// The persistence contract of accounts. Async so a networked backend (PostgreSQL) fits without a rewrite;
// every method that checks and writes must be atomic in the backend (one transaction), because concurrent
// requests, other server processes and the CLI share the same data.
import type {
  Charge,
  ChargeOptions,
  ChargeOutcome,
  KeyRecord,
  Limits,
  LimitsPatch,
  NewKey,
  Plan,
  PlanName,
  RateOutcome,
  UsageRow,
  AuditLogEntry,
  DailyUsageQuery,
  DailyUsageRow,
  NewAuditLogEntry,
} from './types.ts';

/** The limits a reset touches: a field set to true goes back to where it comes from (the plan, or the built-in figure). */
export interface LimitFields {
  monthlyChars?: boolean;
  rpm?: boolean;
}

export interface AccountStore {
  insertKey(key: NewKey): Promise<KeyRecord>;
  /** The key whose secret hashes to `hash` (revoked ones included, so callers can say "revoked"). */
  findKeyByHash(hash: string): Promise<{ key: KeyRecord; hash: string } | undefined>;
  getKey(id: string): Promise<KeyRecord | undefined>;
  listKeys(): Promise<KeyRecord[]>;
  /** false when no such key (or already revoked). */
  revokeKey(id: string, at: number): Promise<boolean>;
  setKeyPlan(id: string, plan: PlanName): Promise<boolean>;
  setKeyOverrides(id: string, patch: LimitsPatch): Promise<boolean>;
  /** Drop overrides so the key follows its plan again. */
  clearKeyOverrides(id: string, which: LimitFields): Promise<boolean>;

  listPlans(): Promise<Plan[]>;
  setPlan(name: PlanName, patch: LimitsPatch): Promise<Plan>;
  /** Back to the built-in figures (and the rate preset) for the chosen fields. */
  resetPlan(name: PlanName, which: LimitFields): Promise<Plan>;
  /** Effective limits of a key: its own overrides, else its plan's. */
  limitsFor(keyId: string): Promise<Limits | undefined>;

  /**
   * Atomically: if used(period) + chars <= monthly limit, add chars (and one request) and return the charge;
   * otherwise change nothing. `period` is the quota month (`YYYY-MM`). With `named`, a charge of an id already
   * charged changes nothing and answers as the first did (ok, the same charge). `day` (UTC `YYYY-MM-DD`, within
   * `period`; default: today by the system clock): the row of usage_days the charge is added to, in the same transaction.
   */
  charge(keyId: string, period: string, chars: number, named?: ChargeOptions, day?: string): Promise<ChargeOutcome>;
  /**
   * Undo a charge (the request failed). A charge with an id is given back once whatever the number of calls, and
   * refunding an id never charged leaves a mark that makes a later charge of it fail; a charge without one is the
   * caller's to refund once.
   */
  refund(charge: Charge): Promise<void>;
  /**
   * Give back `chars` of a charge that stands (a request answered, part of whose characters its plan does not bill:
   * those served from a translation memory), atomically with the charge's own record, and answer the charge as it
   * now is, so a later refund gives back only what is left. The request stays counted. Not repeated on a lost
   * connection: a credit that did not happen leaves the characters charged.
   */
  credit(charge: Charge, chars: number): Promise<Charge>;

  /**
   * Atomically record a request at `nowMs` in the key's rolling 60 s window if fewer than `limit` requests
   * are in it; otherwise record nothing and say when a slot frees. `limit` null = unlimited.
   */
  hitRateLimit(keyId: string, limit: number | null, nowMs: number): Promise<RateOutcome>;

  usage(keyId: string, period: string): Promise<UsageRow>;
  /** Usage of every key (or one) in a period, keys without usage included with zeros. */
  usageReport(period: string, keyId?: string): Promise<UsageRow[]>;

  /** The per-day ledger between two days (included), keys with nothing charged left out; by day, then key. */
  dailyUsage(query: DailyUsageQuery): Promise<DailyUsageRow[]>;

  /** Record a key operation in the audit log. */
  addAudit(entry: NewAuditLogEntry): Promise<void>;
  /** Entries of the audit log at or after `since` (ms), oldest first. */
  listAudit(since: number): Promise<AuditLogEntry[]>;

  /** Throws unless the database answers and accepts writes (for /ready). */
  ping(): Promise<void>;

  close(): Promise<void>;
}
