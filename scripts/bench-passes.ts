// npm run bench:passes [-- <model folder>] [--precision int8|fp32] [--pairs N]
//
// What each graph pass earns on this machine: for every pass, the engine with all passes and the engine without that
// one (DRAGOMAN_SKIP_PASSES), both in this process, their requests in turns so that the machine's drift falls on
// both sides alike. Rows: one sentence greedy and beam 4 (p50 of N pairs), and a batch of 32 greedy (target tokens/s,
// median of 5 pairs). TOKENS new tokens a sentence, forced as in `npm run bench` (random weights never end one).
// Each engine's graph cache starts empty, so the load column is the passes' own cost at a first start.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type DragomanEngine } from '../src/engine/index.ts';
import { GRAPH_PASSES, loadConfig } from '../src/config/env.ts';
import { benchModelFolder, modelsDir } from './bench-model-folder.ts';
import { SENTENCE, sentences } from './bench-inputs.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const precision = (flag('--precision') ?? 'int8') as 'int8' | 'fp32';
const PAIRS = Number(flag('--pairs') ?? 16);
const TOKENS = 32;
const folder = benchModelFolder(args.find((a) => !a.startsWith('--')));
const BATCH = sentences(32);
const dir = modelsDir(folder, 'bench-en-de', { family: 'marian', source: 'en', target: 'de' });

interface Side {
  engine: DragomanEngine;
  loadMs: number;
  greedy: number[];
  beam: number[];
  batch: number[];
}

async function side(skip: string): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-bench-passes-'));
  const t0 = performance.now();
  const engine = await createEngine(loadConfig({
    ...process.env, DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_DATA_DIR: dataDir, DRAGOMAN_PRECISION: precision, DRAGOMAN_CACHE_SIZE: '0',
    DRAGOMAN_SKIP_PASSES: skip,
  }), { fixedNewTokens: TOKENS });
  return { engine, loadMs: performance.now() - t0, greedy: [], beam: [], batch: [] };
}

const timed = async (run: () => Promise<unknown>) => {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
};
const one = (s: Side, beams: number) => timed(() => s.engine.translate([SENTENCE], 'eng_Latn', 'deu_Latn', { beams }));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** Both sides in turns, the first of each pair alternating. */
async function measure(a: Side, b: Side): Promise<void> {
  for (const s of [a, b]) for (const beams of [1, 4]) await one(s, beams);
  for (let i = 0; i < PAIRS; i++) {
    for (const s of i % 2 ? [a, b] : [b, a]) s.greedy.push(await one(s, 1));
    for (const s of i % 2 ? [b, a] : [a, b]) s.beam.push(await one(s, 4));
  }
  for (let i = 0; i < 5; i++) {
    for (const s of i % 2 ? [a, b] : [b, a]) {
      s.batch.push((BATCH.length * TOKENS) / (await timed(() => s.engine.translate(BATCH, 'eng_Latn', 'deu_Latn', { beams: 1 }))) * 1000);
    }
  }
}

async function main(): Promise<void> {
  console.log(`model ${folder} (${precision}), ${TOKENS} new tokens a sentence, ${PAIRS} pairs, ${availableParallelism()} cores ` +
    `(${cpus()[0]?.model ?? '?'}), node ${process.version}`);
  const rows: string[][] = [];
  for (const pass of GRAPH_PASSES) {
    const all = await side('');
    const without = await side(pass);
    try {
      await measure(all, without);
      const info = without.engine.models().find((m) => m.status === 'ok');
      const ratio = (x: number, y: number) => `${((y / x - 1) * 100).toFixed(0)} %`;
      rows.push([
        pass,
        `${median(all.greedy).toFixed(1)} / ${median(without.greedy).toFixed(1)} ms (${ratio(median(all.greedy), median(without.greedy))})`,
        `${median(all.beam).toFixed(0)} / ${median(without.beam).toFixed(0)} ms (${ratio(median(all.beam), median(without.beam))})`,
        `${median(all.batch).toFixed(0)} / ${median(without.batch).toFixed(0)} tok/s (${ratio(median(all.batch), median(without.batch))})`,
        `${(all.loadMs / 1000).toFixed(1)} / ${(without.loadMs / 1000).toFixed(1)} s`,
        `${info?.decoder}, ${info?.fusedAttention ?? 0} fused, top-${info?.topCandidates ?? 0}, loops ${info?.greedyLoop ? 'g' : '-'}${info?.beamLoop ? 'b' : '-'}`,
      ]);
      console.error(`${pass}: done`);
    } finally {
      await all.engine.close();
      await without.engine.close();
    }
  }
  const header = ['pass left out', 'greedy p50, with / without', 'beam 4 p50, with / without', 'batch of 32, with / without', 'first load', 'without it, the engine runs'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(['', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n'));
  rmSync(dir, { recursive: true, force: true });
}

await main();
