// A/B of two engine settings in one process, requests interleaved.
import { loadConfig } from '../src/config/env.ts';
import { createEngine } from '../src/engine/index.ts';
import { mkdtempSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path'; import { tmpdir } from 'node:os';
const folder0 = '/work/bench-models/bench-marian-base';
const dir = mkdtempSync(join(tmpdir(), 'ab-')); const t = join(dir, 'm'); mkdirSync(t);
for (const f of readdirSync(folder0)) symlinkSync(join(folder0, f), join(t, f));
writeFileSync(join(t, 'dragoman.json'), JSON.stringify({ family: 'marian', source: 'en', target: 'de' }));
const SENTENCE = 'The old man walked slowly along the quiet river bank while two children played with a red ball nearby.';
const beams = Number(process.env.BEAMS ?? 4);
const mk = (skip: string) => createEngine(loadConfig({ ...process.env, DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_PRECISION: 'int8', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_SKIP_PASSES: skip }), { fixedNewTokens: 32 });
const A = await mk(process.env.A ?? ''); const B = await mk(process.env.B ?? 'beam-loop');
const ta: number[] = [], tb: number[] = [];
const one = async (e: typeof A, arr: number[]) => { const t0 = performance.now(); await e.translate([SENTENCE], 'eng_Latn', 'deu_Latn', { beams }); arr.push(performance.now() - t0); };
for (let i = 0; i < 3; i++) { await one(A, []); await one(B, []); }
for (let i = 0; i < Number(process.env.N ?? 40); i++) { if (i % 2) { await one(A, ta); await one(B, tb); } else { await one(B, tb); await one(A, ta); } }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
console.log(`beams ${beams}: A(${process.env.A ?? ''}) p50 ${med(ta).toFixed(1)}  B(${process.env.B ?? 'beam-loop'}) p50 ${med(tb).toFixed(1)}  B/A ${(med(tb) / med(ta)).toFixed(3)}`);
await A.close(); await B.close();
