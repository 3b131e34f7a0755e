// A decoder-only model's graph as the runtime opens it: the file rewritten to compute logits at the last position
// only (graph/last-position.ts), made once per file and kept in the graph cache like an encoder-decoder model's
// prepared decoder (prepare.ts). The key is the file's stamp (file-stamp.ts), not its hash: an LLM's file is a
// gigabyte, and hashing it at every start would cost seconds. A file the rewrite does not apply to runs as it is.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, utimesSync, writeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { LAST_POSITION_VERSION, lastPositionLogits } from '../graph/last-position.ts';
import { assertUnchanged } from '../model/file-stamp.ts';
import { concat } from '../model/onnx-proto.ts';

export interface CausalPrepareRequest {
  modelPath: string;
  /** The file as it was read at start: a file replaced since is refused. */
  stamp: string;
  /** Where the rewritten file is kept; '' = handed over as bytes (nothing written). */
  cacheDir: string;
}

/** The graph to open: the file as it is, or the rewritten one (a cached file, or bytes). */
export type PreparedCausal = { kind: 'as-is' } | { kind: 'last-position'; model: string | Uint8Array };

const FILES = { facts: 'graph.json', model: 'model.onnx' } as const;

function entryOf(req: CausalPrepareRequest): string {
  const key = createHash('sha256').update(JSON.stringify({
    path: req.modelPath, stamp: req.stamp, lastPosition: LAST_POSITION_VERSION, ort: ort.env.versions.common,
  })).digest('hex').slice(0, 32);
  return join(req.cacheDir, `lm-${key}`);
}

function readEntry(dir: string): PreparedCausal | undefined {
  try {
    const saved = JSON.parse(readFileSync(join(dir, FILES.facts), 'utf8')) as { kind: PreparedCausal['kind'] };
    if (saved.kind === 'as-is') return saved as PreparedCausal;
    return existsSync(join(dir, FILES.model)) ? { kind: 'last-position', model: join(dir, FILES.model) } : undefined;
  } catch {
    return undefined;
  }
}

/** The cached result, looked up without a thread (a stat and a small read); marks it used for the cache's pruning. */
export function cachedCausal(req: CausalPrepareRequest): PreparedCausal | undefined {
  if (!req.cacheDir) return undefined;
  assertUnchanged(req.modelPath, req.stamp);
  const dir = entryOf(req);
  const found = readEntry(dir);
  if (found) {
    try {
      const now = new Date();
      utimesSync(dir, now, now);
    } catch {
      // read-only cache: still read, never pruned
    }
  }
  return found;
}

/** Rewrites the file (or finds it cannot be) and keeps the result; runs in a thread of its own (prepare-thread.ts). */
export function prepareCausal(req: CausalPrepareRequest): PreparedCausal {
  assertUnchanged(req.modelPath, req.stamp);
  const dir = req.cacheDir ? entryOf(req) : undefined;
  const cached = dir && readEntry(dir);
  if (cached) return cached;
  const parts = lastPositionLogits(new Uint8Array(readFileSync(req.modelPath)));
  assertUnchanged(req.modelPath, req.stamp); // not replaced while it was read
  if (!dir) return parts ? { kind: 'last-position', model: concat(parts) } : { kind: 'as-is' };
  const tmp = `${dir}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(tmp, { recursive: true });
    if (parts) {
      // Written piece by piece: the weights are slices of the file read, never copied into one more buffer.
      const fd = openSync(join(tmp, FILES.model), 'w');
      try {
        for (const p of parts) for (let at = 0; at < p.length;) at += writeSync(fd, p, at);
      } finally {
        closeSync(fd);
      }
    }
    writeFileSync(join(tmp, FILES.facts), JSON.stringify({ kind: parts ? 'last-position' : 'as-is' }));
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another process wrote it first
    }
    const written = readEntry(dir);
    if (written) return written;
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  // A cache that cannot be written costs memory, not translations: the rewrite goes over as bytes.
  return parts ? { kind: 'last-position', model: concat(parts) } : { kind: 'as-is' };
}
