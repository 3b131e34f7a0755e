// (1) identity round trip and (2) tag preservation under word-changing fake translators, over the corpus.
import { describe, expect, it } from 'vitest';
import { planHtml } from '../../src/text/html/index.ts';
import { CORPUS } from './corpus.ts';
import { skippedSources, tagEvents } from './tags.ts';

/**
 * Normalizations the HTML layer makes on an identity round trip, one by one. Because the output is the
 * input with only changed text spliced in, a parser's repairs (implied tags, misnesting, foster parenting,
 * CRLF, upper-case names, unquoted attributes) never reach the output: the list is empty, and the test
 * below checks that every corpus entry, repaired ones included, comes back byte-identical.
 */
const NORMALIZATIONS: Record<string, string> = {};

/**
 * Where the parsed tree of the output may differ from the input's, one by one. The written tags are always
 * compared; these pairs (entry, translator) may only lose or gain elements the PARSER invents, never tags of
 * the source. (Empty: text moved by the tag heuristic can change the parser's repairs of misnested or
 * unclosed formatting tags, but planHtml detects that by re-parsing and then keeps every text node in place.)
 */
const TREE_EXCEPTIONS = new Set<string>([]);

const TRANSLATORS: Record<string, (s: string) => string> = {
  uppercase: (s) => s.toUpperCase(),
  'reversed words': (s) => s.split(' ').reverse().join(' '),
  'doubled words': (s) => s.split(' ').flatMap((w) => [w, w]).join(' '),
  'first word only': (s) => s.split(' ')[0]!,
  empty: () => '',
  'quoted and longer': (s) => `« ${s} » (${s.length} chars)`,
};

describe('html corpus', () => {
  it('has at least 40 varied entries, fragments and documents', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40);
    expect(CORPUS.filter((e) => /^\s*<(!doctype|html)/i.test(e.html)).length).toBeGreaterThanOrEqual(3);
    expect(new Set(CORPUS.map((e) => e.name)).size).toBe(CORPUS.length);
  });

  describe('identity translation round trip', () => {
    for (const entry of CORPUS) {
      it(entry.name, () => {
        const plan = planHtml(entry.html);
        expect(plan.assemble(plan.segments)).toBe(NORMALIZATIONS[entry.name] ?? entry.html);
      });
    }
  });

  describe('word-changing translators keep every tag and skipped element', () => {
    for (const entry of CORPUS) {
      it(entry.name, () => {
        const plan = planHtml(entry.html);
        const tags = tagEvents(entry.html);
        const skipped = skippedSources(entry.html);
        for (const [name, translate] of Object.entries(TRANSLATORS)) {
          const out = plan.assemble(plan.segments.map(translate));
          expect(tagEvents(out, 'written'), `${name}: ${out}`).toEqual(tagEvents(entry.html, 'written'));
          if (!TREE_EXCEPTIONS.has(`${entry.name} / ${name}`)) expect(tagEvents(out), `${name}: ${out}`).toEqual(tags);
          expect(skippedSources(out), `${name}: ${out}`).toEqual(skipped);
        }
      });
    }
  });

  it('the translators really change the text (the tag test is not vacuous)', () => {
    let changed = 0;
    for (const entry of CORPUS) {
      const plan = planHtml(entry.html);
      if (plan.assemble(plan.segments.map(TRANSLATORS.uppercase!)) !== entry.html) changed++;
    }
    expect(changed).toBeGreaterThanOrEqual(CORPUS.length - 2);
  });
});
