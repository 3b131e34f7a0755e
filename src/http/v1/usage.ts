// GET /v1/usage: the calling key's plan, limits and characters used this month, and the bytes its documents keep
// against its storage limit. Needs the key; counts against the key's rate limit like every keyed endpoint, so it
// answers with the X-RateLimit-* headers, and costs no characters.
import type { FastifyInstance } from 'fastify';
import { usageSchema } from './schemas.ts';

export async function usageRoutes(app: FastifyInstance): Promise<void> {
  app.get('/usage', { schema: usageSchema }, async (request) => {
    const key = request.metering!.admission!.key;
    const [usage, storage] = await Promise.all([app.dragoman.accounts.usage(key), app.dragoman.documents.storage(key)]);
    // Characters of exact segments served from the key's memories: counted apart; charged or not as the plan says.
    const memories = app.dragoman.service.deps.memories;
    const served = memories ? { memoryCharactersServed: await memories.served(key.id, usage.period), memoryCharactersCharged: app.dragoman.config.memoryCharged[key.plan] } : {};
    return { data: { ...usage, ...storage, ...served } };
  });
}
