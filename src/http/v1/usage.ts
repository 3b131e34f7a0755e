// GET /v1/usage: the calling key's plan, limits and characters used this month. Needs the key; neither charged nor
// counted against the key's rate limit (like GitHub's GET /rate_limit): a client, or the web page, checking its own
// meter must not spend the allowance it is checking. Wrong keys still count towards the per-address throttle.
import type { FastifyInstance } from 'fastify';
import { usageSchema } from './schemas.ts';

export async function usageRoutes(app: FastifyInstance): Promise<void> {
  app.get('/usage', { schema: usageSchema, config: { uncounted: true } }, async (request) => {
    const key = request.metering!.admission!.key;
    return { data: await app.dragoman.accounts.usage(key) };
  });
}
