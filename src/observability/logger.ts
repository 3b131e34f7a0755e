// The process's pino logger: JSON lines at DRAGOMAN_LOG_LEVEL. A request is logged twice by Fastify ("incoming
// request", "request completed"), both with the request id (reqId); the serializers below decide what else goes
// in: route pattern, method, status, latency (responseTime), the key's public id. Never the key, a header, a query
// string or a body: they can carry secrets and user text. Redaction covers objects that reach a log call by
// another way (an error with a request attached, a debug line).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../config/env.ts';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-goog-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-goog-api-key"]',
  'headers.cookie',
  'req.query',
  'req.body',
  'query',
  'body',
  'q',
  'key',
  'secret',
];

/** The public id of the key that made the request, once metering has authenticated it. */
function keyIdOf(request: FastifyRequest): string | undefined {
  const m = (request as FastifyRequest & { metering?: { admission?: { key?: { id?: string } } } | null }).metering;
  return m?.admission?.key?.id;
}

/**
 * Anything shaped like the start of an API key (`dk_` + base64url), wherever it appears — also percent-encoded as a
 * URL may carry it (`dk%5F…`, `%64k_…`): paths are logged as sent, before decoding.
 */
export const KEY_IN_TEXT = /(?:d|%64)(?:k|%6b)(?:_|%5f)[A-Za-z0-9_%-]*/gi;

function routeOf(request: FastifyRequest): string {
  return request.routeOptions?.url ?? 'unmatched';
}

export function loggerOptions(config: Pick<Config, 'logLevel'>): LoggerOptions {
  return {
    level: config.logLevel,
    // ISO 8601 in UTC ("time":"2026-01-02T03:04:05.678Z"): read by people and log stores alike, unlike epoch ms.
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (req: FastifyRequest) => ({
        method: req.method,
        route: routeOf(req),
        // The path without its query string (which can hold a key or text); bounded, for 404s without a route.
        // A client that puts its key in the path (a 404) must not find it in our logs either.
        path: req.url.split('?')[0]!.slice(0, 200).replace(KEY_IN_TEXT, 'dk_[redacted]'),
        remoteAddress: req.ip,
      }),
      // Fastify hands the reply itself to this serializer ("request completed").
      res: (res: { statusCode: number }) => {
        const request = (res as Partial<FastifyReply>).request;
        return { statusCode: res.statusCode, route: request ? routeOf(request) : undefined, keyId: request ? keyIdOf(request) : undefined };
      },
    },
  };
}

/** How the process logs: the options above (optionally to a stream of their own), or not at all. */
export type LoggerSetting = false | (LoggerOptions & { stream?: DestinationStream });

/**
 * The process's one logger: the HTTP server logs through it (Fastify's `loggerInstance`) and so do the parts
 * that work beside requests (document jobs), so every line has the same shape, level and redaction.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, setting?: LoggerSetting): Logger {
  if (setting === false) return pino({ enabled: false });
  const { stream, ...options }: Exclude<LoggerSetting, false> = setting ?? loggerOptions(config);
  return stream ? pino(options, stream) : pino(options);
}
