// dragoman keys create|list|revoke|set-plan|set-limits
import { isEmailAddress } from '../../accounts/accounts.ts';
import { isPlanName, PLAN_NAMES, type KeyRecord, type PlanName } from '../../accounts/types.ts';
import { withAccounts } from '../accounts-context.ts';
import { CliError, formatLimit, parse, parseLimit, table, usageError, helpOrUnknown, type CliIo } from '../io.ts';

export const summary = 'create, list and revoke API keys';

const HELP = `usage:
  dragoman keys create --plan PLAN [--name N] [--email E] [--monthly-chars N|unlimited] [--rpm N|unlimited] [--json]
  dragoman keys list [--json]
  dragoman keys revoke ID
  dragoman keys set-plan ID PLAN
  dragoman keys set-limits ID [--monthly-chars N|unlimited|plan] [--rpm N|unlimited|plan]
plans: ${PLAN_NAMES.join(', ')}`;

function plan(value: string | undefined): PlanName {
  if (value === undefined) throw usageError(`--plan is required (one of ${PLAN_NAMES.join(', ')})\n${HELP}`);
  if (!isPlanName(value)) throw usageError(`unknown plan "${value}": use one of ${PLAN_NAMES.join(', ')}`);
  return value;
}

function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw usageError(`expected ${what}\n${HELP}`);
  return positionals[0]!;
}

function overridesText(k: KeyRecord): string {
  const parts: string[] = [];
  if (k.overrides.monthlyChars !== undefined) parts.push(`monthly-chars=${formatLimit(k.overrides.monthlyChars)}`);
  if (k.overrides.rpm !== undefined) parts.push(`rpm=${formatLimit(k.overrides.rpm)}`);
  return parts.join(' ');
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const { values, positionals } = parse(rest, {
        plan: { type: 'string' },
        name: { type: 'string' },
        email: { type: 'string' },
        'monthly-chars': { type: 'string' },
        rpm: { type: 'string' },
        json: { type: 'boolean' },
      });
      if (positionals.length) throw usageError(`unexpected argument "${positionals[0]}"\n${HELP}`);
      const input = {
        plan: plan(values.plan),
        name: values.name,
        email: checkedEmail(values.email),
        monthlyChars: parseLimit('--monthly-chars', values['monthly-chars']),
        rpm: parseLimit('--rpm', values.rpm),
      };
      const { key, secret } = await withAccounts(io, (a) => a.createKey(input), { create: true });
      if (values.json) io.out(JSON.stringify({ id: key.id, key: secret, plan: key.plan }));
      else {
        io.out(`Created key ${key.id} (plan ${key.plan}${overridesText(key) ? ', ' + overridesText(key) : ''}):`);
        io.out(secret);
        io.out('Store it now: it is shown only once. Clients send it in the X-API-Key header.');
      }
      return 0;
    }
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } }, false);
      const keys = await withAccounts(io, (a) => a.store.listKeys());
      if (values.json) {
        io.out(JSON.stringify(keys));
        return 0;
      }
      if (!keys.length) {
        io.out('No keys. Create one with: dragoman keys create --plan free');
        return 0;
      }
      const rows = [['ID', 'PREFIX', 'PLAN', 'STATUS', 'CREATED', 'NAME', 'OVERRIDES']];
      for (const k of keys) {
        rows.push([
          k.id,
          k.prefix + '…',
          k.plan,
          k.revokedAt === null ? 'active' : 'revoked',
          new Date(k.createdAt).toISOString().slice(0, 19) + 'Z',
          k.name ?? '',
          overridesText(k),
        ]);
      }
      table(rows).forEach((l) => io.out(l));
      return 0;
    }
    case 'revoke': {
      const { positionals } = parse(rest, {});
      const id = one(positionals, 'one key ID');
      const ok = await withAccounts(io, async (a) => {
        const key = await a.store.getKey(id);
        if (!key) throw new CliError(`no key with ID "${id}" (see dragoman keys list)`);
        if (key.revokedAt !== null) throw new CliError(`key ${id} is already revoked`);
        return a.store.revokeKey(id, a.clock.now());
      });
      if (ok) io.out(`Revoked key ${id}.`);
      return ok ? 0 : 1;
    }
    case 'set-plan': {
      const { positionals } = parse(rest, {});
      if (positionals.length !== 2) throw usageError(`expected ID and PLAN\n${HELP}`);
      const [id, name] = positionals as [string, string];
      const p = plan(name);
      const ok = await withAccounts(io, (a) => a.store.setKeyPlan(id, p));
      if (!ok) throw new CliError(`no key with ID "${id}" (see dragoman keys list)`);
      io.out(`Key ${id} is now on plan ${p}.`);
      return 0;
    }
    case 'set-limits': {
      const { values, positionals } = parse(rest, { 'monthly-chars': { type: 'string' }, rpm: { type: 'string' } });
      const id = one(positionals, 'one key ID');
      // `plan` removes the override: the key follows its plan again.
      const lim = (flag: string, v: string | undefined) =>
        v?.toLowerCase() === 'plan' ? ('plan' as const) : parseLimit(flag, v);
      const m = lim('--monthly-chars', values['monthly-chars']);
      const r = lim('--rpm', values.rpm);
      if (m === undefined && r === undefined) throw usageError(`give --monthly-chars and/or --rpm\n${HELP}`);
      const ok = await withAccounts(io, async (a) => {
        const patch: { monthlyChars?: number | null; rpm?: number | null } = {};
        if (m !== undefined && m !== 'plan') patch.monthlyChars = m;
        if (r !== undefined && r !== 'plan') patch.rpm = r;
        const done = await a.store.setKeyOverrides(id, patch);
        if (done && (m === 'plan' || r === 'plan')) {
          await a.store.clearKeyOverrides(id, { monthlyChars: m === 'plan', rpm: r === 'plan' });
        }
        return done;
      });
      if (!ok) throw new CliError(`no key with ID "${id}" (see dragoman keys list)`);
      io.out(`Limits of key ${id} updated.`);
      return 0;
    }
    default:
      return helpOrUnknown(io, 'keys', sub, HELP);
  }
}

/** The same rule as POST /v1/signup, so a key made here could also have been made there. */
function checkedEmail(email: string | undefined): string | undefined {
  if (email !== undefined && !isEmailAddress(email)) throw usageError(`--email "${email}" is not an email address`);
  return email;
}
