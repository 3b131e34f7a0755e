// dragoman usage [--key ID] [--month YYYY-MM] [--json]
// dragoman usage report --from DAY --to DAY [--key ID|--plan P] [--format csv|json] [--sign KEYFILE]
// dragoman usage verify FILE --public-key PEMFILE
import { readFileSync } from 'node:fs';
import { periodOf, isPeriod } from '../../accounts/period.ts';
import { isPlanName, PLAN_NAMES } from '../../accounts/types.ts';
import { isDay, signReport, usageCsv, usageDocument, verifyReport, type SignedReport } from '../../accounts/usage-report.ts';
import { withAccounts } from '../accounts-context.ts';
import { CliError, formatLimit, printableJson, table, usageError, type CliIo } from '../io.ts';
import { misuse, parse, syntax } from '../syntax.ts';

export const summary = 'characters and requests per key for a month; per-day reports';

const USAGE = syntax({
  command: 'usage',
  about: 'Characters and requests of each key in one calendar month (UTC), with the character limit.',
  flags: {
    key: { type: 'string', value: 'ID', about: 'only this key (default: every key)' },
    month: { type: 'string', value: 'YYYY-MM', about: 'the month (default: the current one, UTC)' },
    json: { type: 'boolean', about: 'print the reports as JSON' },
  },
});

const REPORT = syntax({
  command: 'usage report',
  about: 'Characters, requests, document characters and memory characters per key per day (UTC), from the ledger\n' +
    'written with each charge: the rows add up to what was charged.',
  flags: {
    from: { type: 'string', value: 'YYYY-MM-DD', required: true, about: 'first day (UTC)' },
    to: { type: 'string', value: 'YYYY-MM-DD', required: true, about: 'last day (UTC), included' },
    key: { type: 'string', value: 'ID', about: 'only this key' },
    plan: { type: 'string', value: PLAN_NAMES.join('|'), about: 'only the keys on this plan' },
    format: { type: 'string', value: 'csv|json', about: 'output format (default: csv)' },
    sign: { type: 'string', value: 'KEYFILE', about: 'sign the report with this ed25519 private key (PEM); prints JSON {report, signature, publicKey}' },
  },
});

const VERIFY = syntax({
  command: 'usage verify',
  args: 'FILE',
  about: 'Check a signed report (usage report --sign) against the public key you trust. Exit 0 when it is intact, 1 when not.',
  flags: {
    'public-key': { type: 'string', value: 'PEMFILE', required: true, about: "the signer's ed25519 public key (PEM)" },
  },
});

export async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === 'report') return report(args.slice(1), io);
  if (args[0] === 'verify') return verifyFile(args.slice(1), io);
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

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

async function report(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(REPORT, args);
  const from = values.from;
  const to = values.to;
  if (from === undefined || to === undefined) throw misuse(REPORT, '--from and --to are required');
  for (const [flag, day] of [['--from', from], ['--to', to]] as const) {
    if (!isDay(day)) throw usageError(`${flag} must be a day YYYY-MM-DD (UTC), got "${day}"`);
  }
  if (from > to) throw usageError(`--from ${from} is after --to ${to}`);
  if (values.key !== undefined && values.plan !== undefined) throw usageError('give --key or --plan, not both');
  const plan = values.plan;
  if (plan !== undefined && !isPlanName(plan)) throw usageError(`unknown plan "${plan}": use one of ${PLAN_NAMES.join(', ')}`);
  const format = values.format ?? (values.sign ? 'json' : 'csv');
  if (format !== 'csv' && format !== 'json') throw usageError(`--format must be csv or json, got "${format}"`);
  if (values.sign && format !== 'json') throw usageError('a signed report is JSON: leave out --format or give --format json');
  const privateKey = values.sign === undefined ? undefined : readText(values.sign, 'the signing key');
  const doc = await withAccounts(io, async (a) => {
    if (values.key !== undefined && !(await a.store.getKey(values.key))) throw new CliError(`no key with ID "${values.key}" (see dragoman keys list)`);
    const rows = await a.store.dailyUsage({ from, to, ...(values.key !== undefined && { keyId: values.key }), ...(plan !== undefined && { plan }) });
    return usageDocument(from, to, { ...(values.key !== undefined && { key: values.key }), ...(plan !== undefined && { plan }) }, rows, a.clock.now());
  });
  if (format === 'csv') {
    io.out(usageCsv(doc.rows).trimEnd());
    return 0;
  }
  const text = JSON.stringify(doc, null, 2);
  if (privateKey === undefined) {
    io.out(text);
    return 0;
  }
  let signed: SignedReport;
  try {
    signed = signReport(text, privateKey);
  } catch (err) {
    throw new CliError(`cannot sign with ${values.sign}: ${(err as Error).message}`);
  }
  io.out(JSON.stringify(signed, null, 2));
  return 0;
}

async function verifyFile(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(VERIFY, args);
  if (positionals.length !== 1) throw misuse(VERIFY, 'expected one FILE (a report made with usage report --sign)');
  if (values['public-key'] === undefined) throw misuse(VERIFY, '--public-key is required');
  const file = positionals[0]!;
  let signed: SignedReport;
  try {
    signed = JSON.parse(readText(file, 'the report')) as SignedReport;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`${file} is not a signed report (JSON): ${(err as Error).message}`);
  }
  let ok: boolean;
  try {
    ok = verifyReport(signed, readText(values['public-key'], 'the public key'));
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  if (!ok) {
    io.err(`dragoman: ${file}: the signature does not match: the report was altered or signed by another key`);
    return 1;
  }
  io.out(`${file}: signature valid (ed25519); the report is as it was signed.`);
  return 0;
}
