// POST /v1/detect
import type { FastifyInstance } from 'fastify';
import type { DetectInput } from '../../service/types.ts';
import { charge } from '../metering.ts';
import { detectSchema } from './schemas.ts';

export async function detectRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate } = app.dragoman;
  app.post('/detect', { schema: detectSchema }, async (request) => {
    const req = service.prepareDetect({ q: (request.body as DetectInput).q });
    await charge(gate, request, req.chars);
    const detections = (await service.detect(req)).map(({ language, confidence, isReliable, input }) => ({
      language,
      confidence,
      isReliable,
      input,
    }));
    return { data: { detections } };
  });
}
