// Request validation shared by translate and detect. Messages name the field, the offending value and the
// limit, so a client can fix the request without reading the documentation.
import { invalidRequest } from '../errors/api-error.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import type { Language } from '../languages/types.ts';
import type { Format } from './types.ts';

export interface RequestLimits {
  maxStrings: number;
  maxChars: number;
}

/** Unicode code points, the unit of the quota and of the per-request limit (an emoji counts 1, not 2). */
export function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export function validateQ(q: unknown, limits: RequestLimits): { strings: string[]; single: boolean; chars: number } {
  if (q === undefined || q === null) {
    throw invalidRequest(`Missing required field 'q': a string or an array of up to ${limits.maxStrings} strings.`);
  }
  let strings: string[];
  let single = false;
  if (typeof q === 'string') {
    strings = [q];
    single = true;
  } else if (Array.isArray(q)) {
    if (q.length === 0) {
      throw invalidRequest(`Field 'q' is an empty array: send 1 to ${limits.maxStrings} strings.`);
    }
    if (q.length > limits.maxStrings) {
      throw invalidRequest(
        `Too many strings in 'q': ${q.length} were sent, the maximum is ${limits.maxStrings} per request. ` +
          `Split them over several requests.`,
      );
    }
    const bad = q.findIndex((s) => typeof s !== 'string');
    if (bad >= 0) throw invalidRequest(`Field 'q[${bad}]' must be a string, got ${describe(q[bad])}.`);
    strings = q as string[];
  } else {
    throw invalidRequest(`Field 'q' must be a string or an array of strings, got ${describe(q)}.`);
  }
  let chars = 0;
  for (const s of strings) chars += codePoints(s);
  if (chars > limits.maxChars) {
    throw invalidRequest(
      `Request too long: 'q' has ${chars} characters, the maximum is ${limits.maxChars} characters per request. ` +
        `Split the text over several requests.`,
    );
  }
  return { strings, single, chars };
}

export function validateLanguage(field: 'target' | 'source', value: unknown, required: boolean): Language | undefined {
  // An empty source, or "auto" as LibreTranslate and many client libraries send it, means "detect it".
  if (value === undefined || value === null || (field === 'source' && (value === '' || (typeof value === 'string' && value.toLowerCase() === 'auto')))) {
    if (required) {
      throw invalidRequest(
        `Missing required field '${field}': a language code such as "de". See GET /v1/languages for the supported codes.`,
      );
    }
    return undefined;
  }
  if (typeof value !== 'string') throw invalidRequest(`Field '${field}' must be a string, got ${describe(value)}.`);
  const lang = resolveLanguage(value);
  if (!lang) {
    throw invalidRequest(
      `Unsupported ${field} language code '${clip(value)}'. See GET /v1/languages for the supported codes.`,
    );
  }
  return lang;
}

export function validateFormat(value: unknown): Format {
  if (value === undefined || value === null || value === '') return 'text';
  if (value === 'text' || value === 'html') return value;
  throw invalidRequest(`Unsupported format ${JSON.stringify(clip(String(value)))}: use "text" or "html".`);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** User input echoed in a message is cut short (messages are not a place for whole texts). */
function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 40) + '…' : s;
}
