// GET /health: is the process up, which models are installed and which of them are loaded now (models load on demand
// within DRAGOMAN_MODEL_MEMORY; a load balancer's liveness check; 200 even with no model, so a fresh install can be
// inspected). GET /ready: can it translate right now — at least one model loaded,
// the database accepts writes, every engine worker alive — else 503 with what is missing. Neither needs a key,
// and neither says anything secret (no paths, no database URL, no error text from the database driver).
import type { FastifyInstance } from 'fastify';

const hidden = { hide: true } as const;
const PING_TIMEOUT_MS = 2000;

async function databaseWritable(app: FastifyInstance): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      app.dragoman.accounts.store.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch (err) {
    app.log.warn({ err }, 'readiness: database check failed');
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/health', { schema: hidden }, async () => {
    const models = app.dragoman.engine.models().map((m) => ({ name: m.name, status: m.status, loaded: m.loaded === true }));
    const { demo } = app.dragoman;
    return {
      status: 'ok', models,
      modelsInstalled: models.filter((m) => m.status === 'ok').length,
      modelsLoaded: models.filter((m) => m.loaded).length,
      ...(demo && { demo }),
    };
  });

  app.get('/ready', { schema: hidden }, async (request, reply) => {
    const { engine } = app.dragoman;
    const models = engine.models();
    const loaded = models.filter((m) => m.status === 'ok').length;
    const stats = engine.stats();
    const checks = {
      models: {
        ok: loaded > 0,
        loaded,
        ...(loaded === 0 && {
          detail: 'no model is installed: install one with "dragoman models pull opus-mt-en-de" or "dragoman models import FILE.tar"',
        }),
        ...(models.length > loaded && {
          notLoaded: models.filter((m) => m.status !== 'ok').map((m) => ({ name: m.name, status: m.status })),
        }),
      },
      database: { ok: await databaseWritable(app) },
      workers: {
        ok: stats.workers > 0 && stats.workersAlive >= stats.workers,
        alive: stats.workersAlive,
        configured: stats.workers,
      },
    };
    const ready = checks.models.ok && checks.database.ok && checks.workers.ok;
    reply.code(ready ? 200 : 503).header('cache-control', 'no-store');
    return { status: ready ? 'ready' : 'not ready', checks };
  });
}
