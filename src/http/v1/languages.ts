// GET /v1/languages[?target=xx]
import type { FastifyInstance } from 'fastify';
import { languagesSchema } from './schemas.ts';

export async function languagesRoutes(app: FastifyInstance): Promise<void> {
  app.get('/languages', { schema: languagesSchema }, async (request) => {
    const { target } = request.query as { target?: string };
    const languages = app.dragoman.service.languages(target).map(({ language, name }) => ({ language, name }));
    return { data: { languages } };
  });
}
