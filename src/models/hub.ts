// The two things we ask a Hugging Face hub (or a mirror with the same layout, HF_ENDPOINT): what a file is (HEAD on
// /{repo}/resolve/{revision}/{path}) and its bytes (GET, resumed with Range). Like huggingface_hub we read
// X-Linked-Size / X-Linked-Etag (sha256, on the redirect of files stored in LFS) before ETag / Content-Length
// (git blob sha1 and size of small files), and X-Repo-Commit to pin every file to one commit.
import { open, stat, truncate } from 'node:fs/promises';
import type { HubSettings } from '../config/env.ts';
import type { FileProgress } from './progress.ts';

export type { HubSettings };

export interface RemoteFile {
  path: string;
  url: string;
  size?: number;
  /** LFS files: sha256 of the content. */
  sha256?: string;
  /** Plain git files: the git blob id. */
  gitSha1?: string;
  commit?: string;
}

export class HubError extends Error {
  constructor(
    message: string,
    /** Worth another attempt (network trouble, 5xx), as opposed to 4xx and bad content. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function resolveUrl(hub: HubSettings, repo: string, revision: string, path: string): string {
  const base = hub.endpoint.replace(/\/+$/, '');
  const file = path.split('/').map(encodeURIComponent).join('/');
  return `${base}/${repo}/resolve/${encodeURIComponent(revision)}/${file}`;
}

function authHeaders(hub: HubSettings): Record<string, string> {
  // fetch drops Authorization when a redirect leaves the hub's origin (to the CDN), as it should.
  return hub.token ? { authorization: `Bearer ${hub.token}` } : {};
}

function cleanEtag(raw: string | null): string | undefined {
  if (!raw) return undefined;
  return raw.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function intHeader(raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

async function request(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new HubError(`${what}: ${cause?.code ?? cause?.message ?? (e as Error).message}`, true);
  }
}

/** HEAD a file. undefined = the repository has no such file (404 EntryNotFound). */
export async function fileMetadata(
  hub: HubSettings,
  repo: string,
  revision: string,
  path: string,
): Promise<RemoteFile | undefined> {
  let url = resolveUrl(hub, repo, revision, path);
  for (let hops = 0; hops < 5; hops++) {
    const res = await request(
      url,
      {
        method: 'HEAD',
        redirect: 'manual',
        headers: { ...authHeaders(hub), 'accept-encoding': 'identity' },
        signal: AbortSignal.timeout(DEFAULT_STALL_MS),
      },
      `${repo}/${path}`,
    );
    const h = res.headers;
    const errorCode = h.get('x-error-code');
    if (res.status === 404 && errorCode !== 'RepoNotFound' && errorCode !== 'RevisionNotFound') return undefined;
    if (res.status === 401 || res.status === 403 || errorCode === 'RepoNotFound') {
      throw new HubError(
        `${repo}: repository not found on ${hub.endpoint}, or it needs a token (set HF_TOKEN) (HTTP ${res.status})`,
        false,
      );
    }
    if (errorCode === 'RevisionNotFound') throw new HubError(`${repo}: revision "${revision}" not found`, false);
    const location = h.get('location');
    const linkedEtag = cleanEtag(h.get('x-linked-etag'));
    // A relative redirect means the repository was renamed: follow it. An absolute one goes to the CDN and already
    // carries the X-Linked-* metadata we need.
    if (res.status >= 300 && res.status < 400 && location && !linkedEtag && !/^[a-z]+:\/\//i.test(location)) {
      url = new URL(location, url).href;
      continue;
    }
    if (res.status >= 400) throw new HubError(`${repo}/${path}: HTTP ${res.status}`, res.status >= 500 || res.status === 429);
    const etag = linkedEtag ?? cleanEtag(h.get('etag'));
    const size = intHeader(h.get('x-linked-size')) ?? (res.status === 200 ? intHeader(h.get('content-length')) : undefined);
    return {
      path,
      url,
      size,
      sha256: etag && /^[0-9a-f]{64}$/.test(etag) ? etag : undefined,
      gitSha1: etag && /^[0-9a-f]{40}$/.test(etag) ? etag : undefined,
      commit: h.get('x-repo-commit') ?? undefined,
    };
  }
  throw new HubError(`${repo}/${path}: too many redirects`, false);
}

async function sizeOnDisk(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** A connection that delivers nothing for this long is treated as broken (and the download resumed). */
export const DEFAULT_STALL_MS = 60_000;

/**
 * Download into `partialPath`, continuing from the bytes already there (HTTP Range). A server that ignores the
 * range (200 instead of 206) or cannot satisfy it (416) makes us start over rather than append the wrong bytes.
 */
export async function downloadToPartial(
  hub: HubSettings,
  file: RemoteFile,
  partialPath: string,
  progress: FileProgress,
  stallMs = DEFAULT_STALL_MS,
): Promise<void> {
  let offset = await sizeOnDisk(partialPath);
  if (file.size !== undefined && offset > file.size) {
    await truncate(partialPath, 0);
    offset = 0;
  }
  if (file.size !== undefined && offset === file.size && offset > 0) {
    progress.start(file.size, offset);
    progress.finish();
    return;
  }
  const headers: Record<string, string> = { ...authHeaders(hub), 'accept-encoding': 'identity' };
  if (offset > 0) headers.range = `bytes=${offset}-`;
  // Without this a stalled connection (no error, no data) would hang the pull forever.
  const stall = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(new Error(`no data for ${stallMs / 1000} s`)), stallMs);
  };
  watch();
  try {
    const res = await request(file.url, { headers, redirect: 'follow', signal: stall.signal }, file.path);
    if (res.status === 416 && offset > 0) {
      await res.body?.cancel();
      await truncate(partialPath, 0);
      return await downloadToPartial(hub, file, partialPath, progress, stallMs);
    }
    if (res.status === 206) {
      const start = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '')?.[1];
      if (Number(start) !== offset) {
        await res.body?.cancel();
        throw new HubError(`${file.path}: asked for bytes from ${offset}, got range "${res.headers.get('content-range')}"`, true);
      }
    } else if (res.status === 200) {
      offset = 0;
    } else {
      await res.body?.cancel();
      throw new HubError(`${file.path}: HTTP ${res.status}`, res.status >= 500 || res.status === 429);
    }
    if (!res.body) throw new HubError(`${file.path}: empty response`, true);

    const fh = await open(partialPath, offset > 0 ? 'a' : 'w');
    progress.start(file.size, offset);
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        watch();
        await fh.write(chunk);
        progress.advance(chunk.byteLength);
      }
    } catch (e) {
      throw new HubError(`${file.path}: download interrupted (${(e as Error).message})`, true);
    } finally {
      await fh.close();
    }
  } finally {
    clearTimeout(timer);
  }
  // A connection that ends cleanly but early (a proxy, a chunked response cut short) is an interruption too.
  const got = await sizeOnDisk(partialPath);
  if (file.size !== undefined && got < file.size) {
    throw new HubError(`${file.path}: the server stopped after ${got} of ${file.size} bytes`, true);
  }
  progress.finish();
}
