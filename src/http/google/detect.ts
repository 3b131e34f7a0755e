// /detect: one single-element array per string, as Google's clients read `detections[i][0]`.
import type { FastifyInstance } from 'fastify';
import { charge } from '../metering.ts';
import { googleParams } from './params.ts';
import { routeDoc } from './schemas.ts';

export async function detectRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate } = app.dragoman;
  app.route({
    method: ['GET', 'POST'],
    url: '/detect',
    schema: routeDoc('Detect the language of text (Google v2)'),
    handler: async (request) => {
      const p = googleParams(request.query, request.body);
      const req = service.prepareDetect({ q: p.q });
      await charge(gate, request, req.chars);
      const detections = (await service.detect(req)).map(({ language, isReliable, confidence }) => [{ language, isReliable, confidence }]);
      return { data: { detections } };
    },
  });
}
