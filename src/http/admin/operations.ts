// /admin/models (installed models, their status, which are loaded, the memory each takes in the budget and the
// requests each served), /admin/jobs (document jobs of every key or one, and their deletion) and /admin/audit-log
// (the audit log of key operations).
import type { FastifyInstance } from 'fastify';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';

const JOBS_PER_KEY = 100;

export async function adminOperationsRoutes(app: FastifyInstance): Promise<void> {
  const { accounts, engine, documents } = app.dragoman;

  app.get('/models', { schema: { hide: true } }, async () => {
    // memoryBytes and requests come from the engine's own accounting (translate/resident-models.ts): the estimate the
    // budget counts for a loaded model, and the requests routed through it since start.
    const models = engine.models().map((m) => ({
      name: m.name, status: m.status, loaded: m.loaded === true, memoryBytes: m.memoryBytes ?? 0, requests: m.requests ?? 0,
    }));
    return {
      data: {
        models, installed: models.length, loaded: models.filter((m) => m.loaded).length,
        memoryBytes: models.reduce((sum, m) => sum + m.memoryBytes, 0), budgetBytes: app.dragoman.config.modelMemory ?? null,
        engine: engine.stats(),
      },
    };
  });

  app.get<{ Querystring: { key?: string } }>('/jobs', { schema: { hide: true } }, async (request) => {
    const keys = request.query.key !== undefined ? [request.query.key] : (await accounts.store.listKeys()).map((k) => k.id);
    const jobs = [];
    for (const keyId of keys) {
      const { jobs: page } = await documents.list(keyId, JOBS_PER_KEY, undefined);
      // The charge (JSON of the ledger) and lease are internal; the rest is what /v1/documents shows its owner.
      for (const j of page) {
        jobs.push({
          id: j.id, keyId: j.keyId, status: j.status, filename: j.filename, format: j.format, target: j.target,
          characters: j.characters, progress: j.progress, createdAt: j.createdAt, finishedAt: j.finishedAt ?? null,
          expiresAt: j.expiresAt, error: j.error ?? null, storedBytes: j.storedBytes,
        });
      }
    }
    jobs.sort((a, b) => b.createdAt - a.createdAt);
    return { data: jobs };
  });

  app.delete<{ Params: { key: string; id: string } }>('/jobs/:key/:id', { schema: { hide: true } }, async (request) => {
    const { key, id } = request.params;
    if (!(await accounts.store.getKey(key))) throw new ApiError(404, 'invalid_request', `No key with id "${key.slice(0, 80)}".`);
    await documents.remove(key, id);
    return { data: { id, keyId: key, deleted: true } };
  });

  app.get<{ Querystring: { since?: string } }>('/audit-log', { schema: { hide: true } }, async (request) => {
    const raw = request.query.since;
    const since = raw === undefined ? 0 : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
    if (Number.isNaN(since)) throw invalidRequest('"since" must be a day (YYYY-MM-DD) or an ISO 8601 time.');
    return { data: await accounts.store.listAudit(since) };
  });
}
