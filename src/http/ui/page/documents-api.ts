// The page's calls of /v1/documents: upload a file (multipart), list the key's jobs, read one, delete one, fetch
// the translated file. With the key
// in X-API-Key like every call; the result is fetched, not linked, so the key never goes into an address.
// A type only, erased when the page is bundled: the page reads the very object the API writes.
import type { DocumentView } from '../../../documents/job.ts';
import { ApiFailure, callApi, failureOf } from './api.ts';

interface DocumentResponse {
  data: { document: DocumentView };
}

/**
 * The accepted job, and the key's requests per minute from X-RateLimit-Limit (null: no limit). `memory`: the id of
 * one of the key's translation memories, or undefined for none.
 */
export async function uploadDocument(
  key: string,
  file: File,
  target: string,
  source: string,
  memory: string | undefined,
): Promise<{ job: DocumentView; rpm: number | null }> {
  const form = new FormData();
  form.append('target', target);
  if (source) form.append('source', source);
  if (memory) form.append('memory', memory);
  form.append('file', file, file.name);
  let response: Response;
  try {
    // No content-type: the browser writes multipart/form-data with its boundary.
    response = await fetch('/v1/documents', {
      method: 'POST',
      headers: { accept: 'application/json', 'x-api-key': key },
      body: form,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure('network', 'The server could not be reached.', 0, 0);
  }
  const parsed: unknown = await response.json().catch(() => null);
  if (!response.ok) throw failureOf(response, parsed);
  const limit = Number(response.headers.get('x-ratelimit-limit') ?? NaN);
  return { job: (parsed as DocumentResponse).data.document, rpm: Number.isFinite(limit) ? limit : null };
}

/** The key's jobs, newest first (one page: the most recent `limit`). */
export async function listDocuments(key: string, limit = 20): Promise<DocumentView[]> {
  return (await callApi<{ data: { documents: DocumentView[] } }>(`/v1/documents?limit=${limit}`, key)).body.data.documents;
}

export async function deleteDocument(key: string, id: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`/v1/documents/${encodeURIComponent(id)}`, {
      method: 'DELETE',
      headers: { accept: 'application/json', 'x-api-key': key },
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure('network', 'The server could not be reached.', 0, 0);
  }
  if (!response.ok && response.status !== 404) throw failureOf(response, await response.json().catch(() => null));
}

export async function readDocument(key: string, id: string): Promise<DocumentView> {
  return (await callApi<DocumentResponse>(`/v1/documents/${encodeURIComponent(id)}`, key)).body.data.document;
}

/** The translated file, and its name from Content-Disposition (else `fallback`). */
export async function fetchResult(key: string, id: string, fallback: string): Promise<{ blob: Blob; filename: string }> {
  let response: Response;
  try {
    response = await fetch(`/v1/documents/${encodeURIComponent(id)}/result`, {
      headers: { 'x-api-key': key },
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiFailure('network', 'The server could not be reached.', 0, 0);
  }
  if (!response.ok) throw failureOf(response, await response.json().catch(() => null));
  return { blob: await response.blob(), filename: filenameOf(response.headers.get('content-disposition')) ?? fallback };
}

/** attachment; filename="a.txt"; filename*=UTF-8''%C3%A4.txt → the UTF-8 name when there is one. */
function filenameOf(header: string | null): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]!.trim());
    } catch {
      // Fall through to the plain name.
    }
  }
  return /filename\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /filename\s*=\s*([^;]+)/i.exec(header)?.[1]?.trim();
}
