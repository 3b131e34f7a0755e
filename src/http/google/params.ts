// Google's v2 parameters arrive in many shapes, all equivalent: the query string (`q` repeated), a JSON body,
// a JSON body wrapped as {"data": {...}} (the discovery-based Python client), or a form-encoded body. Unset
// fields may be sent as `null` (the Python cloud client) and `cid` as []. Everything is folded into one flat
// record here, so the routes read `q`, `target`, ... without caring how they came.

/** The system parameters every Google API accepts and that never carry translation input. */
const SYSTEM_PARAMS = new Set(['key', 'alt', 'fields', 'prettyPrint', 'quotaUser', 'userIp', 'callback', '$.xgafv']);

export type GoogleParams = Record<string, unknown>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function copyDefined(from: Record<string, unknown>, into: GoogleParams): void {
  for (const [name, value] of Object.entries(from)) {
    if (SYSTEM_PARAMS.has(name)) continue;
    // null = "not set" for Google's clients; an empty cid list likewise.
    if (value === null || value === undefined) continue;
    into[name] = value;
  }
}

/** Query string first, then the body (unwrapped from `data` when wrapped) on top of it. */
export function googleParams(query: unknown, body: unknown): GoogleParams {
  const params: GoogleParams = {};
  if (isRecord(query)) copyDefined(query, params);
  if (isRecord(body)) {
    const { data, ...rest } = body;
    copyDefined(rest, params);
    if (isRecord(data)) copyDefined(data, params);
  }
  return params;
}
