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

/** Messages of the service, the documents and the accounts name /v1's parameters and paths; here they are DeepL's. */
export function localize(message: string): string {
  return message
    .replaceAll('GET /v1/languages', 'GET /v2/languages')
    .replaceAll('Pass a valid API key in the X-API-Key header.', 'Send a valid key as "Authorization: DeepL-Auth-Key <key>".')
    .replaceAll('batch strings in the q array', 'send several text values in one request')
    .replace(/\bq\[(\d+)\] was detected/g, 'text[$1] was detected')
    .replaceAll('Pass source if the detection is wrong.', 'Pass source_lang if the detection is wrong.')
    .replaceAll('could not be detected: pass source.', 'could not be detected: pass source_lang.')
    .replace('such as {"q": "Hello", "target": "de"}', 'such as {"text": ["Hello"], "target_lang": "DE"}')
    .replace(
      /^Unsupported Content-Type: .*/,
      'Unsupported Content-Type: send JSON (Content-Type: application/json) or a form (Content-Type: application/x-www-form-urlencoded).',
    );
}

/** A refusal in DeepL's own words (`message`), with the reason it has here (`detail`, as DeepL's bodies carry it). */
export class DeepLRefusal extends ApiError {
  constructor(message: string, readonly detail: string) {
    super(400, 'invalid_request', message);
    this.name = 'DeepLRefusal';
  }
}

export function deeplBody(e: ApiError): { message: string; detail?: string } {
  return { message: localize(e.message), ...(e instanceof DeepLRefusal ? { detail: localize(e.detail) } : {}) };
}

/** Answers whatever a route throws with DeepL's status and body; `toError` reads framework errors. */
export function setDeepLErrors(app: FastifyInstance, toError: (error: unknown) => ApiError): void {
  app.setErrorHandler(async (error, request, reply) => {
    const e = toError(error);
    logServerFailure(request.log, e, error);
    return reply.code(deeplStatus(e)).headers(e.headers).type('application/json; charset=utf-8').send(deeplBody(e));
  });
}
