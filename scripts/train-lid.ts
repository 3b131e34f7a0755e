// Trains Dragoman's language-identification model (src/detect/model.ts) on FLORES-200 train sentences.
//
//   node --max-old-space-size=6000 --import tsx scripts/train-lid.ts [--train ../shared/lid/train]
//        [--out src/detect/model/lid.bin.gz] [--min 5] [--alpha 0.1] [--holdout 100] [--holdout-out FILE]
//
// 1. Fit on the first 797 - holdout lines of each variety, calibrate the confidence temperature (tau) on the last
//    `holdout` lines and on their 1-, 3- and 8-word prefixes (so short texts get honest, lower confidence), and
//    print held-out accuracy. 2. Refit on all lines with that tau and write the model.
// Never reads ../shared/lid/dev: that is the benchmark's (scripts/bench-detect.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Classifier } from '../src/detect/classify.ts';
import { forEachFeature } from '../src/detect/features.ts';
import { LidModel, type LidModelHeader } from '../src/detect/model.ts';
import { LOW_ORDER_SCRIPTS } from '../src/detect/script.ts';
import { LANGUAGES } from '../src/languages/catalog.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : def;
};
const trainDir = resolve(opt('train', resolve(root, '../shared/lid/train')));
const out = resolve(opt('out', resolve(root, 'src/detect/model/lid.bin.gz')));
const MIN_COUNT = Number(opt('min', '5'));
const ALPHA = Number(opt('alpha', '0.1'));
const HOLDOUT = Number(opt('holdout', '100'));
const WEIGHT_SCALE = 16;

const classes = LANGUAGES.map((l) => l.flores);
const corpus = classes.map((c) => readFileSync(`${trainDir}/${c}.txt`, 'utf8').split('\n').filter((l) => l.length > 0));
const minOrderOf = (flores: string): number => (LOW_ORDER_SCRIPTS.has(flores.slice(flores.indexOf('_') + 1)) ? 1 : 3);

function fit(linesOf: string[][], tau: number): { model: LidModel; bytes: Buffer } {
  const postings = new Map<number, [number, number][]>();
  const totals = new Float64Array(classes.length);
  linesOf.forEach((lines, ci) => {
    const counts = new Map<number, number>();
    const minOrder = minOrderOf(classes[ci]!);
    for (const line of lines) {
      forEachFeature(line, minOrder, (h) => {
        counts.set(h, (counts.get(h) ?? 0) + 1);
        totals[ci]!++;
      });
    }
    for (const [h, n] of counts) {
      if (n < MIN_COUNT) continue;
      let list = postings.get(h);
      if (!list) postings.set(h, (list = []));
      list.push([ci, n]);
    }
  });
  const vocabulary = postings.size;
  const unseen = Array.from(totals, (n) => Math.log(ALPHA / (n + ALPHA * vocabulary)));
  const keys = Uint32Array.from(postings.keys()).sort();
  const lists = Array.from(keys, (k) =>
    postings.get(k)!.map(([c, n]) => [c, Math.min(255, Math.round(Math.log((n + ALPHA) / ALPHA) * WEIGHT_SCALE))] as const),
  );
  const header: LidModelHeader = {
    classes,
    unseen,
    weightScale: WEIGHT_SCALE,
    tau,
    trained: {
      data: 'FLORES-200 dev lines 1-797 (../shared/lid/train), CC BY-SA 4.0',
      lines: linesOf.reduce((a, l) => a + l.length, 0),
      features: 'char 3..5-grams in space-padded words (1..5 for Han/kana/Hangul) + whole words, FNV-1a hashed',
      minCount: MIN_COUNT,
      alpha: ALPHA,
    },
  };
  // Round-trip through the file format so evaluation sees exactly what the detector will load.
  const bytes = LidModel.encode(header, keys, lists);
  return { model: LidModel.decode(bytes), bytes };
}

function prefixes(line: string, cjk: boolean): string[] {
  if (cjk) return [2, 5, 15].map((n) => [...line].slice(0, n).join(''));
  const words = line.split(/\s+/);
  return [1, 3, 8].map((n) => words.slice(0, n).join(' '));
}

const t0 = performance.now();
if (HOLDOUT > 0) {
  const fitLines = corpus.map((lines) => lines.slice(0, lines.length - HOLDOUT));
  const held = corpus.map((lines) => lines.slice(lines.length - HOLDOUT));
  const { model, bytes } = fit(fitLines, 1);
  // For experiments on held-out text: the model fitted without it.
  if (args.includes('--holdout-out')) writeFileSync(opt('holdout-out', ''), bytes);
  const classifier = new Classifier(model);
  // (deltas of the candidates, index of the true class among them) for every held-out text and prefix.
  const samples: { deltas: number[]; truth: number }[] = [];
  let perClassCorrect = 0;
  const wrong = new Map<string, number>();
  held.forEach((lines, ci) => {
    let ok = 0;
    for (const line of lines) {
      for (const [k, text] of [line, ...prefixes(line, minOrderOf(classes[ci]!) === 1)].entries()) {
        const r = classifier.rank(text);
        if (!r) continue;
        const truth = r.classes.indexOf(ci);
        if (truth >= 0) samples.push({ deltas: r.deltas, truth });
        if (k === 0) {
          if (r.classes[0] === ci) ok++;
          else {
            const key = `${classes[ci]}->${classes[r.classes[0]!]}`;
            wrong.set(key, (wrong.get(key) ?? 0) + 1);
          }
        }
      }
    }
    perClassCorrect += ok / lines.length;
  });
  // Temperature minimising the negative log-likelihood of the true class (grid over log10 tau).
  let bestTau = 1;
  let bestLoss = Infinity;
  for (let e = -3; e <= 0.001; e += 0.05) {
    const tau = 10 ** e;
    let loss = 0;
    for (const { deltas, truth } of samples) {
      let sum = 0;
      for (const d of deltas) sum += Math.exp(tau * d);
      loss -= tau * deltas[truth]! - Math.log(sum);
    }
    if (loss < bestLoss) {
      bestLoss = loss;
      bestTau = tau;
    }
  }
  console.log(
    `held-out (${HOLDOUT} lines/variety): macro accuracy ${((100 * perClassCorrect) / classes.length).toFixed(2)}%, ` +
      `tau ${bestTau.toFixed(4)} (NLL ${(bestLoss / samples.length).toFixed(4)} over ${samples.length} texts and prefixes)`,
  );
  console.log('most confused:', [...wrong].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([k, n]) => `${k}:${n}`).join(' '));
  write(fit(corpus, bestTau));
} else {
  write(fit(corpus, Number(opt('tau', '0.05'))));
}

function write({ model, bytes }: { model: LidModel; bytes: Buffer }): void {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, bytes);
  console.log(
    `wrote ${out}: ${model.featureCount} features, ${model.postingCount} postings, ${bytes.length} bytes, ` +
      `${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
}
