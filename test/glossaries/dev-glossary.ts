// A glossary made from a fixture's dev data, for the guarantee tests and `npm run bench:glossary`: each frequent
// source word paired with the target word that co-occurs with it most (Dice coefficient over sentence pairs), and
// the dev sentences split into those that hold a term and those that hold none.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TermMatcher, type TermPair } from '../../src/text/terms.ts';

import { FIXTURE_MODELS_DIR, coreModelsDir } from '../fixture-models.ts';

/** The core fixture models (served by the guarantee tests; the dev data is read from their own folders). */
export const FIXTURES = coreModelsDir();

export interface DevRow {
  src: string;
  ref: string;
}

export function devRows(model = 'tiny-marian-en-de'): DevRow[] {
  return readFileSync(join(FIXTURE_MODELS_DIR, model, 'dev.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as DevRow);
}

const words = (s: string, lower: boolean) => [...new Set((s.match(/[\p{L}]+/gu) ?? []).map((w) => (lower ? w.toLowerCase() : w)))];

/** Source words seen in at least `minCount` sentences (4+ letters), each with its best-associated target word. */
export function devGlossary(rows: readonly DevRow[], minCount = 8): TermPair[] {
  const src = new Map<string, number>();
  const tgt = new Map<string, number>();
  const both = new Map<string, number>();
  for (const r of rows) {
    const s = words(r.src, true).filter((w) => w.length >= 4);
    const t = words(r.ref, false).filter((w) => w.length >= 3);
    for (const w of s) src.set(w, (src.get(w) ?? 0) + 1);
    for (const w of t) tgt.set(w, (tgt.get(w) ?? 0) + 1);
    for (const a of s) for (const b of t) both.set(`${a}\t${b}`, (both.get(`${a}\t${b}`) ?? 0) + 1);
  }
  const best = new Map<string, { target: string; dice: number }>();
  for (const [pair, n] of both) {
    const [a, b] = pair.split('\t') as [string, string];
    if (src.get(a)! < minCount) continue;
    const dice = (2 * n) / (src.get(a)! + tgt.get(b)!);
    const cur = best.get(a);
    if (!cur || dice > cur.dice || (dice === cur.dice && b < cur.target)) best.set(a, { target: b, dice });
  }
  return [...best.entries()].filter(([, v]) => v.dice >= 0.3).sort((x, y) => x[0].localeCompare(y[0])).map(([source, v]) => ({ source, target: v.target }));
}

/** Unique entries that no sentence holds, to bring a glossary up to `size` entries. */
export function padGlossary(entries: readonly TermPair[], size: number): TermPair[] {
  const out = [...entries];
  for (let i = 0; out.length < size; i++) out.push({ source: `zqterm${i}x`, target: `Zqbegriff${i}` });
  return out;
}

/** The rows whose source holds a term of `entries`, and those that hold none. */
export function splitByTerms(rows: readonly DevRow[], entries: readonly TermPair[]) {
  const m = new TermMatcher(entries);
  const withTerms: { row: DevRow; targets: string[] }[] = [];
  const without: DevRow[] = [];
  for (const row of rows) {
    const found = m.find(row.src);
    if (found.length) withTerms.push({ row, targets: found.map((f) => f.target) });
    else without.push(row);
  }
  return { withTerms, without };
}
