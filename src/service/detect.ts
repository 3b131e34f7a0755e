// Detection of each string of q, in order, input echoed.
import { Slices } from './slices.ts';
import { validateQ } from './validate.ts';
import type { DetectInput, DetectionItem, DetectRequest, ServiceDeps } from './types.ts';

export function prepareDetect(deps: ServiceDeps, input: DetectInput): DetectRequest {
  return validateQ(input.q, deps.config);
}

/** One string at a time, in slices (slices.ts): 128 strings of detection never hold the event loop at once. */
export async function runDetect(deps: ServiceDeps, req: DetectRequest): Promise<DetectionItem[]> {
  const slices = new Slices();
  const items: DetectionItem[] = [];
  for (const input of req.strings) {
    const d = deps.detector.detect(input);
    items.push({ language: d.language, confidence: d.confidence, isReliable: d.isReliable, input, candidates: d.candidates });
    await slices.next();
  }
  return items;
}
