// Which rows of a many-script vocabulary (NLLB-200, M2M-100: family.ts's `manyScripts`) a batch may write, for
// DRAGOMAN_VOCABULARY=target: the output layer then runs over those rows only (graph/output-subset.ts). A piece is
// classed once, at load, by the scripts of its letters (Unicode's Script property); a target language writes the
// pieces of its script(s) (the catalog's FLORES code: deu_Latn → Latn, jpn_Jpan → Han, Hiragana and Katakana),
// every piece without letters (digits, punctuation, symbols, the word marker ▁), the special and language tokens,
// and each row's own source pieces and glossary terms, so names, numbers and forced terms copy through.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { languageByFlores } from '../../languages/catalog.ts';

/** A vocabulary's pieces by class, plain data (it travels to every worker with the model's spec). */
export interface OutputVocabulary {
  /** Rows of the output layer (the logits' length). */
  size: number;
  /** Each id's class: an index into `classes`. Ids past the tokenizer's pieces are class 0. */
  classOf: Uint16Array;
  /** The scripts (ISO 15924) of each class's letters; class 0 has none: every target may write its pieces. */
  classes: string[][];
  /** A target language's token id → the scripts its language writes (the token forced first, family.ts). */
  targets: Record<number, string[]>;
}

/** The Unicode scripts a catalog script stands for (the catalog names Japanese Jpan, Korean Kore, Chinese Hans / Hant). */
const UNICODE_SCRIPTS: Record<string, string[]> = {
  Jpan: ['Hani', 'Hira', 'Kana'], Kore: ['Hang', 'Hani'], Hans: ['Hani'], Hant: ['Hani'],
};

export function unicodeScripts(script: string): string[] {
  return UNICODE_SCRIPTS[script] ?? [script];
}

/** Scripts a letter is tested against: every script the catalog's languages write. */
function scriptTests(scripts: Iterable<string>): [string, RegExp][] {
  const tests: [string, RegExp][] = [];
  for (const s of new Set([...scripts].flatMap(unicodeScripts))) {
    try {
      tests.push([s, new RegExp(`\\p{Script=${s}}`, 'u')]);
    } catch {
      // A code JavaScript's Unicode tables do not know: its letters fall under "other" below.
    }
  }
  return tests;
}

const NO_SCRIPT = /[\p{Script=Common}\p{Script=Inherited}]/u;
/** Letters of a script none of the languages writes: a piece of them is written only when a source holds it. */
const OTHER = 'Zzzz';

/**
 * The classes of a tokenizer's pieces. `special`: ids every target may write (added tokens: `</s>`, language codes);
 * `targets`: each target token id with its language's catalog script.
 */
export function classifyPieces(pieces: Iterable<[string, number]>, size: number, special: Iterable<number>, targets: Record<number, string>): OutputVocabulary {
  const tests = scriptTests(Object.values(targets));
  const scriptOf = new Map<string, string | undefined>();
  const charScript = (ch: string): string | undefined => {
    if (scriptOf.has(ch)) return scriptOf.get(ch);
    const s = NO_SCRIPT.test(ch) ? undefined : tests.find(([, re]) => re.test(ch))?.[0] ?? OTHER;
    scriptOf.set(ch, s);
    return s;
  };
  const classOf = new Uint16Array(size);
  const classes: string[][] = [[]];
  const classIndex = new Map<string, number>([['', 0]]);
  for (const [piece, id] of pieces) {
    if (id < 0 || id >= size) continue;
    const scripts = new Set<string>();
    for (const ch of piece) {
      const s = charScript(ch);
      if (s) scripts.add(s);
    }
    const key = [...scripts].sort().join('+');
    let c = classIndex.get(key);
    if (c === undefined) {
      c = classes.length;
      // More mixes than a Uint16 holds cannot happen in a real vocabulary; such a piece is then written by any target.
      if (c > 0xffff) c = 0;
      else {
        classes.push(key.split('+'));
        classIndex.set(key, c);
      }
    }
    classOf[id] = c;
  }
  for (const id of special) if (id >= 0 && id < size) classOf[id] = 0;
  const byToken: Record<number, string[]> = {};
  for (const [id, script] of Object.entries(targets)) byToken[Number(id)] = unicodeScripts(script);
  return { size, classOf, classes, targets: byToken };
}

/** A family's language tokens (FLORES code → token) as target token ids with their catalog scripts. */
export function targetScripts(languageTokens: Record<string, string>, tokenId: (token: string) => number | undefined): Record<number, string> {
  const out: Record<number, string> = {};
  for (const [flores, token] of Object.entries(languageTokens)) {
    const id = tokenId(token);
    const script = languageByFlores(flores)?.script ?? flores.split('_')[1];
    if (id !== undefined && script) out[id] = script;
  }
  return out;
}

/** The base rows of each set of target tokens, made once per set (a worker serves few target languages at a time). */
const bases = new WeakMap<OutputVocabulary, Map<string, Uint8Array>>();

function baseRows(v: OutputVocabulary, targets: readonly number[]): Uint8Array | undefined {
  const key = [...new Set(targets)].sort((a, b) => a - b).join(',');
  let byKey = bases.get(v);
  if (!byKey) bases.set(v, (byKey = new Map()));
  const kept = byKey.get(key);
  if (kept) return kept;
  const scripts = new Set<string>();
  for (const t of targets) {
    const s = v.targets[t];
    if (!s) return undefined; // a target the vocabulary does not class: the whole vocabulary
    for (const x of s) scripts.add(x);
  }
  const allowed = v.classes.map((c) => c.every((s) => scripts.has(s)));
  const rows = new Uint8Array(v.size);
  for (let id = 0; id < v.size; id++) rows[id] = allowed[v.classOf[id]!] ? 1 : 0;
  byKey.set(key, rows);
  return rows;
}

/**
 * Past this share of the vocabulary the whole projection is faster than the subset's (graph/output-subset.ts):
 * onnxruntime prepacks the whole table once, while the subset's rows are gathered and packed at every step. Measured on
 * NLLB-600M's size, int8, one row, 2 vCPUs: a step with 500 rows 43-71 ms, 20,000 rows 73-107 ms, the whole 256,206
 * 74-112 ms (docs/performance-nllb.md).
 */
export const MAX_SUBSET_SHARE = 1 / 16;

/**
 * The sorted ids a batch's output layer runs over: the target languages' rows (each row's forced target token) and
 * `own`, the ids the batch's rows hold (sources, glossary terms); undefined for the whole vocabulary (a row without
 * a target token the vocabulary classes, or a subset past MAX_SUBSET_SHARE of it).
 */
export function outputIds(
  v: OutputVocabulary, targets: readonly (number | undefined)[], own: Iterable<number>, maxShare = MAX_SUBSET_SHARE,
): BigInt64Array | undefined {
  if (targets.some((t) => t === undefined)) return undefined;
  const base = baseRows(v, targets as number[]);
  if (!base) return undefined;
  const rows = base.slice();
  for (const id of own) if (id >= 0 && id < v.size) rows[id] = 1;
  let n = 0;
  for (let id = 0; id < v.size; id++) n += rows[id]!;
  if (n > v.size * maxShare) return undefined;
  const ids = new BigInt64Array(n);
  for (let id = 0, k = 0; id < v.size; id++) if (rows[id]) ids[k++] = BigInt(id);
  return ids;
}

/** The cache's file of a classed vocabulary: beside the prepared graphs, keyed by the tokenizer's bytes. */
const VERSION = 1;

/**
 * The classes of a tokenizer file, read from `cacheDir` (the graph cache) when a start made them before, else made by
 * `make` and written there (whole or not at all). Without a cache folder, made each time.
 */
export function cachedVocabulary(cacheDir: string | undefined, tokenizerPath: string, targets: Record<number, string>, make: () => OutputVocabulary): OutputVocabulary {
  if (!cacheDir) return make();
  let dir = '';
  try {
    const hash = createHash('sha256').update(readFileSync(tokenizerPath)).update(JSON.stringify({ v: VERSION, targets }));
    dir = join(cacheDir, `vocabulary-${hash.digest('hex').slice(0, 32)}`);
    const saved = JSON.parse(readFileSync(join(dir, 'vocabulary.json'), 'utf8')) as Omit<OutputVocabulary, 'classOf'> & { classOf: string };
    const bytes = Buffer.from(saved.classOf, 'base64');
    const now = new Date();
    utimesSync(dir, now, now); // used: pruneGraphCache keeps it
    return { ...saved, classOf: new Uint16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) };
  } catch {
    // Not made yet (or unreadable): made below.
  }
  const made = make();
  if (!dir) return made;
  const tmp = `${dir}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(tmp, { recursive: true });
    const classOf = Buffer.from(made.classOf.buffer, made.classOf.byteOffset, made.classOf.byteLength).toString('base64');
    writeFileSync(join(tmp, 'vocabulary.json'), JSON.stringify({ ...made, classOf }));
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another start wrote it first, or the folder is read-only
  }
  return made;
}
