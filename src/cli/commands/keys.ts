// dragoman keys create|list|revoke|set-plan|set-limits
import { type Accounts, isEmailAddress } from '../../accounts/accounts.ts';
import { isPlanName, PLAN_NAMES, type KeyRecord, type PlanName } from '../../accounts/types.ts';
import { withAccounts } from '../accounts-context.ts';
import { CliError, formatLimit, parseLimit, printable, printableJson, table, usageError, type CliIo } from '../io.ts';
import { groupHelp, helpOrUnknown, misuse, parse, syntax, type Syntax } from '../syntax.ts';
import { unsafeCharacter } from '../../accounts/free-text.ts';
import { KeyOperations, type KeyOperationOutcome } from '../../accounts/key-operations.ts';
import { cliActor } from '../actor.ts';

export const summary = 'create, list and revoke API keys';

const PLANS = PLAN_NAMES.join('|');

const CREATE = syntax({
  command: 'keys create',
  about: 'Create an API key and print it. It is shown only once; clients send it in the X-API-Key header.\n' +
    'The first key creates the account database when there is none yet.',
  flags: {
    plan: { type: 'string', value: PLANS, required: true, about: "the key's plan" },
    name: { type: 'string', value: 'N', about: 'a name to recognise the key by in "keys list"' },
    email: { type: 'string', value: 'E', about: "the owner's email address" },
    'monthly-chars': { type: 'string', value: 'N|unlimited', about: "characters a month for this key (default: its plan's)" },
    rpm: { type: 'string', value: 'N|unlimited', about: "requests per minute for this key (default: its plan's)" },
    json: { type: 'boolean', about: 'print {"id","key","plan"} as JSON' },
  },
});

const LIST = syntax({
  command: 'keys list',
  about: 'List the keys: ID, prefix, plan, status, creation time, name, limits of their own.',
  flags: { json: { type: 'boolean', about: 'print the keys as JSON' } },
});

const REVOKE = syntax({
  command: 'keys revoke',
  args: 'ID',
  about: 'Revoke a key (IDs: "dragoman keys list"): it is refused from its next request on.',
  flags: {},
});

const SET_PLAN = syntax({
  command: 'keys set-plan',
  args: 'ID PLAN',
  about: `Move a key to another plan (${PLAN_NAMES.join(', ')}).`,
  flags: {},
});

const SET_LIMITS = syntax({
  command: 'keys set-limits',
  args: 'ID',
  about: 'Give a key limits of its own (at least one of the two); "plan" removes one, so the key follows its plan again.',
  flags: {
    'monthly-chars': { type: 'string', value: 'N|unlimited|plan', about: 'characters a month for this key' },
    rpm: { type: 'string', value: 'N|unlimited|plan', about: 'requests per minute for this key' },
  },
});

const HELP = groupHelp('keys', [CREATE, LIST, REVOKE, SET_PLAN, SET_LIMITS], [`plans: ${PLAN_NAMES.join(', ')}`]);

function plan(value: string | undefined): PlanName {
  if (value === undefined) throw misuse(CREATE, `--plan is required (one of ${PLAN_NAMES.join(', ')})`);
  if (!isPlanName(value)) throw usageError(`unknown plan "${value}": use one of ${PLAN_NAMES.join(', ')}`);
  return value;
}

function oneId(positionals: string[], s: Syntax): string {
  if (positionals.length !== 1) throw misuse(s, 'expected one key ID');
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
      const { values } = parse(CREATE, rest);
      const input = {
        plan: plan(values.plan),
        name: checkedText('--name', values.name),
        email: checkedEmail(values.email),
        monthlyChars: parseLimit('--monthly-chars', values['monthly-chars']),
        rpm: parseLimit('--rpm', values.rpm),
      };
      const { key, secret } = await withAccounts(io, (a) => operations(a, io).create(input), { create: true });
      if (values.json) io.out(JSON.stringify({ id: key.id, key: secret, plan: key.plan }));
      else {
        io.out(`Created key ${key.id} (plan ${key.plan}${overridesText(key) ? ', ' + overridesText(key) : ''}):`);
        io.out(secret);
        io.out('Store it now: it is shown only once. Clients send it in the X-API-Key header.');
      }
      return 0;
    }
    case 'list': {
      const { values } = parse(LIST, rest);
      const keys = await withAccounts(io, (a) => a.store.listKeys());
      if (values.json) {
        io.out(printableJson(keys));
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
      const id = oneId(parse(REVOKE, rest).positionals, REVOKE);
      const outcome = await withAccounts(io, (a) => operations(a, io).revoke(id));
      if (outcome === 'unknown') throw new CliError(`no key with ID "${id}" (see dragoman keys list)`);
      if (outcome === 'revoked') throw new CliError(`key ${id} is already revoked`);
      io.out(`Revoked key ${id}.`);
      return 0;
    }
    case 'set-plan': {
      const { positionals } = parse(SET_PLAN, rest);
      if (positionals.length !== 2) throw misuse(SET_PLAN, 'expected ID and PLAN');
      const [id, name] = positionals as [string, string];
      const p = plan(name);
      changed(id, await withAccounts(io, (a) => operations(a, io).setPlan(id, p)));
      io.out(`Key ${id} is now on plan ${p}.`);
      return 0;
    }
    case 'set-limits': {
      const { values, positionals } = parse(SET_LIMITS, rest);
      const id = oneId(positionals, SET_LIMITS);
      // `plan` removes the override: the key follows its plan again.
      const lim = (flag: string, v: string | undefined) =>
        v?.toLowerCase() === 'plan' ? ('plan' as const) : parseLimit(flag, v);
      const m = lim('--monthly-chars', values['monthly-chars']);
      const r = lim('--rpm', values.rpm);
      if (m === undefined && r === undefined) throw misuse(SET_LIMITS, 'give --monthly-chars and/or --rpm');
      const limits: { monthlyChars?: number | null | 'plan'; rpm?: number | null | 'plan' } = {};
      if (m !== undefined) limits.monthlyChars = m;
      if (r !== undefined) limits.rpm = r;
      changed(id, await withAccounts(io, (a) => operations(a, io).setLimits(id, limits)));
      io.out(`Limits of key ${id} updated.`);
      return 0;
    }
    default:
      return helpOrUnknown(io, 'keys', sub, HELP);
  }
}

/** The same rule as POST /v1/signup, so a key made here could also have been made there. */
function checkedText(flag: string, value: string | undefined): string | undefined {
  const found = value === undefined ? undefined : unsafeCharacter(value);
  if (found) throw usageError(`${flag} contains the control character ${found}: no control characters, line breaks or bidirectional controls`);
  return value;
}

function checkedEmail(email: string | undefined): string | undefined {
  checkedText('--email', email);
  if (email !== undefined && !isEmailAddress(email)) throw usageError(`--email "${printable(email)}" is not an email address`);
  return email;
}

/** Key changes made here are written to the audit log as the CLI's, with the system user's name. */
function operations(a: Accounts, io: CliIo): KeyOperations {
  return new KeyOperations(a, cliActor(io));
}

/** A revoked key never authenticates again: changing its plan or limits is a mistake (the wrong ID), said as one. */
function changed(id: string, outcome: KeyOperationOutcome): void {
  if (outcome === 'unknown') throw new CliError(`no key with ID "${id}" (see dragoman keys list)`);
  if (outcome === 'revoked') throw new CliError(`key ${id} is revoked: it cannot be used again, so its plan and limits are not changed`);
}
