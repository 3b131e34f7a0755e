// dragoman usage [--key ID] [--month YYYY-MM] [--json]
import { periodOf, isPeriod } from '../../accounts/period.ts';
import { withAccounts } from '../accounts-context.ts';
import { CliError, formatLimit, parse, table, usageError, type CliIo } from '../io.ts';

export const summary = 'characters and requests per key for a month';

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {
    key: { type: 'string' },
    month: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length) throw usageError(`unexpected argument "${positionals[0]}" (usage: dragoman usage [--key ID] [--month YYYY-MM] [--json])`);
  if (values.month !== undefined && !isPeriod(values.month)) {
    throw usageError(`--month must be YYYY-MM (a calendar month in UTC), got "${values.month}"`);
  }
  const reports = await withAccounts(io, async (a) => {
    const period = values.month ?? periodOf(a.clock.now());
    const keys = values.key ? [await a.store.getKey(values.key)] : await a.store.listKeys();
    if (values.key && !keys[0]) throw new CliError(`no key with ID "${values.key}" (see dragoman keys list)`);
    return Promise.all(keys.map((k) => a.usage(k!, period)));
  });
  if (values.json) {
    io.out(JSON.stringify(reports));
    return 0;
  }
  if (!reports.length) {
    io.out('No keys.');
    return 0;
  }
  io.out(`Usage for ${reports[0]!.period} (UTC calendar month)`);
  const rows = [['KEY', 'PLAN', 'CHARACTERS', 'LIMIT', 'REQUESTS']];
  for (const r of reports) {
    rows.push([r.keyId, r.plan, r.charactersUsed.toLocaleString('en-US'), formatLimit(r.characterLimit), String(r.requests)]);
  }
  table(rows).forEach((l) => io.out(l));
  return 0;
}
