// The page's only door to the server: same-origin fetches of the /v1 API with the key in X-API-Key (never in
// the URL). Every failure becomes one ApiFailure whose `kind` the page turns into words (messages.ts).

export type FailureKind = 'auth' | 'rate' | 'quota' | 'invalid' | 'server' | 'network' | 'disabled';

export class ApiFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly status: number,
    /** Seconds from Retry-After (429 only). */
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { code?: number; message?: string; type?: string };
}

function kindOf(status: number, type: string | undefined): FailureKind {
  if (status === 401) return 'auth';
  if (status === 429) return 'rate';
  if (status === 403 && type === 'quota_exceeded') return 'quota';
  if (status === 403) return 'auth';
  if (status === 404) return 'disabled';
  if (status >= 500) return 'server';
  return 'invalid';
}

function retryAfterSeconds(header: string | null): number {
  const n = Number(header);
  // Retry-After may also be an HTTP date; our server sends seconds, anything else waits a minute.
  if (Number.isFinite(n) && n >= 0) return Math.ceil(n);
  const date = header ? Date.parse(header) : NaN;
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - Date.now()) / 1000)) : 60;
}

export interface ApiAnswer<T> {
  body: T;
  /** X-RateLimit-Limit / -Remaining of this key after the request; null when the key has no limit. */
  rate: { limit: number; remaining: number } | null;
  /** X-Dragoman-Detected-Confidence of /v1/translate without source, one per string of q; else empty. */
  detectedConfidence: number[];
  /** X-Dragoman-Plan / -Characters-Used / -Characters-Limit of a charged answer (null limit = none); else null. */
  quota: { plan: string; used: number; limit: number | null } | null;
  /** X-Dragoman-Model: the models that answered (`a>b` a pivot, `none` no model); null when absent. */
  model: string | null;
}

function quotaOf(headers: Headers): ApiAnswer<unknown>['quota'] {
  const plan = headers.get('x-dragoman-plan');
  const used = Number(headers.get('x-dragoman-characters-used') ?? NaN);
  const rawLimit = headers.get('x-dragoman-characters-limit');
  const limit = rawLimit === 'unlimited' ? null : Number(rawLimit ?? NaN);
  if (!plan || !Number.isFinite(used) || (limit !== null && !Number.isFinite(limit))) return null;
  return { plan, used, limit };
}

function confidencesOf(headers: Headers): number[] {
  const raw = headers.get('x-dragoman-detected-confidence');
  return raw ? raw.split(',').map((v) => Number(v.trim())).filter((n) => Number.isFinite(n)) : [];
}

function rateOf(headers: Headers): ApiAnswer<unknown>['rate'] {
  const limit = Number(headers.get('x-ratelimit-limit') ?? NaN);
  const remaining = Number(headers.get('x-ratelimit-remaining') ?? NaN);
  return Number.isFinite(limit) && Number.isFinite(remaining) ? { limit, remaining } : null;
}

export async function callApi<T>(path: string, key: string | null, body?: unknown): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // Without a key, the page says it is the page: on a server with a shared key (DRAGOMAN_UI_KEY) that is what lets
  // its calls through (src/http/page-key.ts); elsewhere they are answered 401 as for any client without a key.
  if (key) headers['x-api-key'] = key;
  else headers['x-dragoman-client'] = 'web-page';
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure('network', 'The server could not be reached.', 0, 0);
  }
  let parsed: unknown = null;
  try {
    parsed = await response.json();
  } catch {
    // A proxy's HTML error page or an empty body: the status alone decides.
  }
  if (response.ok) {
    const h = response.headers;
    return { body: parsed as T, rate: rateOf(h), detectedConfidence: confidencesOf(h), quota: quotaOf(h), model: h.get('x-dragoman-model') };
  }
  throw failureOf(response, parsed);
}

/** A failed answer (its parsed JSON body, if any) as the ApiFailure the page explains. */
export function failureOf(response: Response, parsed: unknown): ApiFailure {
  const error = (parsed as ErrorBody | null)?.error;
  return new ApiFailure(
    kindOf(response.status, error?.type),
    error?.message ?? `HTTP ${response.status}`,
    response.status,
    response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : 0,
  );
}

// Response shapes of the /v1 API (docs/api.md).
export interface LanguageEntry {
  language: string;
  name: string;
  /** Google's code where it differs (`fa-AF` for `prs`); only in the page's copy, /ui/languages. */
  google?: string;
  /** Some installed model writes it (only in /ui/languages). */
  writes?: boolean;
  /** Some installed model reads it: the index in `targetSets` of what it reaches (only in /ui/languages). */
  reach?: number;
}
export interface LanguagesResponse {
  /** `targetSets`: only in /ui/languages. */
  /** `modelChoices`: `source>target` -> the kind the usual route takes, for pairs an LLM translator and an encoder-decoder model both serve. */
  data: { languages: LanguageEntry[]; targetSets?: string[][]; modelChoices?: Record<string, 'quality' | 'speed'> };
}
export interface TranslateResponse {
  /** `memory`: what the translation memory sent did for the string (only with one). */
  data: { translations: { translatedText: string; detectedSourceLanguage?: string; input: string; memory?: { segments: number; exact: number; characters: number } }[] };
}
export interface Detection {
  language: string;
  confidence: number;
  isReliable: boolean;
  input: string;
}
export interface DetectResponse {
  data: { detections: Detection[] };
}
export interface Usage {
  keyId: string;
  plan: string;
  period: string;
  periodStart: string;
  periodEnd: string;
  charactersUsed: number;
  characterLimit: number | null;
  charactersRemaining: number | null;
  requests: number;
  requestsPerMinute: number | null;
}
export interface UsageResponse {
  data: Usage;
}
export interface SignupResponse {
  data: { id: string; key: string; plan: string; message: string };
}
export interface SharedKey {
  id: string;
  name: string | null;
  plan: string;
  requestsPerMinute: number | null;
  characterLimit: number | null;
}
/** GET /ui/settings: the key the page's requests without a key use (DRAGOMAN_UI_KEY), or null; `demo` when the server runs its demo models. */
export interface SettingsResponse {
  data: { sharedKey: SharedKey | null; demo?: { models: string[]; note: string } };
}
