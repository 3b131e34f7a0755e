// application/x-www-form-urlencoded bodies, read strictly: the bytes and every %XX escape must be UTF-8 (as for
// JSON, see body-encoding.ts). The usual parsers turn a Latin-1 "%FC" into U+FFFD, and the request was translated
// and charged with a character the client never sent. A "%" not followed by two hex digits stays as it is (as
// URLSearchParams keeps it).
//
// Every form (urlencoded here, multipart in the LibreTranslate surface) is read one field at a time into a
// FormCollector, in time linear in the body, and refused as soon as it passes the request's limits (the maximum
// number of strings, of fields, of characters in one field): a body of 100,000 fields costs what its first few
// hundred do. A request is answered long before its key is checked, so this is also all the work an
// unauthenticated body gets.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/env.ts';
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import { decodeUtf8 } from './body-encoding.ts';

function notUtf8(): ApiError {
  return new ApiError(400, 'invalid_request', 'The form body is not valid UTF-8: send the fields percent-encoded as UTF-8.');
}

const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/** A run of %XX escapes as the UTF-8 it must be (a sequence cannot span a literal character). */
function decodeEscapes(run: string): string {
  const bytes = new Uint8Array(run.length / 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(3 * i + 1, 3 * i + 3), 16);
  return decodeUtf8(bytes, notUtf8);
}

function decodeComponent(raw: string): string {
  const text = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  return text.includes('%') ? text.replace(ESCAPES, decodeEscapes) : text;
}

/** The fields of a form body, in order, decoded one at a time (a consumer that stops early decodes no more). */
export function* formEntries(body: Buffer): Generator<[string, string]> {
  const text = decodeUtf8(body, notUtf8);
  let at = 0;
  while (at <= text.length) {
    let end = text.indexOf('&', at);
    if (end < 0) end = text.length;
    if (end > at) {
      const eq = text.indexOf('=', at);
      yield eq < 0 || eq > end
        ? [decodeComponent(text.slice(at, end)), '']
        : [decodeComponent(text.slice(at, eq)), decodeComponent(text.slice(eq + 1, end))];
    }
    at = end + 1;
  }
}

/** Fields beyond the strings of a batch that a form may carry (source, target, format, key...). */
export const EXTRA_FORM_FIELDS = 64;

export interface FormLimits {
  /** The most strings in `q` (DRAGOMAN_MAX_STRINGS): also the most times any one field may repeat. */
  maxStrings: number;
  /** The most characters of a request (DRAGOMAN_MAX_CHARS): no single field can usefully be longer. */
  maxChars: number;
}

export function formLimits(config: Pick<Config, 'maxStrings' | 'maxChars'>): FormLimits {
  return { maxStrings: config.maxStrings, maxChars: config.maxChars };
}

/**
 * A form's fields as a surface reads them: names in `lists` gather every value in arrival order (a batch of
 * strings), any other name keeps its first value. Own properties only, so `__proto__` is just a name.
 */
export class FormCollector {
  private readonly fields = new Map<string, string | string[]>();
  private count = 0;

  constructor(
    private readonly limits: FormLimits,
    private readonly lists: (name: string) => boolean,
  ) {}

  add(name: string, value: string): void {
    const { maxStrings, maxChars } = this.limits;
    if (++this.count > maxStrings + EXTRA_FORM_FIELDS) {
      throw invalidRequest(
        `The form has more than ${maxStrings + EXTRA_FORM_FIELDS} fields: at most ${maxStrings} strings in 'q' ` +
          `and a few other fields. Split the strings over several requests.`,
      );
    }
    // Code units: more than twice the limit is more code points than the limit, whatever the text.
    if (value.length > 2 * maxChars || name.length > 2 * maxChars) {
      throw invalidRequest(`Form field '${clip(name)}' is longer than the maximum of ${maxChars} characters per request.`);
    }
    const seen = this.fields.get(name);
    if (seen === undefined) {
      this.fields.set(name, this.lists(name) ? [value] : value);
    } else if (Array.isArray(seen)) {
      if (seen.length >= maxStrings) {
        throw invalidRequest(
          `Too many strings in '${clip(name)}': more than ${maxStrings} were sent, the maximum is ${maxStrings} per ` +
            `request. Split them over several requests.`,
        );
      }
      seen.push(value);
    }
  }

  /** The fields: a list field sent once is a plain string, as a query string reads it. */
  result(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = Object.create(null);
    for (const [name, value] of this.fields) out[name] = Array.isArray(value) && value.length === 1 ? value[0]! : value;
    return out;
  }
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

/** Registers the strict form parser on `app`; `collector()` gives a fresh FormCollector for each body. */
export function registerFormParser(app: FastifyInstance, collector: () => FormCollector): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      const fields = collector();
      for (const [name, value] of formEntries(body as Buffer)) fields.add(name, value);
      done(null, fields.result());
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
