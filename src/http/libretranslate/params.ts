// LibreTranslate's request fields, from a JSON or a form body (urlencoded or multipart; see bodies.ts).
import { invalidRequest } from '../../errors/api-error.ts';

export type LibreBody = Record<string, unknown>;

export function libreBody(body: unknown): LibreBody {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as LibreBody) : {};
}

/**
 * `q` as LibreTranslate checks it (`if not q`): missing, null, "" or [] is its "missing q parameter". An
 * array of empty strings is not empty: each is translated (to ""), as LibreTranslate does.
 */
export function libreQ(value: unknown): unknown {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) {
    throw invalidRequest('Invalid request: missing q parameter');
  }
  return value;
}

/** LibreTranslate's own codes that are no standard tag (Argos Translate's): Traditional Chinese, Brazilian Portuguese. */
const LIBRE_CODES: Record<string, string> = { zt: 'zh-TW', pb: 'pt' };

/** A language code as the service understands it (LibreTranslate's own codes mapped, the rest as sent). */
export function libreCode(value: unknown): unknown {
  return typeof value === 'string' ? (LIBRE_CODES[value.trim().toLowerCase()] ?? value) : value;
}

/** `source: "auto"` (or nothing) = detect each string. */
export function libreSource(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' && value.trim().toLowerCase() === 'auto' ? undefined : libreCode(value);
}

export const MAX_ALTERNATIVES = 3;

/**
 * `alternatives` as LibreTranslate reads it: `max(0, int(n))` — a form's "2", a JSON 2 (a JSON 2.5 truncated, as
 * Python's int does), below 0 is 0 — and more than its default limit of 3 is its 400.
 */
export function libreAlternatives(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const n =
    typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : NaN;
  if (Number.isNaN(n)) throw invalidRequest('Invalid request: alternatives parameter is not a number');
  if (n > MAX_ALTERNATIVES) throw invalidRequest(`Invalid request: alternatives parameter must be <= ${MAX_ALTERNATIVES}`);
  return Math.max(n, 0);
}

/** Detection confidence as LibreTranslate states it: a percentage, one decimal. */
export function percent(confidence: number): number {
  return Math.round(confidence * 1000) / 10;
}
