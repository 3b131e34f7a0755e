// How a body's bytes become text. JSON bodies must be UTF-8 (RFC 8259): Node would decode other bytes to U+FFFD and
// the request would be translated — and charged — with characters the client never sent; such a body is a 400.
// A compressed body (Content-Encoding) is not decoded: 415 (RFC 9110 §15.5.16) instead of "malformed JSON", or of
// a plain body labelled gzip being read as if the label were not there.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** `bytes` as UTF-8 text (a leading BOM dropped), or `invalid()` thrown when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array, invalid: () => ApiError): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw invalid();
  }
}

/** No request of any surface nests deeper than a few levels ({"data": {"q": [...]}}); 32 leaves room. */
export const MAX_JSON_DEPTH = 32;

/**
 * The deepest nesting of arrays and objects in a JSON text, counted in one pass outside strings, stopping at
 * `limit + 1`: a body nested 100,000 levels deep is refused by name before anything walks it recursively.
 */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34; i++) if (text.charCodeAt(i) === 92 /* \ */) i++;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return deepest;
}

export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = decodeUtf8(body as Buffer, () => new ApiError(400, 'invalid_request', 'The request body is not valid UTF-8: JSON must be sent as UTF-8.'));
    } catch (err) {
      done(err as ApiError, undefined);
      return;
    }
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      done(new ApiError(400, 'invalid_request', `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep: no request needs more than a few.`), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

export function refuseContentEncodings(app: FastifyInstance): void {
  app.addHook('preParsing', async (request) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
    if (hasBody && encoding && encoding !== 'identity') {
      throw new ApiError(415, 'invalid_request', `Content-Encoding ${encoding.slice(0, 40)} is not supported: send the body uncompressed.`);
    }
  });
}
