// application/x-www-form-urlencoded bodies, read strictly: the bytes and every %XX escape must be UTF-8 (as for
// JSON, see body-encoding.ts). The usual parsers turn a Latin-1 "%FC" into U+FFFD, and the request was translated
// and charged with a character the client never sent. A "%" not followed by two hex digits stays as it is (as
// URLSearchParams keeps it).
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../service/errors.ts';
import { decodeUtf8 } from './body-encoding.ts';

const encoder = new TextEncoder();

function notUtf8(): ApiError {
  return new ApiError(400, 'invalid_request', 'The form body is not valid UTF-8: send the fields percent-encoded as UTF-8.');
}

function decodeComponent(raw: string): string {
  const text = raw.replace(/\+/g, ' ');
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.charCodeAt(i) === 37 /* % */ ? text.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...encoder.encode(ch));
      i += ch.length - 1;
    }
  }
  return decodeUtf8(Uint8Array.from(bytes), notUtf8);
}

/** The fields of a form body, in order. */
export function formEntries(body: Buffer): [string, string][] {
  const text = decodeUtf8(body, notUtf8);
  const entries: [string, string][] = [];
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    entries.push(eq < 0 ? [decodeComponent(pair), ''] : [decodeComponent(pair.slice(0, eq)), decodeComponent(pair.slice(eq + 1))]);
  }
  return entries;
}

/** Registers the strict form parser on `app`; `fields` shapes the entries for the surface (repeated fields...). */
export function registerFormParser(app: FastifyInstance, fields: (entries: [string, string][]) => unknown): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, fields(formEntries(body as Buffer)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
