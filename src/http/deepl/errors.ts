// DeepL's error statuses and body ({"message": ...}): a wrong or missing key is 403, an exhausted quota 456, too
// many requests 429 with Retry-After, anything refused 400, an unknown glossary or document 404, a body too large
// 413, the service unavailable 503. Our ApiErrors carry their kind; this is the one place it becomes DeepL's.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { logServerFailure } from '../errors.ts';

export const QUOTA_EXCEEDED = 456;

export function deeplStatus(e: ApiError): number {
  if (e.type === 'authentication_error') return 403;
  if (e.type === 'quota_exceeded') return QUOTA_EXCEEDED;
  if (e.type === 'rate_limit') return 429;
  return e.status;
}

export function deeplBody(e: ApiError): { message: string; detail?: string } {
  return { message: e.message };
}

/** Answers whatever a route throws with DeepL's status and body; `toError` reads framework errors. */
export function setDeepLErrors(app: FastifyInstance, toError: (error: unknown) => ApiError): void {
  app.setErrorHandler(async (error, request, reply) => {
    const e = toError(error);
    logServerFailure(request.log, e, error);
    return reply.code(deeplStatus(e)).headers(e.headers).type('application/json; charset=utf-8').send(deeplBody(e));
  });
}
