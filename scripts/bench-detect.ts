// Language-detection benchmark on FLORES-200 dev sentences (never used for training): per-variety and macro
// accuracy (strict: the exact FLORES variety), confusion pairs and time per sentence, side by side for cld3-asm
// alone, fastText lid.176 alone, Dragoman's model alone and Dragoman's detector (the model with fastText's
// second opinion on short text, the default).
//
//   npm run bench:detect [-- --data ../shared/lid/dev] [--out src/detect/BENCH.md]
//        [--only cld3,fasttext,model,dragoman,combined] [--short test/detect/short-text.tsv]
//        [--heldout test/detect/short-text-heldout.tsv]
//
// Plain short sentences (5-10 words) of the 40 most spoken varieties: see that section below.
//
// Short text: the same contenders on test/detect/short-text.tsv (everyday phrases, 1-8 words, own work; the
// parameters were chosen on it), on test/detect/short-text-heldout.tsv (written separately, never used to choose)
// and on the dev sentences cut to their first 1..5 words (sentence i of a variety keeps 1 + i mod 5 words;
// unspaced scripts keep 3 characters per "word").
//
// Plain short sentences: each dev sentence of the 40 most spoken varieties (src/detect/popularity.ts) cut to its
// first 5-10 words (sentence i keeps 5 + i mod 6; unspaced scripts 3 characters per word), counted right when the
// answer is the variety, and reliable-and-right when it is also called reliable; reliable-but-wrong is the error
// that matters most. The same over all 204 varieties.
//
// Text typed without diacritics: the dev sentences of the Latin-script varieties stripping changes (at least half
// of a variety's sentences), stripped by src/detect/diacritics.ts, whole and cut to their first 8 and 3 words.
//
// Time: wall-clock per detect() call (hrtime around each call) and process CPU time over the whole run divided
// by the sentences; both include whatever else the machine runs at the same moment, so read them as upper bounds.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ExternalDetector, loadCld3, loadFastText } from '../src/detect/external.ts';
import { stripDiacritics } from '../src/detect/diacritics.ts';
import { createDetector } from '../src/detect/index.ts';
import { SPEAKERS_MILLIONS } from '../src/detect/popularity.ts';
import { LANGUAGES, resolveLanguage } from '../src/languages/catalog.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name: string, def?: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const dataDir = resolve(opt('data', resolve(root, '../shared/lid/dev'))!);
const outFile = opt('out');
const only = opt('only')?.split(',');
const shortFile = resolve(opt('short', resolve(root, 'test/detect/short-text.tsv'))!);
const heldoutFile = resolve(opt('heldout', resolve(root, 'test/detect/short-text-heldout.tsv'))!);

interface Contender {
  key: string;
  title: string;
  /** FLORES codes it can answer. */
  canOutput: Set<string>;
  /**
   * FLORES code of the answer, or a raw label in brackets when it maps to no variety; and whether the detector
   * calls it reliable (Dragoman: isReliable; cld3: its is_reliable; fastText: probability >= 0.5).
   */
  answer(text: string): { flores: string; reliable: boolean };
}

const varieties = LANGUAGES.map((l) => l.flores).sort();
const sentences = new Map<string, string[]>();
let total = 0;
for (const flores of varieties) {
  const lines = readFileSync(`${dataDir}/${flores}.txt`, 'utf8').split('\n').filter((l) => l.length > 0);
  sentences.set(flores, lines);
  total += lines.length;
}

const contenders: Contender[] = [];
const wanted = (key: string): boolean => !only || only.includes(key);
const externals = new Map<string, ExternalDetector>();
for (const [key, title, load] of [
  ['cld3', 'cld3-asm alone', loadCld3],
  ['fasttext', 'fastText lid.176 alone (fasttext.wasm.js)', loadFastText],
] as const) {
  if (!wanted(key) && !wanted('combined')) continue;
  const ext = await load();
  externals.set(key, ext);
  if (!wanted(key)) continue;
  contenders.push({
    key,
    title,
    canOutput: new Set(ext.labels.map((l) => ext.toFlores(l)).filter((f): f is string => f !== null)),
    answer: (text) => {
      const { label, reliable } = ext.detect(text);
      return { flores: ext.toFlores(label) ?? `[${label}]`, reliable };
    },
  });
}
const detector = await createDetector();
const modelAlone = await createDetector({ secondOpinion: false });
const asFlores = (code: string): string =>
  // 'und' (a cut sentence with no letters) is no variety; resolveLanguage('und') throws on Node 20's ICU.
  code === 'und' ? '[und]' : (resolveLanguage(code)?.flores ?? `[${code}]`);
for (const [key, title, d] of [
  ['model', "Dragoman's model alone (DRAGOMAN_DETECT_SECOND_OPINION=off)", modelAlone],
  ['dragoman', "Dragoman's detector (model + fastText's opinion on short text)", detector],
] as const) {
  if (!wanted(key)) continue;
  contenders.push({
    key,
    title,
    canOutput: new Set(varieties),
    answer: (text) => {
      const { language, isReliable } = d.detect(text);
      return { flores: asFlores(language), reliable: isReliable };
    },
  });
}
if (wanted('combined')) {
  // Asking the other detectors when unsure, measured rather than assumed: where Dragoman is not reliable, take the
  // answer of cld3 (else fastText) when that detector calls itself reliable and names a variety written in
  // the same script as Dragoman's answer.
  const scriptOf = new Map(LANGUAGES.map((l) => [l.flores, l.script]));
  contenders.push({
    key: 'combined',
    title: "Dragoman's model, asking cld3 then fastText when unsure",
    canOutput: new Set(varieties),
    answer: (text) => {
      const d = modelAlone.detect(text);
      if (d.language === 'und') return { flores: '[und]', reliable: false };
      const own = asFlores(d.language);
      if (d.isReliable) return { flores: own, reliable: true };
      for (const ext of externals.values()) {
        const { label, reliable } = ext.detect(text);
        const flores = ext.toFlores(label);
        if (reliable && flores && scriptOf.get(flores) === scriptOf.get(own)) return { flores, reliable: true };
      }
      return { flores: own, reliable: false };
    },
  });
}

interface Result {
  c: Contender;
  accuracy: Map<string, number>;
  topAnswer: Map<string, string>;
  confusions: Map<string, number>;
  wallMicros: number;
  cpuMicros: number;
}

const results: Result[] = [];
for (const c of contenders) {
  // Warm-up (JIT, WebAssembly tiers) on a few sentences of every variety.
  for (const flores of varieties) for (const s of sentences.get(flores)!.slice(0, 5)) c.answer(s);
  const accuracy = new Map<string, number>();
  const topAnswer = new Map<string, string>();
  const confusions = new Map<string, number>();
  let wallNs = 0n;
  const cpu0 = process.cpuUsage();
  for (const flores of varieties) {
    const answers = new Map<string, number>();
    let right = 0;
    for (const s of sentences.get(flores)!) {
      const t0 = process.hrtime.bigint();
      const answer = c.answer(s).flores;
      wallNs += process.hrtime.bigint() - t0;
      answers.set(answer, (answers.get(answer) ?? 0) + 1);
      if (answer === flores) right++;
      else confusions.set(`${flores} → ${answer}`, (confusions.get(`${flores} → ${answer}`) ?? 0) + 1);
    }
    accuracy.set(flores, right / sentences.get(flores)!.length);
    const [top, n] = [...answers].sort((a, b) => b[1] - a[1])[0]!;
    topAnswer.set(flores, `${top} (${n})`);
  }
  const cpu = process.cpuUsage(cpu0);
  results.push({
    c,
    accuracy,
    topAnswer,
    confusions,
    wallMicros: Number(wallNs) / 1000 / total,
    cpuMicros: (cpu.user + cpu.system) / total,
  });
  console.error(`${c.key}: done`);
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const pct2 = (x: number): string => `${(100 * x).toFixed(2)}%`;
const macro = (r: Result, set: readonly string[]): number =>
  set.length === 0 ? 0 : set.reduce((a, f) => a + r.accuracy.get(f)!, 0) / set.length;
const cld3Known = contenders.find((c) => c.key === 'cld3')?.canOutput;
const fastTextKnown = contenders.find((c) => c.key === 'fasttext')?.canOutput;

const L: string[] = [];
L.push('# Language detection on FLORES-200 dev');
L.push('');
L.push(
  `\`npm run bench:detect\` on ${new Date().toISOString().slice(0, 16)}Z, Node ${process.version}, ${total} sentences ` +
    `(${varieties.length} varieties, \`${dataDir.replace(resolve(root, '..') + '/', '../')}\`). Accuracy is strict: ` +
    'the exact FLORES variety. Times are means per sentence on a shared 2-core machine (other jobs running), model ' +
    'loading excluded: wall clock around each call, and process CPU time over the run.',
);
L.push('');
L.push('| detector | varieties it can answer | macro, all 204 | macro, varieties cld3 knows' + (cld3Known ? ` (${[...cld3Known].length})` : '') +
  ' | macro, varieties fastText knows' + (fastTextKnown ? ` (${[...fastTextKnown].length})` : '') +
  ' | macro, varieties it can answer | varieties ≥ 90% | µs/sentence (wall) | µs/sentence (CPU) |');
L.push('|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const own = varieties.filter((f) => r.c.canOutput.has(f));
  L.push(
    `| ${r.c.title} | ${own.length} | ${pct2(macro(r, varieties))} | ${cld3Known ? pct2(macro(r, varieties.filter((f) => cld3Known.has(f)))) : '—'} | ` +
      `${fastTextKnown ? pct2(macro(r, varieties.filter((f) => fastTextKnown.has(f)))) : '—'} | ${pct2(macro(r, own))} | ` +
      `${varieties.filter((f) => r.accuracy.get(f)! >= 0.9).length} | ${r.wallMicros.toFixed(1)} | ${r.cpuMicros.toFixed(1)} |`,
  );
}
L.push('');
for (const r of results) {
  L.push(`## Most frequent confusions: ${r.c.title}`);
  L.push('');
  L.push('| true variety → answer | sentences (of 200) |');
  L.push('|---|---|');
  for (const [pair, n] of [...r.confusions].sort((a, b) => b[1] - a[1]).slice(0, r.c.key === 'dragoman' ? 30 : 10)) L.push(`| ${pair} | ${n} |`);
  L.push('');
}
// Short text.
const readPhrases = (file: string): (readonly [string, string])[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0 && !l.startsWith('#'))
    .map((l) => l.split('\t') as [string, string])
    .map(([code, text]) => [resolveLanguage(code)!.flores, text] as const);
const shortRows = readPhrases(shortFile);
const heldoutRows = readPhrases(heldoutFile);
const shortVarieties = [...new Set(shortRows.map(([f]) => f))];
const heldoutVarieties = [...new Set(heldoutRows.map(([f]) => f))];
const truncate = (s: string, i: number): string => {
  const k = 1 + (i % 5);
  const words = s.split(' ');
  return words.length < 4 ? [...s].slice(0, 3 * k).join('') : words.slice(0, k).join(' ');
};
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
/** Reliable answers of `c` on phrase rows: [right, all]. */
const reliableCount = (c: Contender, rows: (readonly [string, string])[]): [number, number] => {
  let right = 0;
  let all = 0;
  for (const [flores, text] of rows) {
    const a = c.answer(text);
    if (!a.reliable) continue;
    all++;
    if (a.flores === flores) right++;
  }
  return [right, all];
};
/** Micro and macro (over languages) accuracy of `c` on phrase rows. */
const phraseAccuracy = (c: Contender, rows: (readonly [string, string])[]): [number, number] => {
  const perLang = new Map<string, [number, number]>();
  let right = 0;
  for (const [flores, text] of rows) {
    const ok = c.answer(text).flores === flores;
    if (ok) right++;
    const p = perLang.get(flores) ?? [0, 0];
    perLang.set(flores, [p[0] + (ok ? 1 : 0), p[1] + 1]);
  }
  return [right / rows.length, mean([...perLang.values()].map(([o, n]) => o / n))];
};
L.push('## Short text');
L.push('');
L.push(
  `Everyday phrases (\`${shortFile.replace(root + '/', '')}\`: ${shortRows.length} phrases of 1–8 words in ` +
    `${shortVarieties.length} languages, own work, not FLORES; the detector's short-text parameters were chosen on it), ` +
    `held-out phrases (\`${heldoutFile.replace(root + '/', '')}\`: ${heldoutRows.length} phrases of 1–10 words in ` +
    `${heldoutVarieties.length} languages, written separately and never used to choose anything) and FLORES dev ` +
    'sentences cut to their first 1–5 words (sentence i keeps 1 + i mod 5 words; Chinese, Japanese, Thai, … keep 3 ' +
    'characters per word). Strict accuracy. Reliable: of the answers on both phrase files the detector calls reliable, ' +
    'how many are right.',
);
L.push('');
L.push(
  `| detector | phrases (micro) | phrases (macro over ${shortVarieties.length} languages) | held-out phrases (micro) | ` +
    `held-out (macro over ${heldoutVarieties.length}) | cut FLORES, macro all 204 | cut FLORES, macro over the ${shortVarieties.length} phrase languages | ` +
    'reliable answers right, both phrase files |',
);
L.push('|---|---|---|---|---|---|---|---|');
for (const c of contenders) {
  const [micro, macro] = phraseAccuracy(c, shortRows);
  const [heldMicro, heldMacro] = phraseAccuracy(c, heldoutRows);
  const cut = new Map<string, number>();
  for (const f of varieties) {
    const lines = sentences.get(f)!;
    let ok = 0;
    lines.forEach((s, i) => (ok += c.answer(truncate(s, i)).flores === f ? 1 : 0));
    cut.set(f, ok / lines.length);
  }
  L.push(
    `| ${c.title} | ${pct(micro)} | ${pct(macro)} | ${pct(heldMicro)} | ${pct(heldMacro)} | ` +
      `${pct(mean(varieties.map((f) => cut.get(f)!)))} | ${pct(mean(shortVarieties.map((f) => cut.get(f)!)))} | ` +
      `${reliableCount(c, [...shortRows, ...heldoutRows]).join(' of ')} |`,
  );
  console.error(`${c.key}: short text done`);
}
L.push('');
// Text typed without diacritics.
const firstWords = (s: string, n: number): string => (n === 0 ? s : s.split(' ').slice(0, n).join(' '));
const strippedVarieties = varieties.filter((f) => {
  if (!f.endsWith('_Latn')) return false;
  const lines = sentences.get(f)!;
  return lines.filter((s) => stripDiacritics(s) !== s).length * 2 >= lines.length;
});
const LENGTHS = [0, 8, 3] as const; // 0: the whole sentence
/** Per length: the variety's texts (whole or first n words) that stripping changes, as [with diacritics, stripped]. */
const strippedTexts = LENGTHS.map((n) =>
  new Map(
    strippedVarieties.map((f) => [
      f,
      sentences
        .get(f)!
        .map((s) => firstWords(s, n))
        .map((s) => [s, stripDiacritics(s)] as const)
        .filter(([a, b]) => a !== b),
    ]),
  ),
);
L.push('## Text typed without diacritics');
L.push('');
L.push(
  `The dev sentences of the ${strippedVarieties.length} Latin-script varieties where stripping changes at least half ` +
    'of the sentences, stripped as a user typing without diacritics would write them (`stripDiacritics`, ' +
    '`src/detect/diacritics.ts`: NFD, combining marks U+0300–U+036F removed, ł ø đ ħ ı ß → l o d h i ss; æ œ ð þ ə ŋ ɛ ɔ ' +
    'kept): the whole sentence and its first 8 and first 3 words, counting only the texts stripping changes (' +
    LENGTHS.map((n, i) => `${[...strippedTexts[i]!.values()].reduce((a, t) => a + t.length, 0)} ${n === 0 ? 'sentences' : `${n}-word prefixes`}`).join(', ') +
    '). Strict accuracy, macro over the varieties; in brackets the same texts with their diacritics. Reliable: of the ' +
    'answers on the stripped texts (all three lengths) the detector calls reliable, how many are right.',
);
L.push('');
L.push(
  `| detector | whole sentences, stripped (with diacritics) | first 8 words, stripped (with) | first 3 words, stripped (with) | ` +
    'reliable answers right, stripped |',
);
L.push('|---|---|---|---|---|');
const strippedConfusions = new Map<string, number>();
for (const c of contenders) {
  const cells: string[] = [];
  let reliable = 0;
  let reliableRight = 0;
  LENGTHS.forEach((n, i) => {
    const plain: number[] = [];
    const stripped: number[] = [];
    for (const [f, texts] of strippedTexts[i]!) {
      if (texts.length === 0) continue;
      let ok = 0;
      let okPlain = 0;
      for (const [withMarks, without] of texts) {
        if (c.answer(withMarks).flores === f) okPlain++;
        const a = c.answer(without);
        if (a.flores === f) ok++;
        else if (c.key === 'dragoman' && n === 3) strippedConfusions.set(`${f} → ${a.flores}`, (strippedConfusions.get(`${f} → ${a.flores}`) ?? 0) + 1);
        if (a.reliable) {
          reliable++;
          if (a.flores === f) reliableRight++;
        }
      }
      stripped.push(ok / texts.length);
      plain.push(okPlain / texts.length);
    }
    cells.push(`${pct(mean(stripped))} (${pct(mean(plain))})`);
  });
  L.push(`| ${c.title} | ${cells.join(' | ')} | ${reliableRight} of ${reliable} |`);
  console.error(`${c.key}: stripped text done`);
}
if (strippedConfusions.size > 0) {
  L.push('');
  L.push("Most frequent confusions of Dragoman's detector on the stripped first 3 words:");
  L.push('');
  L.push('| true variety → answer | prefixes |');
  L.push('|---|---|');
  for (const [pair, n] of [...strippedConfusions].sort((a, b) => b[1] - a[1]).slice(0, 15)) L.push(`| ${pair} | ${n} |`);
}
L.push('');
// Plain short sentences.
const MOST_SPOKEN = Object.entries(SPEAKERS_MILLIONS)
  .filter(([f]) => varieties.includes(f))
  .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  .slice(0, 40)
  .map(([f]) => f);
const UNSPACED = /_(Hans|Hant|Jpan|Thai|Mymr|Khmr|Laoo|Tibt)$/;
const plainCut = (flores: string, s: string, i: number): string => {
  const k = 5 + (i % 6);
  return UNSPACED.test(flores) ? [...s].slice(0, 3 * k).join('') : s.split(/\s+/).slice(0, k).join(' ');
};
/** Per variety: [right, reliable and right, reliable but wrong] shares of its cut sentences. */
const plainScores = (c: Contender, set: readonly string[]): Map<string, [number, number, number]> =>
  new Map(
    set.map((f) => {
      const lines = sentences.get(f)!;
      let right = 0;
      let reliableRight = 0;
      let reliableWrong = 0;
      lines.forEach((s, i) => {
        const a = c.answer(plainCut(f, s, i));
        if (a.flores === f) right++;
        if (a.reliable && a.flores === f) reliableRight++;
        if (a.reliable && a.flores !== f) reliableWrong++;
      });
      return [f, [right / lines.length, reliableRight / lines.length, reliableWrong / lines.length]];
    }),
  );
const meanOf = (m: Map<string, [number, number, number]>, k: 0 | 1 | 2): number => mean([...m.values()].map((v) => v[k]));
L.push('## Plain short sentences');
L.push('');
L.push(
  'FLORES dev sentences cut to their first 5–10 words (sentence i keeps 5 + i mod 6 words; Chinese, Japanese, Thai, ' +
    'Burmese, Khmer, Lao and Tibetan 3 characters per word), 200 per variety. Right: the answer is the variety. ' +
    'Reliable and right: also called reliable (cld3: its is_reliable; fastText: probability ≥ 0.5). Reliable but ' +
    'wrong: called reliable and not the variety. Macro over the 40 most spoken varieties (total speakers, ' +
    '`src/detect/popularity.ts`) and over all 204.',
);
L.push('');
L.push('| detector | right, 40 | reliable and right, 40 | reliable but wrong, 40 | right, 204 | reliable and right, 204 | reliable but wrong, 204 |');
L.push('|---|---|---|---|---|---|---|');
let plainDragoman: Map<string, [number, number, number]> | undefined;
for (const c of contenders) {
  const all = plainScores(c, varieties);
  const top = new Map(MOST_SPOKEN.map((f) => [f, all.get(f)!]));
  if (c.key === 'dragoman') plainDragoman = top;
  L.push(`| ${c.title} | ${[0, 1, 2].map((k) => pct2(meanOf(top, k as 0 | 1 | 2))).join(' | ')} | ${[0, 1, 2].map((k) => pct2(meanOf(all, k as 0 | 1 | 2))).join(' | ')} |`);
  console.error(`${c.key}: plain short sentences done`);
}
if (plainDragoman) {
  L.push('');
  L.push("Per variety, Dragoman's detector (the 40 most spoken):");
  L.push('');
  L.push('| variety | right | reliable and right | reliable but wrong |');
  L.push('|---|---|---|---|');
  for (const [f, [right, rr, rw]] of plainDragoman) L.push(`| ${f} | ${pct(right)} | ${pct(rr)} | ${pct(rw)} |`);
  L.push(`| **all 40** | ${pct2(meanOf(plainDragoman, 0))} | ${pct2(meanOf(plainDragoman, 1))} | ${pct2(meanOf(plainDragoman, 2))} |`);
}
L.push('');
L.push('## Accuracy per variety');
L.push('');
L.push(`| variety | ${results.map((r) => r.c.key).join(' | ')} | ${results.map((r) => `most frequent answer (${r.c.key})`).join(' | ')} |`);
L.push(`|---|${results.map(() => '---|').join('')}${results.map(() => '---|').join('')}`);
for (const f of varieties) {
  const cells = results.map((r) => (r.c.canOutput.has(f) ? pct(r.accuracy.get(f)!) : `(${pct(r.accuracy.get(f)!)})`));
  L.push(`| ${f} | ${cells.join(' | ')} | ${results.map((r) => r.topAnswer.get(f)).join(' | ')} |`);
}
L.push('');
L.push('Parenthesised: a variety the detector has no label for. Answers in brackets are labels that map to no variety.');
L.push('');
L.push(
  'Data: FLORES-200 (NLLB Team et al., "No Language Left Behind", 2022; Goyal et al., "The FLORES-101 Evaluation ' +
    'Benchmark", 2021), licensed CC BY-SA 4.0.',
);
const text = L.join('\n') + '\n';
if (outFile) writeFileSync(outFile, text);
const shortAt = L.indexOf('## Short text');
const perVarietyAt = L.indexOf('## Accuracy per variety');
console.log(outFile ? [...L.slice(0, 4 + results.length + 2), ...L.slice(shortAt, perVarietyAt)].join('\n') : text);
