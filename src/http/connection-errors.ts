// Errors raised before a request reaches a route — a URL that cannot be decoded (Fastify's frameworkErrors) or a
// request Node's HTTP parser refuses (headers too large, malformed) — answered in the /v1 error body with an
// X-Request-Id like every other response, instead of Fastify's own `{"error","code","statusCode"}`.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../service/errors.ts';
import { errorBody } from './errors.ts';
import { googleError } from './google/errors.ts';
import { GOOGLE_PREFIX } from './google/index.ts';
import { CORS_HEADERS } from './libretranslate/cors.ts';
import { libreError } from './libretranslate/errors.ts';
import { LIBRETRANSLATE_PREFIX } from './libretranslate/index.ts';

export function badUrl(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const path = (request.raw.url ?? '').split('?')[0]!.slice(0, 100);
  const api = error.code === 'FST_ERR_BAD_URL'
    ? new ApiError(400, 'invalid_request', `The URL ${JSON.stringify(path)} is not valid: a "%" must start an escape such as %20.`)
    : new ApiError(400, 'invalid_request', `The request could not be routed: ${error.message}`);
  void reply.code(400).header('x-request-id', request.id).type('application/json; charset=utf-8');
  // In the shape of the surface the URL was meant for (routing failed, so its own error handler never runs).
  if (path.startsWith(`${LIBRETRANSLATE_PREFIX}/`)) void reply.headers(CORS_HEADERS).send(libreError(api));
  else if (path.startsWith(GOOGLE_PREFIX)) void reply.send(googleError(api));
  else void reply.send(errorBody(api));
}

/** Node's parser errors by code: what the client sent wrong, in its own words. */
function parserError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', 'The request line and headers are too large (over 16 KiB): send long input in the body.');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError(408, 'invalid_request', 'The request was not received in time.');
  return new ApiError(400, 'invalid_request', 'The request is not valid HTTP/1.1.');
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

export function clientError(error: Error & { code?: string }, socket: Socket): void {
  // A client that went away needs no answer; one that has already been answered must not get a second.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy(error);
    return;
  }
  const api = parserError(error.code);
  const body = JSON.stringify(errorBody(api));
  socket.end(
    `HTTP/1.1 ${api.status} ${REASONS[api.status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}
