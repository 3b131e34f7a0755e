// POST /detect: candidates best first, confidence in percent. An array q gets one candidate list per string
// (LibreTranslate would detect the whole batch as one language).
import type { FastifyInstance } from 'fastify';
import type { DetectionItem } from '../../service/types.ts';
import { charge } from '../metering.ts';
import { libreBody, libreQ, percent } from './params.ts';
import { routeDoc } from './schemas.ts';

const MAX_CANDIDATES = 5;

function candidates(d: DetectionItem): { confidence: number; language: string }[] {
  const list = d.candidates
    .slice(0, MAX_CANDIDATES)
    .map((c) => ({ confidence: percent(c.confidence), language: c.language }));
  return list.length ? list : [{ confidence: 0, language: d.language }];
}

export async function detectRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate } = app.dragoman;
  app.post('/detect', { schema: routeDoc('Detect the language of text (LibreTranslate)') }, async (request) => {
    const req = service.prepareDetect({ q: libreQ(libreBody(request.body).q) });
    await charge(gate, request, req.chars);
    const detections = (await service.detect(req)).map(candidates);
    return req.single ? detections[0] : detections;
  });
}
