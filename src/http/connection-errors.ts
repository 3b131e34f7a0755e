// Errors raised before a request reaches a route — a URL that cannot be decoded (Fastify's frameworkErrors), a
// request Node's HTTP parser refuses (headers too large, malformed) or one that does not arrive in time — answered
// in the error body of the surface the URL was meant for (/v1, Google, LibreTranslate with its CORS headers) with
// an X-Request-Id like every other response, instead of Fastify's or Node's own.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import { errorBody } from './errors.ts';
import { googleError } from './google/errors.ts';
import { GOOGLE_PREFIX } from './google/index.ts';
import { CORS_HEADERS } from './libretranslate/cors.ts';
import { libreError } from './libretranslate/errors.ts';
import { LIBRETRANSLATE_PREFIX } from './libretranslate/index.ts';

/** The error body and extra headers of the surface `path` belongs to (routing failed: no surface handler runs). */
function surfaceError(path: string, api: ApiError): { body: unknown; headers: Record<string, string> } {
  if (path.startsWith(`${LIBRETRANSLATE_PREFIX}/`)) return { body: libreError(api), headers: CORS_HEADERS };
  if (path.startsWith(GOOGLE_PREFIX)) return { body: googleError(api), headers: {} };
  return { body: errorBody(api), headers: {} };
}

export function badUrl(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const path = (request.raw.url ?? '').split('?')[0]!.slice(0, 100);
  const api = error.code === 'FST_ERR_BAD_URL'
    ? new ApiError(400, 'invalid_request', `The URL ${JSON.stringify(path)} is not valid: a "%" must start an escape such as %20.`)
    : new ApiError(400, 'invalid_request', `The request could not be routed: ${error.message}`);
  const { body, headers } = surfaceError(path, api);
  void reply.code(400).header('x-request-id', request.id).type('application/json; charset=utf-8').headers(headers).send(body);
}

/** Node's parser errors by code: what the client sent wrong, in its own words. */
function parserError(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', 'The request line and headers are too large (over 16 KiB): send long input in the body.');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'invalid_request', 'The request was not received in time: a request must arrive whole within 60 seconds.');
  }
  return new ApiError(400, 'invalid_request', 'The request is not valid HTTP/1.1.');
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

// The path of the last request a connection sent, from the moment its headers were read: a body that stalls (408)
// belongs to a route whose handler never runs, and a connection's next request is most likely for the same surface.
const lastPath = new WeakMap<Socket, string>();

export function trackRequestPaths(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    lastPath.set(request.raw.socket, request.raw.url ?? '');
  });
  // Answered before its body arrived (a 401 on the headers alone): the rest of the body is of no use, and waiting
  // for it would end in a second, unasked-for 408 on the same connection. Close it after this answer instead.
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.raw.complete) {
      // A body refused for its size while the client is still sending it: the rest is read and dropped (within a
      // bound) before the answer goes, so the client reads this 413 rather than a connection reset under its writes.
      if (reply.statusCode === 413) await discardRest(request.raw);
      void reply.header('connection', 'close');
    }
    return payload;
  });
}

/** The most of a refused body read and dropped, and for how long: past either the connection just closes. */
const DISCARD_BYTES = 64 * 1024 * 1024;
const DISCARD_MS = 5_000;

function discardRest(body: FastifyRequest['raw']): Promise<void> {
  const declared = Number(body.headers['content-length']);
  if (!Number.isFinite(declared) || declared > DISCARD_BYTES) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      body.off('data', count).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MS);
    body.on('data', count).on('end', done).on('close', done).on('error', done);
    body.resume();
  });
}

/**
 * The request path a failed connection was sending: from the request line in the bytes Node refused when they hold
 * it, else from the connection's last request (its headers were read, or an earlier request on it). Unknown — a
 * fresh connection whose headers stall, or whose request line came in an earlier packet — is the /v1 body.
 */
function pathOf(error: Error & { rawPacket?: unknown }, socket: Socket): string {
  if (Buffer.isBuffer(error.rawPacket)) {
    const bytes = error.rawPacket;
    const end = bytes.indexOf('\r\n');
    const line = /^[A-Z]+ (\S+) HTTP\//.exec(bytes.subarray(0, end < 0 ? bytes.length : end).toString('latin1'));
    if (line) return line[1]!.split('?')[0]!;
  }
  return (lastPath.get(socket) ?? '').split('?')[0]!;
}

export function clientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  // A client that went away needs no answer; one that has already been answered must not get a second.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy(error);
    return;
  }
  const api = parserError(error.code);
  const { body, headers } = surfaceError(pathOf(error, socket), api);
  const json = JSON.stringify(body);
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${api.status} ${REASONS[api.status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\n${extra}Connection: close\r\n\r\n${json}`,
  );
}
