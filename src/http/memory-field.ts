// The `memory` field LibreTranslate's /translate and Google's v2 translate accept beyond their own APIs: the id of
// one of the calling key's translation memories, whose exact sentences come back as stored (docs/memories.md).
// Neither wire format has room for fuzzy matches, so none are looked up.
import { invalidRequest } from '../errors/api-error.ts';
import type { MemoryUse } from '../service/types.ts';

export function memoryField(value: unknown, owner: string): MemoryUse | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest("Invalid request: 'memory' must be given once, as the id of one of the key's translation memories.");
  return { owner, id: value };
}
