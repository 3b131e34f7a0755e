// The constraint rule of search/constraints.ts on hand-made token sequences: what it forces, bans and counts; and
// the phrases search/phrases.ts spells with the fixture models' tokenizers.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { joinerIds, prepareRow } from '../../src/engine/search/phrases.ts';
import { FIXTURES } from './helpers.ts';
import { advance, allMet, initialState, owed, progress, ruleFor, satisfies, type RowConstraints } from '../../src/engine/search/constraints.ts';

const EOS = 0;
const c: RowConstraints = { phrases: [[10, 11, 12], [20]], joiners: [99] };

describe('lexical constraint state', () => {
  it('a phrase begun is finished: only its next token is allowed', () => {
    let s = advance(c, initialState(c), 10);
    expect(ruleFor(c, s, [10], 50, [EOS])).toEqual({ only: [11], ban: [] });
    s = advance(c, s, 11);
    s = advance(c, s, 12);
    expect(s.met).toEqual([true, false]);
    expect(progress(c, s)).toBe(3);
    expect(allMet(s)).toBe(false);
  });

  it('bans EOS while a phrase is owed, a joiner right after a phrase, and a second copy of a phrase', () => {
    let s = advance(c, initialState(c), 20);
    expect(s.justMet).toBe(true);
    const rule = ruleFor(c, s, [20], 50, [EOS]);
    expect(rule.ban).toEqual(expect.arrayContaining([EOS, 99, 20]));
    for (const t of [10, 11, 12]) s = advance(c, s, t);
    expect(allMet(s)).toBe(true);
    expect(ruleFor(c, s, [20, 10, 11, 12], 50, [EOS]).ban).not.toContain(EOS);
    // The hypothesis ends with 10 11: the last token of the phrase already produced is banned.
    expect(ruleFor(c, advance(c, advance(c, s, 10), 11), [10, 11], 50, [EOS]).ban).toContain(12);
  });

  it('forces a phrase to begin when the room left is what is owed', () => {
    const s = initialState(c);
    expect(owed(c, s)).toBe(4);
    expect(ruleFor(c, s, [], 5, [EOS]).only).toBeUndefined();
    expect(ruleFor(c, s, [], 4, [EOS]).only?.sort()).toEqual([10, 20]);
  });

  it('a phrase listed twice is owed twice', () => {
    const twice: RowConstraints = { phrases: [[20], [20]], joiners: [] };
    let s = advance(twice, initialState(twice), 20);
    expect(s.met).toEqual([true, false]);
    expect(ruleFor(twice, s, [20], 10, [EOS]).ban).not.toContain(20);
    s = advance(twice, s, 5);
    s = advance(twice, s, 20);
    expect(allMet(s)).toBe(true);
    expect(ruleFor(twice, s, [20], 10, [EOS]).ban).toContain(20);
  });
});

describe('an output that already meets its constraints', () => {
  it('holds each phrase as often as listed, none glued', () => {
    expect(satisfies(c, [5, 10, 11, 12, 6, 20, 0])).toBe(true);
    expect(satisfies(c, [5, 10, 11, 6, 20, 0])).toBe(false); // a phrase cut short
    expect(satisfies(c, [10, 11, 12, 20, 20, 0])).toBe(false); // a duplicate
    expect(satisfies(c, [10, 11, 12, 99, 20, 0])).toBe(false); // glued to the next piece
    expect(satisfies({ phrases: [[20], [20]], joiners: [] }, [20, 5, 20])).toBe(true);
  });
});

describe('phrases from the tokenizers of the fixture models', () => {
  // An LLM tokenizer without SentencePiece's dummy prefix spells "Gras" as G r as at a text's start and as ▁Gras after
  // a space: the phrase is the word after a space, so the model never writes it glued to the word before it.
  it('spell a term as a word after a space where the vocabulary tells the two apart, as before where it does not', async () => {
    const pieceOf = (t: ModelTokenizer) => new Map(t.pieces().map(([p, i]) => [i, p]));
    const llm = await ModelTokenizer.load(join(FIXTURES, 'tiny-qwen3-mt'));
    const row = prepareRow(llm, 'The grass is green.', [{ target: 'Gras', source: 'grass' }]);
    expect(row.phrases).toEqual([llm.textIds(' Gras')]);
    expect(row.phrases[0]!.map((i) => pieceOf(llm).get(i))).toEqual(['\u2581Gras']);
    expect(row.restore(' Gras ist grün.')).toBe('Gras ist grün.');
    const joiners = new Set(joinerIds(llm));
    expect(joiners.has(llm.textIds('Gras')[1]!)).toBe(true); // "r" continues a word
    expect(joiners.has(row.phrases[0]![0]!)).toBe(false); // "▁Gras" starts one
    const nmt = await ModelTokenizer.load(join(FIXTURES, 'tiny-marian-en-de'));
    const kept = prepareRow(nmt, 'The grass is green.', [{ target: 'Gras' }]);
    expect(kept.phrases).toEqual([nmt.textIds('Gras')]);
    expect(kept.restore(' Gras ist grün.')).toBe(' Gras ist grün.');
  });
});
