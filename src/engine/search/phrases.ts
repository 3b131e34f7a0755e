// From what the service asks (per segment, strings that must come out verbatim) to what the decoder enforces (per
// row, token sequences: constraints.ts). A string the target vocabulary spells exactly is its own phrase. One it
// cannot spell (`{{name}}`: braces are <unk> in many SentencePiece vocabularies) is stood for by a sentinel word the
// vocabulary does spell (`QZX1`): the sentinel is put in the source in place of a kept span, the decoder places
// its tokens exactly once like any phrase, and the decoded sentinel is then written back as the span. The decoder's
// guarantee (once, whole, not glued) is what makes that write-back exact.
import type { ModelTokenizer } from '../model/tokenizer.ts';
import type { SegmentConstraint } from '../types.ts';

export interface PreparedRow {
  /** The source to encode: the segment with sentinels in place of kept spans the vocabulary cannot spell. */
  source: string;
  phrases: number[][];
  /** The decoded output with each sentinel written back as the text it stands for. */
  restore(decoded: string): string;
}

/**
 * A piece of the model's vocabulary, and whether it continues the word before it: no word-start mark, SentencePiece's
 * `▁` or byte-level BPE's `Ġ` (the space byte).
 */
const WORD_START = /^[\u2581\u0120]/u;
/** A piece that would continue the word before it: a letter, digit or mark, or a joining sign (Sand-skulptur, Bob's). */
const GLUES = /^[\p{L}\p{N}\p{M}\-'\u2019_\/@&+#]/u;

/** Token ids that glue onto the word before them, per tokenizer (computed once: a walk over the vocabulary). */
const joinersOf = new WeakMap<ModelTokenizer, number[]>();

export function joinerIds(tokenizer: ModelTokenizer): number[] {
  let ids = joinersOf.get(tokenizer);
  if (!ids) {
    ids = [];
    for (const [piece, id] of tokenizer.pieces()) {
      if (!WORD_START.test(piece) && !/^<.*>$/.test(piece) && GLUES.test(piece)) ids.push(id);
    }
    joinersOf.set(tokenizer, ids);
  }
  return ids;
}

/**
 * The target pieces of `text` (no EOS, no language token), or undefined when decoding them does not give it back. A
 * vocabulary that spells a word after a space otherwise than at the start of a text (an LLM's tokenizer without
 * SentencePiece's dummy prefix: `▁Gras` there, `G` `r` `as` at the start) has the phrase as a word after a space, as
 * the model writes it within a sentence: spelled as at the start, the phrase would be glued to the word before it.
 * (`spaced`: the output may then begin with that space.)
 */
function spell(tokenizer: ModelTokenizer, text: string): { ids: number[]; spaced: boolean } | undefined {
  const after = tokenizer.textIds(` ${text}`);
  if (after.length > 0 && tokenizer.decode(after) === ` ${text}`) return { ids: after, spaced: true };
  const ids = tokenizer.textIds(text);
  return ids.length > 0 && tokenizer.decode(ids) === text ? { ids, spaced: false } : undefined;
}

export function prepareRow(tokenizer: ModelTokenizer, segment: string, constraints: readonly SegmentConstraint[]): PreparedRow {
  const sentinels: { word: string; text: string }[] = [];
  const taken = new Set(segment.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  let n = 0;
  /** A sentinel word for `text`; undefined when the vocabulary cannot spell one (then that constraint is dropped). */
  let spaced = false;
  const sentinelFor = (text: string): { word: string; ids: number[] } | undefined => {
    for (;;) {
      const word = `QZX${++n}`;
      if (taken.has(word.toLowerCase())) continue;
      const spelled = spell(tokenizer, word);
      if (!spelled) return undefined;
      spaced ||= spelled.spaced;
      sentinels.push({ word, text });
      return { word, ids: spelled.ids };
    }
  };
  // Kept spans replaced from the last to the first, so earlier offsets stay valid.
  const replacements: { start: number; end: number; word: string }[] = [];
  const phrases: number[][] = [];
  for (const c of constraints) {
    const text = c.target.trim();
    if (!text) continue;
    const spelled = spell(tokenizer, text);
    if (spelled) {
      spaced ||= spelled.spaced;
      phrases.push(spelled.ids);
      continue;
    }
    const sentinel = sentinelFor(text);
    if (!sentinel) continue;
    phrases.push(sentinel.ids);
    if (c.keep) replacements.push({ ...c.keep, word: sentinel.word });
  }
  let source = segment;
  for (const r of replacements.sort((a, b) => b.start - a.start)) source = source.slice(0, r.start) + r.word + source.slice(r.end);
  return {
    source,
    phrases,
    restore(decoded) {
      // A phrase spelled after a space that opens the output leaves that space before it.
      let out = spaced ? decoded.trimStart() : decoded;
      for (const s of sentinels) out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${s.word}(?![\\p{L}\\p{N}])`, 'u'), () => s.text);
      return out;
    },
  };
}

/**
 * A pivot's next hop: the constraints of each segment with every kept span found again in the hop's output (where
 * the decoder put it), so the next model keeps it too; glossary terms pass on unchanged for the last hop.
 */
export function constraintsForNextHop(
  constraints: readonly (readonly SegmentConstraint[] | undefined)[], outputs: readonly string[],
): (SegmentConstraint[] | undefined)[] {
  return constraints.map((list, i) => list?.map((c) => {
    if (!c.keep) return c;
    const at = outputs[i]!.indexOf(c.target);
    return at >= 0 ? { target: c.target, keep: { start: at, end: at + c.target.length } } : { target: c.target };
  }));
}
