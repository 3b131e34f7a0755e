// Trains Dragoman's language-identification model (src/detect/model.ts) on FLORES-200 train sentences.
//
//   node --max-old-space-size=6000 --import tsx scripts/train-lid.ts [--train ../shared/lid/train]
//        [--out src/detect/model/lid.bin.gz] [--min 5] [--alpha 0.1] [--max-postings 60] [--epochs 3] [--rate 0.1] [--bias-rate 10]
//        [--holdout 100] [--holdout-out FILE] [--strip 0] [--strip-mode novel] [--strip-tune 1] [--strip-bias]
//
// 1. Naive Bayes: count hashed features per variety, keep (feature, variety) pairs seen >= min times, drop
//    features kept for more than max-postings varieties.
// 2. Discriminative fine-tuning: for `epochs` passes over the training text, score each sentence as if it had not
//    been counted (leave-one-out, so training errors look like errors on unseen text) and move the weights of its
//    features and the class biases along the softmax-loss gradient, over the varieties of its script.
// 3. Calibration: the softmax temperature tau minimising the log-loss of the true variety on held-out lines and
//    their 1-, 3-, 8-word prefixes, so short texts get honest, lower confidence.
// With --holdout N, steps 1-3 run on the first 797 - N lines per variety, the last N are the held-out text for
// step 3 and for the printed accuracy; then steps 1-2 are redone on all lines and saved with that tau.
// Never reads ../shared/lid/dev: that is the benchmark's (scripts/bench-detect.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Classifier } from '../src/detect/classify.ts';
import { stripDiacritics } from '../src/detect/diacritics.ts';
import { forEachFeature } from '../src/detect/features.ts';
import { hanSets } from '../src/detect/han.ts';
import { letterInventory } from '../src/detect/letters.ts';
import { LidModel, type LidModelHeader } from '../src/detect/model.ts';
import { LOW_ORDER_SCRIPTS, possibleScripts, scriptProfile } from '../src/detect/script.ts';
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
const EPOCHS = Number(opt('epochs', '3'));
const RATE = Number(opt('rate', '0.1'));
const BIAS_RATE = Number(opt('bias-rate', '10')); // class biases move this many times faster than weights
const HOLDOUT = Number(opt('holdout', '100'));
// Features seen in more varieties than this are dropped: they say little and cost most (3-grams like " de").
const MAX_POSTINGS = Number(opt('max-postings', '60'));
const TRAIN_TAU = 0.1; // softmax temperature during fine-tuning (scores are sums over hundreds of features)
const WEIGHT_SCALE = 16;
// Short fragments (a random window of 1..6 words, or 2..12 characters in unspaced scripts) added per training
// sentence to the fine-tuning passes, so weights are also pushed to separate varieties on a few words. They
// move weights only: the class biases are for whole sentences (the detector fades them out on short text).
// Off by default: measured with 1 per sentence, training loss grew each epoch and the everyday-phrase accuracy
// fell (82.0% -> 80.4% at exponent 0.3) while cut FLORES sentences gained (78.9% -> 79.6%); see src/detect/README.md.
const FRAGMENTS = Number(opt('fragments', '0'));
// Text typed without diacritics ("Dnes je krasne pocasi"): for a Latin-script variety, each training line that
// stripDiacritics() changes also counts in its stripped form, with weight STRIP (0 = off). STRIP_MODE 'novel'
// counts only the stripped copy's features the line itself does not have (the n-grams and words around a stripped
// letter), 'all' every feature of the copy. STRIP_TUNE: share of the stripped copies that are also fine-tuning
// rows (they move weights only, like fragments, unless --strip-bias). Leave-one-out takes out both forms.
// lid.bin.gz is trained without (0); lid-unaccented.bin.gz with --strip 0.5 --strip-mode all (npm run
// train:lid-unaccented; src/detect/README.md, "Text typed without diacritics").
const STRIP = Number(opt('strip', '0'));
const STRIP_MODE = opt('strip-mode', 'novel');
const STRIP_TUNE = Number(opt('strip-tune', '1'));
const STRIP_BIAS = args.includes('--strip-bias');
const STRIP_CALIBRATE = args.includes('--strip-calibrate');

const classes = LANGUAGES.map((l) => l.flores);
const corpus = classes.map((c) => readFileSync(`${trainDir}/${c}.txt`, 'utf8').split('\n').filter((l) => l.length > 0));
const minOrderOf = (flores: string): number => (LOW_ORDER_SCRIPTS.has(flores.slice(flores.indexOf('_') + 1)) ? 1 : 3);
/** Weight of a feature counted n times (raw: occurrences, for the MIN_COUNT test; n itself unless --strip-mode mix). */
const nbWeight = (n: number, raw = n): number => (raw >= MIN_COUNT ? Math.log((n + ALPHA) / ALPHA) : 0);
const t0 = performance.now();
const log = (msg: string): void => console.log(`[${((performance.now() - t0) / 1000).toFixed(0)} s] ${msg}`);

interface Fitted {
  model: LidModel;
  /** Training count of each posting (for leave-one-out scores). */
  counts: Float32Array;
  /** Occurrences behind each count (for the MIN_COUNT test; the count itself unless --strip-mode mix). */
  raws: Float32Array;
}

function countFeatures(linesOf: string[][]): Fitted {
  const postings = new Map<number, [number, number, number][]>();
  const totals = new Float64Array(classes.length);
  // Per feature, how many varieties keep it counting the training lines alone (without stripped copies): the
  // vocabulary size in the unseen-feature probability is taken from these, so that stripped copies leave the
  // varieties of other scripts exactly as they were.
  const plainVarieties = new Map<number, number>();
  linesOf.forEach((lines, ci) => {
    const counts = new Map<number, [number, number]>();
    const plain = new Map<number, number>();
    const minOrder = minOrderOf(classes[ci]!);
    for (const line of lines) {
      for (const [h, [n, raw]] of contributions(line, ci)) {
        const c = counts.get(h);
        if (c) {
          c[0] += n;
          c[1] += raw;
        } else counts.set(h, [n, raw]);
        totals[ci]! += n;
      }
      if (strippable(ci)) forEachFeature(line, minOrder, (h) => void plain.set(h, (plain.get(h) ?? 0) + 1));
    }
    for (const [h, [n, raw]] of counts) {
      if (raw < MIN_COUNT) continue;
      let list = postings.get(h);
      if (!list) postings.set(h, (list = []));
      list.push([ci, n, raw]);
    }
    if (!strippable(ci)) for (const [h, [n]] of counts) plain.set(h, n);
    for (const [h, n] of plain) if (n >= MIN_COUNT) plainVarieties.set(h, (plainVarieties.get(h) ?? 0) + 1);
  });
  // Dropped features stay in the table with no postings, as "ignore" markers: counting them as unseen for every
  // variety would favour the varieties with the least training text.
  for (const list of postings.values()) if (list.length > MAX_POSTINGS) list.length = 0;
  let vocabulary = 0;
  for (const n of plainVarieties.values()) if (n <= MAX_POSTINGS) vocabulary++;
  const keys = Uint32Array.from(postings.keys()).sort();
  const lengths = new Uint8Array(keys.length);
  let p = 0;
  keys.forEach((k, i) => (p += lengths[i] = postings.get(k)!.length));
  const postClass = new Uint8Array(p);
  const counts = new Float32Array(p);
  const raws = new Float32Array(p);
  const weights = new Float32Array(p);
  let at = 0;
  for (const k of keys) {
    for (const [c, n, raw] of postings.get(k)!) {
      postClass[at] = c;
      counts[at] = n;
      raws[at] = raw;
      weights[at++] = nbWeight(n, raw);
    }
  }
  const header: LidModelHeader = {
    classes,
    unseen: Array.from(totals, (n) => Math.log(ALPHA / (n + ALPHA * vocabulary))),
    bias: classes.map(() => 0),
    weightScale: WEIGHT_SCALE,
    tau: TRAIN_TAU,
    trained: {
      data: 'FLORES-200 dev lines 1-797 (../shared/lid/train), CC BY-SA 4.0; see README.md',
      lines: linesOf.reduce((a, l) => a + l.length, 0),
      features: 'char 3..5-grams in space-padded words (1..5 for Han/kana/Hangul) + whole words, FNV-1a hashed',
      minCount: MIN_COUNT,
      maxPostings: MAX_POSTINGS,
      alpha: ALPHA,
      epochs: EPOCHS,
      rate: RATE,
      biasRate: BIAS_RATE,
      ...(FRAGMENTS > 0 ? { fragments: FRAGMENTS } : {}),
      ...(STRIP > 0
        ? { stripped: { weight: STRIP, mode: STRIP_MODE, tune: STRIP_TUNE, bias: STRIP_BIAS, calibrate: STRIP_CALIBRATE } }
        : {}),
    },
  };
  const linesOfVariety = (flores: string): string[] => linesOf[classes.indexOf(flores)] ?? [];
  header.han = hanSets(linesOfVariety('zho_Hans'), [...linesOfVariety('zho_Hant'), ...linesOfVariety('yue_Hant')]);
  header.letters = Object.fromEntries(classes.map((flores, c) => [flores, letterInventory(linesOf[c] ?? [])]));
  return { model: new LidModel(header, keys, lengths, postClass, weights), counts, raws };
}

const strippable = (ci: number): boolean => STRIP > 0 && classes[ci]!.endsWith('_Latn');

/**
 * What one training line adds to its variety's feature counts, per feature [count, occurrences]: its features, plus
 * its stripped copy's (STRIP_MODE: 'all' adds weight x every feature of the copy, 'novel' weight x the features the
 * line lacks; 'mix' counts (line + weight x copy) / (1 + weight), so a feature the two forms share keeps its count
 * and the forms share the rest, with the occurrences of either form for the MIN_COUNT test).
 */
function contributions(line: string, ci: number): Map<number, [number, number]> {
  const own = new Map<number, number>();
  const minOrder = minOrderOf(classes[ci]!);
  forEachFeature(line, minOrder, (h) => void own.set(h, (own.get(h) ?? 0) + 1));
  const stripped = strippable(ci) ? stripDiacritics(line) : line;
  const out = new Map<number, [number, number]>();
  if (stripped === line) {
    // 'every': a line without diacritics is its own stripped copy, so every Latin variety's counts grow alike.
    const k = STRIP_MODE === 'every' && strippable(ci) ? 1 + STRIP : 1;
    for (const [h, n] of own) out.set(h, [k * n, k * n]);
    return out;
  }
  const copy = new Map<number, number>();
  forEachFeature(stripped, minOrder, (h) => void copy.set(h, (copy.get(h) ?? 0) + 1));
  if (STRIP_MODE === 'mix') {
    for (const h of new Set([...own.keys(), ...copy.keys()])) {
      const a = own.get(h) ?? 0;
      const b = copy.get(h) ?? 0;
      out.set(h, [(a + STRIP * b) / (1 + STRIP), Math.max(a, b)]);
    }
    return out;
  }
  for (const [h, n] of own) out.set(h, [n, n]);
  for (const [h, n] of copy) {
    const add = STRIP * (STRIP_MODE === 'novel' ? Math.max(0, n - (own.get(h) ?? 0)) : n);
    if (add <= 0) continue;
    const c = out.get(h);
    if (c) {
      c[0] += add;
      c[1] += add;
    } else out.set(h, [add, add]);
  }
  return out;
}

function fineTune({ model, counts, raws }: Fitted, linesOf: string[][]): void {
  const classifier = new Classifier(model);
  const { starts, postClass, postWeight, header } = model;
  const delta = new Float32Array(postWeight.length);
  const scores = new Float64Array(classes.length);
  let seed = 12345;
  const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  type Row = [y: number, text: string, movesNoBias: boolean, source: string];
  const order: Row[] = linesOf.flatMap((lines, ci) =>
    lines.flatMap((l) => {
      const rows: Row[] = [[ci, l, false, l]];
      for (let k = 0; k < FRAGMENTS; k++) rows.push([ci, fragment(l, minOrderOf(classes[ci]!) === 1, random), true, l]);
      return rows;
    }),
  );
  // Stripped copies: drawn and shuffled with a random sequence of their own, and spread evenly among the other
  // rows, so the other rows come in the same order as without them (the other scripts train exactly as before).
  let stripSeed = 54321;
  const stripRandom = (): number => ((stripSeed = (Math.imul(stripSeed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const strippedRows: Row[] = linesOf.flatMap((lines, ci) =>
    lines.flatMap((l): Row[] => {
      if (!strippable(ci) || stripRandom() >= STRIP_TUNE) return [];
      const stripped = stripDiacritics(l);
      return stripped === l ? [] : [[ci, stripped, !STRIP_BIAS, l]];
    }),
  );
  const shuffle = (rows: Row[], rand: () => number): void => {
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    }
  };
  function* pass(): Generator<Row> {
    let k = 0;
    for (let i = 0; i < order.length; i++) {
      yield order[i]!;
      for (const end = Math.floor(((i + 1) * strippedRows.length) / order.length); k < end; k++) yield strippedRows[k]!;
    }
  }
  const rowCount = order.length + strippedRows.length;
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    shuffle(order, random);
    shuffle(strippedRows, stripRandom);
    let loss = 0;
    let errors = 0;
    for (const [y, line, isFragment, source] of pass()) {
      const scripts = possibleScripts(scriptProfile(line));
      const candidates = scripts.flatMap((s) => classifier.classesOfScript(s));
      if (candidates.length < 2 || !candidates.includes(y)) continue;
      // Features of the sentence with multiplicity.
      const multiplicity = new Map<number, number>();
      let features = 0;
      forEachFeature(line, scripts.some((s) => LOW_ORDER_SCRIPTS.has(s)) ? 1 : 3, (h) => {
        const f = model.find(h);
        if (f >= 0 && starts[f + 1] === starts[f]) return; // ignored feature
        features++;
        if (f >= 0) multiplicity.set(f, (multiplicity.get(f) ?? 0) + 1);
      });
      // What the source line added to its class's counts (with its stripped copy, when that was counted too).
      let own: Map<number, [number, number]> | undefined;
      if (strippable(y)) {
        own = new Map();
        for (const [h, [n, raw]] of contributions(source, y)) {
          const f = model.find(h);
          if (f < 0) continue;
          const o = own.get(f);
          if (o) {
            o[0] += n;
            o[1] += raw;
          } else own.set(f, [n, raw]);
        }
      }
      scores.fill(0);
      for (const [f, k] of multiplicity) {
        const [taken, takenRaw] = own ? (own.get(f) ?? [0, 0]) : [k, k];
        for (let p = starts[f]!; p < starts[f + 1]!; p++) {
          const c = postClass[p]!;
          // Leave-one-out: the sentence's own occurrences are taken out of its own class's counts.
          const w = c === y ? nbWeight(counts[p]! - taken, raws[p]! - takenRaw) + delta[p]! : postWeight[p]!;
          scores[c]! += k * w;
        }
      }
      let best = -Infinity;
      for (const c of candidates) {
        scores[c] = scores[c]! + features * header.unseen[c]! + header.bias[c]!;
        if (scores[c]! > best) best = scores[c]!;
      }
      let sum = 0;
      for (const c of candidates) sum += Math.exp(TRAIN_TAU * (scores[c]! - best));
      const pTrue = Math.exp(TRAIN_TAU * (scores[y]! - best)) / sum;
      loss -= Math.log(Math.max(pTrue, 1e-12));
      if (scores[y]! < best) errors++;
      if (pTrue > 0.99) continue;
      // Gradient step: towards the true class, away from the others in proportion to their probability.
      const step = new Float64Array(classes.length);
      for (const c of candidates) {
        const pc = Math.exp(TRAIN_TAU * (scores[c]! - best)) / sum;
        step[c] = RATE * ((c === y ? 1 : 0) - pc);
      }
      for (const [f, k] of multiplicity) {
        for (let p = starts[f]!; p < starts[f + 1]!; p++) {
          const g = step[postClass[p]!]!;
          if (g !== 0) {
            delta[p]! += g * k;
            postWeight[p] = Math.max(0, nbWeight(counts[p]!, raws[p]!) + delta[p]!);
          }
        }
      }
      if (!isFragment) for (const c of candidates) header.bias[c]! += step[c]! * BIAS_RATE;
    }
    log(`fine-tuning epoch ${epoch}: training loss ${(loss / rowCount).toFixed(4)}, leave-one-out errors ${errors} of ${rowCount}`);
  }
}

function fragment(line: string, unspaced: boolean, random: () => number): string {
  const words = line.split(/\s+/);
  if (unspaced && words.length < 4) {
    const chars = [...line];
    const n = 2 + Math.floor(random() * 11);
    const at = Math.floor(random() * Math.max(1, chars.length - n));
    return chars.slice(at, at + n).join('');
  }
  const n = 1 + Math.floor(random() * 6);
  const at = Math.floor(random() * Math.max(1, words.length - n));
  return words.slice(at, at + n).join(' ');
}

function fit(linesOf: string[][]): LidModel {
  const fitted = countFeatures(linesOf);
  log(`counted: ${fitted.model.featureCount} features, ${fitted.model.postingCount} postings`);
  fineTune(fitted, linesOf);
  // Round-trip through the file format so evaluation sees exactly what the detector will load.
  return LidModel.decode(fitted.model.encode());
}

function prefixes(line: string, cjk: boolean): string[] {
  if (cjk) return [2, 5, 15].map((n) => [...line].slice(0, n).join(''));
  const words = line.split(/\s+/);
  return [1, 3, 8].map((n) => words.slice(0, n).join(' '));
}

function calibrate(model: LidModel, held: string[][]): number {
  // With the detector's short-text prior (classify.ts), so tau fits what the detector answers. The committed
  // model's tau (0.0891) was fitted before that prior existed; a retrain may land on a slightly different tau.
  const classifier = new Classifier(model);
  const samples: { deltas: number[]; truth: number }[] = [];
  let macro = 0;
  const wrong = new Map<string, number>();
  // Stripped held-out lines (Latin varieties, lines stripDiacritics changes): accuracy on the line and its first
  // 3 words, for the log; with --strip-calibrate also samples for tau.
  const strippedOk = [0, 0, 0];
  const strippedAll = [0, 0, 0];
  held.forEach((lines, ci) => {
    if (!classes[ci]!.endsWith('_Latn')) return;
    for (const line of lines) {
      const stripped = stripDiacritics(line);
      if (stripped === line) continue;
      const texts = [stripped, ...prefixes(stripped, false)];
      for (const [k, text] of texts.entries()) {
        const r = classifier.rank(text, 1);
        if (!r) continue;
        const truth = r.classes.indexOf(ci);
        if (STRIP_CALIBRATE && truth >= 0 && r.classes.length > 1) samples.push({ deltas: r.deltas, truth });
        if (k === 1) continue;
        const j = k === 0 ? 0 : k - 1;
        strippedAll[j]!++;
        if (r.classes[0] === ci) strippedOk[j]!++;
      }
    }
  });
  log(
    `held-out stripped lines: ${strippedAll[0]} (micro) whole ${((100 * strippedOk[0]!) / strippedAll[0]!).toFixed(2)}%, ` +
      `3 words ${((100 * strippedOk[1]!) / strippedAll[1]!).toFixed(2)}%, 8 words ${((100 * strippedOk[2]!) / strippedAll[2]!).toFixed(2)}%`,
  );
  held.forEach((lines, ci) => {
    let ok = 0;
    for (const line of lines) {
      for (const [k, text] of [line, ...prefixes(line, minOrderOf(classes[ci]!) === 1)].entries()) {
        const r = classifier.rank(text, 1);
        if (!r) continue;
        const truth = r.classes.indexOf(ci);
        if (truth >= 0 && r.classes.length > 1) samples.push({ deltas: r.deltas, truth });
        if (k > 0) continue;
        if (r.classes[0] === ci) ok++;
        else {
          const key = `${classes[ci]}->${classes[r.classes[0]!]}`;
          wrong.set(key, (wrong.get(key) ?? 0) + 1);
        }
      }
    }
    macro += ok / lines.length / classes.length;
  });
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
  log(
    `held-out (${held[0]!.length} lines/variety): macro accuracy ${(100 * macro).toFixed(2)}%; tau ${bestTau.toFixed(4)} ` +
      `(log-loss ${(bestLoss / samples.length).toFixed(4)} over ${samples.length} texts and prefixes)`,
  );
  log(`most confused: ${[...wrong].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([k, n]) => `${k}:${n}`).join(' ')}`);
  return bestTau;
}

let tau = Number(opt('tau', '0.1'));
if (HOLDOUT > 0) {
  const model = fit(corpus.map((lines) => lines.slice(0, lines.length - HOLDOUT)));
  tau = calibrate(model, corpus.map((lines) => lines.slice(lines.length - HOLDOUT)));
  if (args.includes('--holdout-out')) {
    model.header.tau = tau;
    writeFileSync(opt('holdout-out', ''), model.encode());
  }
  if (args.includes('--holdout-only')) process.exit(0);
}
const model = fit(corpus);
model.header.tau = tau;
const bytes = model.encode();
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, bytes);
log(`wrote ${out}: ${model.featureCount} features, ${model.postingCount} postings, ${bytes.length} bytes`);
