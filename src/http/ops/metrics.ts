// Feeding the metrics from every request (global hooks), and serving them. Labels come from the route PATTERN and
// from language codes the catalog knows; everything a client could make up becomes `other`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashesEqual, hashSecret } from '../../accounts/keys.ts';
import { RollingWindow } from '../../accounts/rolling-window.ts';
import { resolveLanguage } from '../../languages/catalog.ts';
import type { DragomanMetrics } from '../../observability/metrics.ts';
import '../metering.ts'; // request.metering (the charge of the request)
import { fromDomainError } from '../domain-errors.ts';
import { ApiError } from '../../errors/api-error.ts';

function routeLabel(request: FastifyRequest): string {
  return request.routeOptions?.url ?? 'unmatched';
}

function languageLabel(code: unknown): string {
  if (typeof code !== 'string' || code === '') return 'auto';
  if (code.toLowerCase() === 'auto') return 'auto';
  return resolveLanguage(code)?.code ?? 'other';
}

/** source/target of a translate call on any surface (/v1 and LibreTranslate: JSON body; Google: body or query). */
function directionOf(request: FastifyRequest): { source: string; target: string } | undefined {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const target = body.target ?? query.target;
  if (target === undefined) return undefined;
  return { source: languageLabel(body.source ?? query.source), target: languageLabel(target) };
}

export function installMetricHooks(app: FastifyInstance, metrics: DragomanMetrics): void {
  const errorTypes = new WeakMap<FastifyRequest, string>();
  app.addHook('onError', async (request, _reply, error) => {
    const type = (fromDomainError(error) ?? (error as Partial<ApiError>)).type;
    if (typeof type === 'string') errorTypes.set(request, type);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = routeLabel(request);
    const status = reply.statusCode;
    metrics.request(request.method, route, status, reply.elapsedTime / 1000);
    const type = errorTypes.get(request);
    if (type === 'quota_exceeded') metrics.quotaRefused(route);
    if (type === 'rate_limit' || status === 429) metrics.rateLimited(route);
    const charged = request.metering?.charge?.chars;
    if (status === 200 && charged) {
      const direction = directionOf(request);
      if (direction) metrics.translated(direction.source, direction.target, charged);
    }
  });
}

export async function metricsRoute(app: FastifyInstance, opts: { metrics: DragomanMetrics }): Promise<void> {
  const token = app.dragoman.config.metricsToken;
  // Off unless a token is configured: then the route does not exist at all (404, like any unknown path).
  if (!token) return;
  // Wrong tokens are throttled per address as wrong API keys are (20 a minute): the token is a guessable secret too.
  const wrongTokens = new RollingWindow(20, 60_000);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const now = app.dragoman.clock.now();
    const blocked = wrongTokens.blockedFor(request.ip, now);
    if (blocked > 0) {
      throw new ApiError(429, 'rate_limit', `Too many wrong /metrics tokens from this address in the past 60 seconds. Retry after ${blocked} seconds.`, {
        'retry-after': String(blocked),
      });
    }
    const auth = request.headers.authorization;
    const given = typeof auth === 'string' && /^Bearer\s+/i.test(auth) ? auth.replace(/^Bearer\s+/i, '') : undefined;
    // Compared as hashes, in constant time (same as API keys): neither the token nor its length leaks.
    if (given === undefined || !hashesEqual(hashSecret(given), hashSecret(token))) {
      if (given !== undefined) wrongTokens.record(request.ip, now);
      throw new ApiError(401, 'authentication_error', '/metrics needs the header Authorization: Bearer <DRAGOMAN_METRICS_TOKEN>.', {
        'www-authenticate': 'Bearer realm="dragoman-metrics"',
      });
    }
    const body = await opts.metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(opts.metrics.registry.contentType).send(body);
  });
}
