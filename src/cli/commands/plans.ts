// dragoman plans list|set
import { isPlanName, PLAN_NAMES } from '../../accounts/types.ts';
import { withAccounts } from '../accounts-context.ts';
import { formatLimit, parse, parseLimit, table, usageError, helpOrUnknown, type CliIo } from '../io.ts';

export const summary = 'show and edit the plans (monthly characters, requests per minute)';

const HELP = `usage:
  dragoman plans list [--json]
  dragoman plans set PLAN [--monthly-chars N|unlimited|default] [--rpm N|unlimited|default]
plans: ${PLAN_NAMES.join(', ')}; "default" returns to the built-in figure (rpm: DRAGOMAN_RATE_PRESET)`;

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } }, false);
      const { plans, preset } = await withAccounts(io, async (a, config) => ({
        plans: await a.store.listPlans(),
        preset: config.ratePreset,
      }));
      if (values.json) {
        io.out(JSON.stringify(plans));
        return 0;
      }
      const rows = [['PLAN', 'MONTHLY CHARS', 'REQUESTS/MIN']];
      for (const p of plans) {
        rows.push([
          p.name,
          formatLimit(p.monthlyChars) + (p.customized.monthlyChars ? ' (set)' : ''),
          formatLimit(p.rpm) + (p.customized.rpm ? ' (set)' : ` (preset ${preset})`),
        ]);
      }
      table(rows).forEach((l) => io.out(l));
      return 0;
    }
    case 'set': {
      const { values, positionals } = parse(rest, { 'monthly-chars': { type: 'string' }, rpm: { type: 'string' } });
      if (positionals.length !== 1) throw usageError(`expected one PLAN\n${HELP}`);
      const name = positionals[0]!;
      if (!isPlanName(name)) throw usageError(`unknown plan "${name}": use one of ${PLAN_NAMES.join(', ')}`);
      const isDefault = (v: string | undefined) => v?.toLowerCase() === 'default';
      const m = values['monthly-chars'];
      const r = values.rpm;
      if (m === undefined && r === undefined) throw usageError(`give --monthly-chars and/or --rpm\n${HELP}`);
      const patch = {
        monthlyChars: isDefault(m) ? undefined : parseLimit('--monthly-chars', m),
        rpm: isDefault(r) ? undefined : parseLimit('--rpm', r),
      };
      const plan = await withAccounts(io, async (a) => {
        if (isDefault(m) || isDefault(r)) await a.store.resetPlan(name, { monthlyChars: isDefault(m), rpm: isDefault(r) });
        return a.store.setPlan(name, patch);
      }, { create: true });
      io.out(`Plan ${plan.name}: ${formatLimit(plan.monthlyChars)} characters per month, ${formatLimit(plan.rpm)} requests per minute.`);
      return 0;
    }
    default:
      return helpOrUnknown(io, 'plans', sub, HELP);
  }
}
