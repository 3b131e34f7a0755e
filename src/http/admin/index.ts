// The admin surface under /admin (registered with that prefix): an API (keys, per-day usage, models, document jobs, the audit log) and a page
// that calls it. It exists only when DRAGOMAN_ADMIN_TOKEN is set (unset: every /admin path is 404, like any unknown
// path); then every API call needs `Authorization: Bearer <token>` (401 without it or with a wrong one, compared
// as hashes in constant time, wrong tokens throttled per address like wrong API keys). The page itself holds no
// data: it asks for the token and sends it with each call, same origin, under the page's Content-Security-Policy.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashesEqual, hashSecret } from '../../accounts/keys.ts';
import { RollingWindow } from '../../accounts/rolling-window.ts';
import { ApiError } from '../../errors/api-error.ts';
import { adminPageRoutes } from './page.ts';
import { adminKeyRoutes } from './keys.ts';
import { adminUsageRoutes } from './usage.ts';
import { adminOperationsRoutes } from './operations.ts';

export const ADMIN_PREFIX = '/admin';

export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const token = app.dragoman.config.adminToken;
  if (!token) return;
  const expected = hashSecret(token);
  const wrongTokens = new RollingWindow(20, 60_000);

  await app.register(adminPageRoutes);
  await app.register(async (api) => {
    api.addHook('onRequest', async (request: FastifyRequest) => {
      const now = app.dragoman.clock.now();
      const blocked = wrongTokens.blockedFor(request.ip, now);
      if (blocked > 0) {
        throw new ApiError(429, 'rate_limit', `Too many wrong admin tokens from this address in the past 60 seconds. Retry after ${blocked} seconds.`, {
          'retry-after': String(blocked),
        });
      }
      const auth = request.headers.authorization;
      const given = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '') : undefined;
      if (given === undefined || !hashesEqual(hashSecret(given), expected)) {
        if (given !== undefined) wrongTokens.record(request.ip, now);
        throw new ApiError(401, 'authentication_error', 'The admin API needs the header Authorization: Bearer <DRAGOMAN_ADMIN_TOKEN>.', {
          'www-authenticate': 'Bearer realm="dragoman-admin"',
        });
      }
    });
    api.addHook('onSend', async (_request, reply, payload) => {
      reply.header('cache-control', 'no-store');
      return payload;
    });
    await api.register(adminKeyRoutes);
    await api.register(adminUsageRoutes);
    await api.register(adminOperationsRoutes);
  });
}
