// A local stand-in for the Hugging Face hub: /{owner}/{repo}/resolve/{revision}/{path} with the real hub's headers
// (LFS files: 302 to a CDN URL carrying X-Linked-Size / X-Linked-Etag = sha256; small files: 200 with ETag = git
// blob sha1; X-Repo-Commit; X-Error-Code on 404/401), HTTP Range on downloads, and faults we can switch on.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';

export interface HubRequest {
  method: string;
  path: string;
  range?: string;
  authorization?: string;
}

export interface FakeHubOptions {
  /** repo id → local folder served as that repo's tree. */
  repos: Record<string, string>;
  commit?: string;
  /** Files served through the LFS redirect (default: *.onnx, like the real repositories). */
  isLfs?: (path: string) => boolean;
  token?: string;
}

export interface FakeHub {
  url: string;
  commit: string;
  requests: HubRequest[];
  /** Next `times` full GETs of `path` send only `bytes` bytes, then the connection is cut. */
  cutDownload(path: string, bytes: number, times?: number): void;
  /** Next full GET of `path` sends `bytes` bytes, then nothing more while keeping the connection open. */
  stallDownload(path: string, bytes: number): void;
  /** Next `times` full GETs of `path` send only `bytes` bytes and then END the response cleanly (chunked). */
  endEarly(path: string, bytes: number, times?: number): void;
  /** Advertise a wrong hash for `path`: sha256 (X-Linked-Etag) of an LFS file, git blob id (ETag) of another. */
  lieAboutSha(path: string): void;
  close(): Promise<void>;
}

interface Blob {
  data: Buffer;
  sha256: string;
  gitSha1: string;
}

function loadTree(dir: string): Map<string, Blob> {
  const files = new Map<string, Blob>();
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const full = join(dir, name);
    if (!statSync(full).isFile()) continue;
    const data = readFileSync(full);
    files.set(relative(dir, full).split(sep).join('/'), {
      data,
      sha256: createHash('sha256').update(data).digest('hex'),
      gitSha1: createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex'),
    });
  }
  return files;
}

export async function startFakeHub(opts: FakeHubOptions): Promise<FakeHub> {
  const commit = opts.commit ?? 'c0ffee0000000000000000000000000000000001';
  const isLfs = opts.isLfs ?? ((p: string) => p.endsWith('.onnx'));
  const trees = new Map(Object.entries(opts.repos).map(([repo, dir]) => [repo, loadTree(dir)]));
  const bySha = new Map<string, { path: string; blob: Blob }>();
  for (const tree of trees.values()) for (const [path, blob] of tree) bySha.set(blob.sha256, { path, blob });
  const cuts = new Map<string, { bytes: number; times: number }>();
  const shortEnds = new Map<string, { bytes: number; times: number }>();
  const stalls = new Map<string, number>();
  const lies = new Set<string>();
  const requests: HubRequest[] = [];

  function sendBody(req: IncomingMessage, res: ServerResponse, path: string, blob: Blob, headers: Record<string, string>) {
    const size = blob.data.length;
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const base = { ...headers, 'accept-ranges': 'bytes', 'content-type': 'application/octet-stream' };
    if (range) {
      const start = Number(range[1]);
      if (start >= size) {
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
      res.writeHead(206, { ...base, 'content-length': String(size - start), 'content-range': `bytes ${start}-${size - 1}/${size}` });
      if (req.method === 'HEAD') res.end();
      else res.end(blob.data.subarray(start));
      return;
    }
    const short = req.method === 'GET' ? shortEnds.get(path) : undefined;
    if (short && short.times > 0) {
      short.times--;
      res.writeHead(200, base); // no Content-Length: chunked, so ending early is a clean end
      res.end(blob.data.subarray(0, short.bytes));
      return;
    }
    res.writeHead(200, { ...base, 'content-length': String(size) });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stallAt = stalls.get(path);
    if (stallAt !== undefined) {
      stalls.delete(path);
      res.write(blob.data.subarray(0, stallAt)); // and never end: closeAllConnections() on close() ends it
      return;
    }
    const cut = cuts.get(path);
    if (cut && cut.times > 0) {
      cut.times--;
      res.write(blob.data.subarray(0, cut.bytes), () => setTimeout(() => res.socket?.destroy(), 20));
      return;
    }
    res.end(blob.data);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hub');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      range: req.headers.range,
      authorization: req.headers.authorization,
    });
    const cdn = /^\/cdn\/([0-9a-f]{64})$/.exec(url.pathname);
    if (cdn) {
      const hit = bySha.get(cdn[1]!);
      if (!hit) return void res.writeHead(404).end();
      return sendBody(req, res, hit.path, hit.blob, { etag: `"${hit.blob.sha256}"` });
    }
    const m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (!m) return void res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end();
    const [, repo, revision, rawPath] = m;
    const tree = trees.get(repo!);
    if (!tree || (opts.token && req.headers.authorization !== `Bearer ${opts.token}`)) {
      return void res.writeHead(401, { 'x-error-code': 'RepoNotFound', 'x-error-message': 'Repository not found' }).end();
    }
    if (decodeURIComponent(revision!) !== 'main' && revision !== commit) {
      return void res.writeHead(404, { 'x-error-code': 'RevisionNotFound' }).end();
    }
    const path = rawPath!.split('/').map(decodeURIComponent).join('/');
    const blob = tree.get(path);
    if (!blob) return void res.writeHead(404, { 'x-error-code': 'EntryNotFound', 'x-repo-commit': commit }).end();
    if (isLfs(path)) {
      const sha = lies.has(path) ? createHash('sha256').update('not the file').digest('hex') : blob.sha256;
      res
        .writeHead(302, {
          location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cdn/${blob.sha256}`,
          'x-linked-size': String(blob.data.length),
          'x-linked-etag': `"${sha}"`,
          'x-repo-commit': commit,
          etag: `"${sha}"`,
          'content-length': '0',
        })
        .end();
      return;
    }
    const etag = lies.has(path) ? createHash('sha1').update('not the file').digest('hex') : blob.gitSha1;
    sendBody(req, res, path, blob, { etag: `"${etag}"`, 'x-repo-commit': commit });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    commit,
    requests,
    cutDownload: (path, bytes, times = 1) => void cuts.set(path, { bytes, times }),
    endEarly: (path, bytes, times = 1) => void shortEnds.set(path, { bytes, times }),
    stallDownload: (path, bytes) => void stalls.set(path, bytes),
    lieAboutSha: (path) => void lies.add(path),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
