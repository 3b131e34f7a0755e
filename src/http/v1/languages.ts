// GET /v1/languages[?target=xx]
import type { FastifyInstance } from 'fastify';
import type { Service } from '../../service/index.ts';
import type { DemoInfo } from '../context.ts';
import { languagesSchema } from './schemas.ts';

/** The listing's body, `{"data":{"languages":[{language, name}]}}` (the web page's keyless copy adds Google's code: ui/index.ts). */
export function languagesBody(service: Service, target: string | undefined, demo?: DemoInfo) {
  return { data: { languages: service.languages(target).map(({ language, name }) => ({ language, name })), ...(demo && { demo }) } };
}

export async function languagesRoutes(app: FastifyInstance): Promise<void> {
  app.get('/languages', { schema: languagesSchema }, async (request) => {
    const { target } = request.query as { target?: string };
    return languagesBody(app.dragoman.service, target, app.dragoman.demo);
  });
}
