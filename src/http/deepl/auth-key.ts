// The key of a DeepL request: `Authorization: DeepL-Auth-Key <key>` (the scheme's case as clients vary it).
import type { FastifyRequest } from 'fastify';

export function deeplKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const m = /^\s*DeepL-Auth-Key\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}
