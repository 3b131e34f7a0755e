// `npm run bench:models [-- <models dir>] [--seconds=120] [--clients=16] [--copies=40] [--fit=8] [--only=serve|files]`:
// how fast the model-management commands move bytes on this machine (files), and a server holding many models within
// DRAGOMAN_MODEL_MEMORY (serve, bench-serve-many.ts). pull runs against the local imitation of the hub used by the tests
// (loopback, so it measures our code path — HEAD, download, checks, atomic install — not a network). Prints a table
// each.
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { listModelFiles } from '../src/models/manifest.ts';
import { importPack, packModels } from '../src/models/pack.ts';
import { pullModel } from '../src/models/pull.ts';
import { verifyModels } from '../src/models/verify.ts';
import { startFakeHub } from '../test/models-cli/fake-hub.ts';

const flags = new Map(process.argv.slice(2).filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=') as [string, string]));
const only = flags.get('only');
if (only !== 'files') {
  const { serveMany } = await import('./bench-serve-many.ts');
  await serveMany({
    seconds: Number(flags.get('seconds') ?? 120), clients: Number(flags.get('clients') ?? 16),
    copies: Number(flags.get('copies') ?? 40), fit: Number(flags.get('fit') ?? 8),
  });
}
if (only === 'serve') process.exit(0);

const source = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'test/fixtures/models');
const names = readdirSync(source).filter((n) => statSync(join(source, n)).isDirectory() && !n.startsWith('.'));
const work = mkdtempSync(join(tmpdir(), 'dragoman-bench-models-'));
const quiet = { write: () => undefined };
const rows: string[][] = [['step', 'models', 'MB', 'seconds', 'MB/s']];

function bytesOf(dir: string, models: string[]): number {
  let total = 0;
  for (const m of models) for (const f of readdirSync(join(dir, m), { recursive: true }) as string[]) {
    const s = statSync(join(dir, m, f));
    if (s.isFile()) total += s.size;
  }
  return total;
}

async function timed(step: string, models: number, bytes: number, work: () => Promise<unknown>): Promise<void> {
  const t = performance.now();
  await work();
  const s = (performance.now() - t) / 1000;
  const mb = bytes / 2 ** 20;
  rows.push([step, String(models), mb.toFixed(1), s.toFixed(2), (mb / s).toFixed(1)]);
}

try {
  const a = join(work, 'a');
  cpSync(source, a, { recursive: true });
  const hub = await startFakeHub({ repos: Object.fromEntries(names.map((n) => [`bench/${n}`, join(source, n)])) });
  const pulled = join(work, 'pulled');
  let pulledBytes = 0;
  await timed('pull (fp32, loopback hub)', names.length, 0, async () => {
    for (const n of names) {
      const r = await pullModel({ modelsDir: pulled, spec: `bench/${n}`, precision: 'fp32', hub: { endpoint: hub.url }, log: quiet });
      for (const f of await listModelFiles(r.dir)) pulledBytes += statSync(join(r.dir, f)).size;
    }
  });
  const pullRow = rows.at(-1)!;
  pullRow[2] = (pulledBytes / 2 ** 20).toFixed(1);
  pullRow[4] = (pulledBytes / 2 ** 20 / Number(pullRow[3])).toFixed(1);
  await hub.close();

  const bytes = bytesOf(a, names);
  const tar = join(work, 'models.tar');
  await timed('pack (hashes hand-installed models first)', names.length, bytes, () => packModels({ modelsDir: a, names, output: tar, log: quiet }));
  await timed('import (verify + install)', names.length, bytes, () => importPack({ modelsDir: join(work, 'b'), file: tar, log: quiet }));
  await timed('verify (re-hash)', names.length, bytes, () => verifyModels(join(work, 'b')));
  await timed('pack (models with manifests)', names.length, bytes, () => packModels({ modelsDir: join(work, 'b'), names, output: join(work, 'again.tar'), log: quiet }));
} finally {
  rmSync(work, { recursive: true, force: true });
}

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
console.log(`models from ${source}: ${names.join(', ')}`);
for (const r of rows) console.log(`| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`);
