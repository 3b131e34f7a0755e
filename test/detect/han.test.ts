import { describe, expect, it } from 'vitest';
import { HanCheck, hanSets } from '../../src/detect/han.ts';

describe('Han character check', () => {
  const sets = hanSets(['们们这这说说', '我们在这里'], ['們們這這說說', '我們在這裡']);
  const check = new HanCheck(sets);

  it('keeps only characters one side uses (at least twice) and the other never does', () => {
    expect([...sets.Hans].sort()).toEqual(['们', '说', '这']);
    expect([...sets.Hant].sort()).toEqual(['們', '說', '這']);
  });

  it('decides when the text has characters of one kind only', () => {
    expect(check.verdict('他们说')).toBe('Hans');
    expect(check.verdict('他們說')).toBe('Hant');
    expect(check.verdict('我在')).toBeUndefined();
    expect(check.verdict('们們')).toBeUndefined();
    expect(check.verdict('佢哋喺度')).toBe('yue');
  });
});
