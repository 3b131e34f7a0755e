// The constraint rule of search/constraints.ts on hand-made token sequences: what it forces, bans and counts.
import { describe, expect, it } from 'vitest';
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
