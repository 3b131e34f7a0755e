// GET /health: no key needed. Says the process is up and which models are loaded. (The ops routes extend
// this with details and /ready.)
import type { FastifyInstance } from 'fastify';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/health',
    {
      schema: {
        summary: 'Liveness and loaded models',
        response: {
          200: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              models: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: { name: { type: 'string' }, status: { type: 'string' } },
                },
              },
              modelsLoaded: { type: 'integer' },
            },
          },
        },
      },
    },
    async () => {
      const models = app.dragoman.engine.models().map((m) => ({ name: m.name, status: m.status }));
      return { status: 'ok', models, modelsLoaded: models.filter((m) => m.status === 'ok').length };
    },
  );
}
