// dragoman usage [--key ID] [--month YYYY-MM] [--json]
import { periodOf, isPeriod } from '../../accounts/period.ts';
import { withAccounts } from '../accounts-context.ts';
import { CliError, formatLimit, printableJson, table, usageError, type CliIo } from '../io.ts';
import { parse, syntax } from '../syntax.ts';

export const summary = 'characters and requests per key for a month';

const USAGE = syntax({
  command: 'usage',
  about: 'Characters and requests of each key in one calendar month (UTC), with the character limit.',
  flags: {
    key: { type: 'string', value: 'ID', about: 'only this key (default: every key)' },
    month: { type: 'string', value: 'YYYY-MM', about: 'the month (default: the current one, UTC)' },
    json: { type: 'boolean', about: 'print the reports as JSON' },
  },
});

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(USAGE, args);
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
    io.out(printableJson(reports));
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
