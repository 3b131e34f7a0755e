// Records of the account store. Limits use `null` for "unlimited" everywhere outside the storage layer.

export const PLAN_NAMES = ['free', 'basic', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export function isPlanName(s: string): s is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(s);
}

/** A limit value: a non-negative integer, or null = unlimited. */
export type Limit = number | null;

export interface Limits {
  monthlyChars: Limit;
  rpm: Limit;
}

/** A change to limits: undefined = leave as is / inherit, null = unlimited, number = that value. */
export interface LimitsPatch {
  monthlyChars?: Limit;
  rpm?: Limit;
}

export interface Plan extends Limits {
  name: PlanName;
  /** Which figures were set by an operator (`plans set`) instead of coming from the defaults. */
  customized: { monthlyChars: boolean; rpm: boolean };
}

export interface KeyRecord {
  /** Short public id the CLI uses (`k_...`); not a secret. */
  id: string;
  /** First characters of the secret, shown in listings so an operator can recognise a key. */
  prefix: string;
  name: string | null;
  email: string | null;
  plan: PlanName;
  /** Per-key overrides of the plan's figures; undefined = inherit the plan's. */
  overrides: { monthlyChars?: Limit; rpm?: Limit };
  createdAt: number;
  revokedAt: number | null;
}

export interface NewKey {
  id: string;
  prefix: string;
  hash: string;
  name?: string | null;
  email?: string | null;
  plan: PlanName;
  overrides?: LimitsPatch;
  createdAt: number;
}

/** A charge that was written; pass it back to `refund` when the request fails. */
export interface Charge {
  keyId: string;
  period: string;
  chars: number;
  /** The UTC day (`YYYY-MM-DD`) the charge counts in (usage_days): its refund is taken off that day. */
  day?: string;
  /** The ledger id (every PostgreSQL charge; a SQLite charge made with one): its refund happens at most once. */
  id?: string;
}

/**
 * A charge the caller names (a document job: its id): charging the same id again charges nothing more, refunding
 * it again gives nothing more back, and its ledger entry is kept until `keepUntil` (wall-clock ms), however late
 * the refund comes.
 */
export interface ChargeOptions {
  id: string;
  keepUntil: number;
}

export type ChargeOutcome =
  | { ok: true; charge: Charge; used: number; limit: Limit }
  | { ok: false; used: number; limit: Limit };

export type RateOutcome =
  | { ok: true; limit: Limit; remaining: number | null; resetSeconds: number }
  | { ok: false; limit: number; remaining: 0; retryAfterSeconds: number; resetSeconds: number };

export interface UsageRow {
  keyId: string;
  period: string;
  chars: number;
  requests: number;
}

/** What one key was charged on one UTC day (the per-day ledger written with each charge). */
export interface DailyUsageRow {
  keyId: string;
  plan: PlanName;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  characters: number;
  requests: number;
  /** Part of `characters` charged by document jobs. */
  documentCharacters: number;
  /** Characters served from the key's translation memories (charged like any others, counted apart). */
  memoryCharacters: number;
}

export interface DailyUsageQuery {
  /** First and last day included, `YYYY-MM-DD`. */
  from: string;
  to: string;
  keyId?: string;
  plan?: PlanName;
}

/**
 * Who made a key change: the CLI's system user, the admin surface, the public signup (POST /v1/signup), or the
 * server's first start on an empty local database (the one key it prints).
 */
export type Actor = `cli:${string}` | 'admin' | 'signup' | 'first-start';

export interface AuditLogEntry {
  id: number;
  at: number;
  actor: string;
  /** key.create, key.revoke, key.set-plan, key.set-limits */
  action: string;
  keyId: string | null;
  /** What changed (plan, limits, name); never a secret. */
  detail: Record<string, unknown>;
}

export type NewAuditLogEntry = Omit<AuditLogEntry, 'id'>;
