// Built-in plan figures. The specification gives two conflicting requests-per-minute sets; which one applies
// by default is DRAGOMAN_RATE_PRESET (A or B), and `dragoman plans set` overrides any figure in the database.
import type { Limits, PlanName } from './types.ts';

export type RatePreset = 'A' | 'B';

const MONTHLY_CHARS: Record<PlanName, number | null> = {
  free: 500_000,
  basic: 5_000_000,
  pro: 50_000_000,
  enterprise: null, // custom: unlimited unless the plan or the key sets an amount
};

const RPM: Record<RatePreset, Record<PlanName, number | null>> = {
  A: { free: 10, basic: 60, pro: 300, enterprise: null },
  B: { free: 100, basic: 300, pro: 1000, enterprise: null },
};

export function defaultPlanLimits(preset: RatePreset): Record<PlanName, Limits> {
  const out = {} as Record<PlanName, Limits>;
  for (const name of Object.keys(MONTHLY_CHARS) as PlanName[]) {
    out[name] = { monthlyChars: MONTHLY_CHARS[name], rpm: RPM[preset][name] };
  }
  return out;
}
