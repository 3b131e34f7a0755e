// dragoman plans list|set
import { isPlanName, PLAN_NAMES } from '../../accounts/types.ts';
import { withAccounts } from '../accounts-context.ts';
import { formatLimit, parseLimit, table, usageError, type CliIo } from '../io.ts';
import { groupHelp, helpOrUnknown, misuse, parse, syntax } from '../syntax.ts';

export const summary = 'show and edit the plans (monthly characters, requests per minute)';

const LIST = syntax({
  command: 'plans list',
  about: 'Show each plan\'s characters a month and requests per minute. "(set)" marks a figure set with "plans set"; the\n' +
    'others are the built-in ones, requests per minute from DRAGOMAN_RATE_PRESET (give it the server\'s value).',
  flags: { json: { type: 'boolean', about: 'print the plans as JSON' } },
});

const SET = syntax({
  command: 'plans set',
  args: 'PLAN',
  about: `Change a plan's figures (at least one of the two) for every key on it; PLAN: ${PLAN_NAMES.join(', ')}.`,
  flags: {
    'monthly-chars': { type: 'string', value: 'N|unlimited|default', about: 'characters a month' },
    rpm: { type: 'string', value: 'N|unlimited|default', about: 'requests per minute' },
  },
  notes: ['"default" returns to the built-in figure (rpm: the preset DRAGOMAN_RATE_PRESET).'],
});

const HELP = groupHelp('plans', [LIST, SET], [
  `plans: ${PLAN_NAMES.join(', ')}; "default" returns to the built-in figure (rpm: DRAGOMAN_RATE_PRESET)`,
]);

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parse(LIST, rest);
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
      const { values, positionals } = parse(SET, rest);
      if (positionals.length !== 1) throw misuse(SET, 'expected one PLAN');
      const name = positionals[0]!;
      if (!isPlanName(name)) throw usageError(`unknown plan "${name}": use one of ${PLAN_NAMES.join(', ')}`);
      const isDefault = (v: string | undefined) => v?.toLowerCase() === 'default';
      const m = values['monthly-chars'];
      const r = values.rpm;
      if (m === undefined && r === undefined) throw misuse(SET, 'give --monthly-chars and/or --rpm');
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
