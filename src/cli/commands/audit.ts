// dragoman audit [--since YYYY-MM-DD|ISO time] [--format text|json]
import { withAccounts } from '../accounts-context.ts';
import { printableJson, table, usageError, type CliIo } from '../io.ts';
import { parse, syntax } from '../syntax.ts';

export const summary = 'who created, changed or revoked which key';

const AUDIT_LOG = syntax({
  command: 'audit',
  about: 'The audit log of key operations (keys create, revoke, set-plan, set-limits), from the CLI, the admin\n' +
    'surface, the public signup and the first start: when, who (cli:<user>, admin, signup or first-start),\n' +
    'what. Secrets are never in it.',
  flags: {
    since: { type: 'string', value: 'TIME', about: 'only entries at or after this day or time (ISO 8601, UTC unless it says)' },
    format: { type: 'string', value: 'text|json', about: 'output format (default: text)' },
  },
});

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parse(AUDIT_LOG, args);
  let since = 0;
  if (values.since !== undefined) {
    since = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(values.since) ? `${values.since}T00:00:00Z` : values.since);
    if (Number.isNaN(since)) throw usageError(`--since must be a day (YYYY-MM-DD) or an ISO 8601 time, got "${values.since}"`);
  }
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'json') throw usageError(`--format must be text or json, got "${format}"`);
  const entries = await withAccounts(io, (a) => a.store.listAudit(since));
  if (format === 'json') {
    io.out(printableJson(entries.map((e) => ({ ...e, time: new Date(e.at).toISOString() }))));
    return 0;
  }
  if (!entries.length) {
    io.out('The audit log is empty.');
    return 0;
  }
  const rows = [['TIME', 'WHO', 'ACTION', 'KEY', 'DETAIL']];
  for (const e of entries) rows.push([new Date(e.at).toISOString(), e.actor, e.action, e.keyId ?? '', JSON.stringify(e.detail)]);
  table(rows).forEach((l) => io.out(l));
  return 0;
}
