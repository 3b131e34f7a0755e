// ApiError → LibreTranslate's error body {"error": "message"}, with the status codes its clients act on:
// 400 bad request, 403 for a missing/invalid key AND for a used-up quota (LibreTranslate has no 401;
// Mastodon reads 403 as "quota exceeded"), 429 with Retry-After, 500 saying a retry is safe.
import { ApiError } from '../../errors/api-error.ts';

export const LIBRETRANSLATE_PREFIX = '/libretranslate';

export const KEY_HINT = 'Pass a valid key in the api_key field of the request (or the X-API-Key header).';

export interface LibreErrorBody {
  error: string;
}

/** Service messages point at the /v1 listing and header; on this surface they live elsewhere. */
function localize(message: string): string {
  return message
    .replaceAll('GET /v1/languages', `GET ${LIBRETRANSLATE_PREFIX}/languages`)
    .replaceAll('Pass a valid API key in the X-API-Key header.', KEY_HINT)
    .replaceAll('with a valid key in the X-API-Key header', 'with a valid api_key')
    .replace(
      /^Unsupported Content-Type: .*/,
      'Unsupported Content-Type: send JSON (Content-Type: application/json) or a form ' +
        '(Content-Type: application/x-www-form-urlencoded or multipart/form-data).',
    );
}

export function libreStatus(e: ApiError): number {
  return e.status === 401 ? 403 : e.status;
}

export function libreError(e: ApiError): LibreErrorBody {
  return { error: localize(e.message) };
}
