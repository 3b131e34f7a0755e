// The ops plugin, registered first in server.ts. It is deliberately NOT encapsulated (skip-override, what
// fastify-plugin does): its hooks must see every surface's requests and the OpenAPI generator every /v1 route.
// The routes it adds live in an encapsulated child.
import type { FastifyInstance } from 'fastify';
import { createMetrics } from '../../observability/metrics.ts';
import { docsRoutes, registerOpenApi } from './docs.ts';
import { healthRoutes } from './health.ts';
import { installMetricHooks, metricsRoute } from './metrics.ts';
import { installShutdownHooks } from './shutdown.ts';

async function ops(app: FastifyInstance): Promise<void> {
  const metrics = createMetrics(app.dragoman.engine, app.dragoman.documents);
  app.addHook('onClose', async () => metrics.detach());
  installMetricHooks(app, metrics);
  installShutdownHooks(app);
  await registerOpenApi(app);
  await app.register(async (routes) => {
    await routes.register(healthRoutes);
    await routes.register(metricsRoute, { metrics });
    await routes.register(docsRoutes);
  });
}

export const opsPlugin = Object.assign(ops, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'dragoman-ops',
});
