// The `model` field of /v1 (JSON and the documents' form) and LibreTranslate: "quality", "speed" or an installed
// model's name (docs/models.md#quality-or-speed). Both kinds are strict there: a pair without that kind is a 400
// saying so, never another kind of model in its place.
import type { ModelChoice } from '../engine/types.ts';
import { invalidRequest } from '../errors/api-error.ts';

export function modelChoiceOf(value: unknown): ModelChoice | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest("'model' must be a string: \"quality\", \"speed\" or an installed model's name.");
  if (value === 'quality' || value === 'speed') return { kind: value, strict: true };
  return { name: value };
}
