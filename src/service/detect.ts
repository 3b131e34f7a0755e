// Detection of each string of q, in order, input echoed.
import { validateQ } from './validate.ts';
import type { DetectInput, DetectionItem, DetectRequest, ServiceDeps } from './types.ts';

export function prepareDetect(deps: ServiceDeps, input: DetectInput): DetectRequest {
  return validateQ(input.q, deps.config);
}

export function runDetect(deps: ServiceDeps, req: DetectRequest): DetectionItem[] {
  return req.strings.map((input) => {
    const d = deps.detector.detect(input);
    return {
      language: d.language,
      confidence: d.confidence,
      isReliable: d.isReliable,
      input,
      candidates: d.candidates,
    };
  });
}
