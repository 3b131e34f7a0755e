// LibreTranslate's request fields, from a JSON or a form-encoded body (repeated `q` = an array).
import { invalidRequest } from '../../service/errors.ts';

export type LibreBody = Record<string, unknown>;

export function libreBody(body: unknown): LibreBody {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as LibreBody) : {};
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

/** `alternatives`: 0 to 3 (more is capped at 3, as LibreTranslate's default limit does); a form sends "2". */
export function libreAlternatives(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw invalidRequest(`Field 'alternatives' must be an integer from 0 to ${MAX_ALTERNATIVES}.`);
  }
  return Math.min(n, MAX_ALTERNATIVES);
}

/** Detection confidence as LibreTranslate states it: a percentage, one decimal. */
export function percent(confidence: number): number {
  return Math.round(confidence * 1000) / 10;
}
