// /languages: codes only, or codes and names localized into `target` (Google's shape for each case).
import type { FastifyInstance } from 'fastify';
import { googleParams } from './params.ts';
import { routeDoc } from './schemas.ts';

export async function languagesRoutes(app: FastifyInstance): Promise<void> {
  const { service } = app.dragoman;
  app.route({
    method: ['GET', 'POST'],
    url: '/languages',
    schema: routeDoc('Languages the installed models translate (Google v2; names localized into target)'),
    handler: async (request) => {
      const { target } = googleParams(request.query, request.body);
      if (target === undefined || target === '') {
        return { data: { languages: service.languages().map(({ language }) => ({ language })) } };
      }
      return { data: { languages: service.languages(target).map(({ language, name }) => ({ language, name })) } };
    },
  });
}
