import { describe, expect, it } from 'vitest';
import { keptSpans } from '../../src/text/kept-spans.ts';
import { TermMatcher } from '../../src/text/terms.ts';

describe('TermMatcher', () => {
  const m = new TermMatcher([
    { source: 'contract', target: 'Vertrag' },
    { source: 'notice period', target: 'Kündigungsfrist' },
    { source: 'notice', target: 'Hinweis' },
    { source: 'C++', target: 'C++' },
  ]);
  const found = (text: string) => m.find(text).map((x) => [text.slice(x.start, x.end), x.target]);

  it('matches case-insensitively on word boundaries', () => {
    expect(found('The Contract and the CONTRACT.')).toEqual([['Contract', 'Vertrag'], ['CONTRACT', 'Vertrag']]);
    expect(found('contracts, subcontract, contractor')).toEqual([]);
  });

  it('takes the longest term at a place, and terms never overlap', () => {
    expect(found('The notice period ends; a notice came.')).toEqual([['notice period', 'Kündigungsfrist'], ['notice', 'Hinweis']]);
  });

  it('matches terms that end in punctuation', () => {
    expect(found('We write C++ daily.')).toEqual([['C++', 'C++']]);
  });

  it('an empty glossary finds nothing', () => {
    expect(new TermMatcher([]).find('contract')).toEqual([]);
  });
});

describe('keptSpans', () => {
  const spans = (text: string) => keptSpans(text).map((s) => [text.slice(s.start, s.end), s.kind]);

  it('finds template and format placeholders', () => {
    expect(spans('Hello {{user_name}}, you have {0} new %s and %(count)d from ${sender}.')).toEqual([
      ['{{user_name}}', 'placeholder'], ['{0}', 'placeholder'], ['%s', 'placeholder'], ['%(count)d', 'placeholder'], ['${sender}', 'placeholder'],
    ]);
  });

  it('finds URLs without the sentence punctuation after them, and e-mail addresses', () => {
    expect(spans('See https://example.com/a?b=1. Or (www.example.org/x), mail a.b@example.de.')).toEqual([
      ['https://example.com/a?b=1', 'url'], ['www.example.org/x', 'url'], ['a.b@example.de', 'email'],
    ]);
    expect(spans('Read https://en.wikipedia.org/wiki/Foo_(bar) now')).toEqual([['https://en.wikipedia.org/wiki/Foo_(bar)', 'url']]);
  });

  it("in an HTML segment, also the planner's placeholder words of untranslated elements", () => {
    expect(spans('Hello X1, the X2 is at {0}.').length).toBe(1);
    expect(keptSpans('Hello X1, the X2 is at {0}. XL X1b', true).map((s) => s.kind)).toEqual(['placeholder', 'placeholder', 'placeholder']);
  });

  it('leaves ordinary text alone', () => {
    expect(spans('50 % of the people came at 10:30, {not a placeholder}.')).toEqual([]);
  });
});
