// How both backends store keys and limits (same columns in both migrations): a limit column is NULL for
// "inherit from the plan" and -1 for "unlimited", so one integer column says all three states.
import type { KeyRecord, Limit, Limits, Plan, PlanName } from './types.ts';

export type Stored = number | null;
export const UNLIMITED = -1;
export const encode = (v: Limit | undefined): Stored => (v === undefined ? null : v === null ? UNLIMITED : v);
export const decode = (v: Stored): Limit | undefined => (v === null ? undefined : v === UNLIMITED ? null : v);

/** A row of the `keys` table as both drivers return it. */
export interface KeyRow {
  id: string;
  prefix: string;
  hash: string;
  name: string | null;
  email: string | null;
  plan: string;
  monthly_chars: Stored;
  rpm: Stored;
  created_at: number;
  revoked_at: number | null;
}

export function toKey(r: KeyRow): KeyRecord {
  const overrides: KeyRecord['overrides'] = {};
  const m = decode(r.monthly_chars);
  const p = decode(r.rpm);
  if (m !== undefined) overrides.monthlyChars = m;
  if (p !== undefined) overrides.rpm = p;
  return {
    id: r.id,
    prefix: r.prefix,
    name: r.name,
    email: r.email,
    plan: r.plan as PlanName,
    overrides,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

/** The limit columns of a row of the `plans` table. */
export interface PlanRow {
  monthly_chars: Stored;
  rpm: Stored;
}

/** The plan from its row (undefined: never changed), a limit the row does not set taken from `builtIn`. */
export function toPlan(name: PlanName, row: PlanRow | undefined, builtIn: Limits): Plan {
  const m = decode(row?.monthly_chars ?? null);
  const r = decode(row?.rpm ?? null);
  return {
    name,
    monthlyChars: m === undefined ? builtIn.monthlyChars : m,
    rpm: r === undefined ? builtIn.rpm : r,
    customized: { monthlyChars: m !== undefined, rpm: r !== undefined },
  };
}
