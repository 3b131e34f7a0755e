// GET /admin/usage?from=YYYY-MM-DD&to=YYYY-MM-DD[&key=ID|&plan=P][&format=json|csv]: the per-day ledger, the same
// rows and totals as `dragoman usage report`. Without from/to: the current month up to today.
import type { FastifyInstance } from 'fastify';
import { isPlanName, PLAN_NAMES } from '../../accounts/types.ts';
import { isDay, usageCsv, usageDocument } from '../../accounts/usage-report.ts';
import { invalidRequest } from '../../errors/api-error.ts';

export async function adminUsageRoutes(app: FastifyInstance): Promise<void> {
  const { accounts } = app.dragoman;
  app.get<{ Querystring: Record<string, string | undefined> }>('/usage', { schema: { hide: true } }, async (request, reply) => {
    const q = request.query;
    const today = new Date(accounts.clock.now()).toISOString().slice(0, 10);
    const from = q.from ?? `${today.slice(0, 7)}-01`;
    const to = q.to ?? today;
    for (const [name, day] of [['from', from], ['to', to]] as const) {
      if (!isDay(day)) throw invalidRequest(`"${name}" must be a day YYYY-MM-DD (UTC), got "${day.slice(0, 40)}".`);
    }
    if (from > to) throw invalidRequest(`"from" ${from} is after "to" ${to}.`);
    if (q.key !== undefined && q.plan !== undefined) throw invalidRequest('Give "key" or "plan", not both.');
    if (q.plan !== undefined && !isPlanName(q.plan)) throw invalidRequest(`"plan" must be one of ${PLAN_NAMES.join(', ')}.`);
    const format = q.format ?? 'json';
    if (format !== 'json' && format !== 'csv') throw invalidRequest('"format" must be json or csv.');
    const plan = q.plan !== undefined && isPlanName(q.plan) ? q.plan : undefined;
    const rows = await accounts.store.dailyUsage({ from, to, ...(q.key !== undefined && { keyId: q.key }), ...(plan && { plan }) });
    if (format === 'csv') return reply.type('text/csv; charset=utf-8').send(usageCsv(rows));
    return { data: usageDocument(from, to, { ...(q.key !== undefined && { key: q.key }), ...(plan && { plan }) }, rows, accounts.clock.now()) };
  });
}
