// Random markup (seeded, so every run checks the same 400 strings): well-formed and broken nesting, tables,
// lists, comments, entities, skipped elements. The invariants of the corpus tests must hold for all of them.
import { describe, expect, it } from 'vitest';
import { planHtml } from '../../src/text/html/index.ts';
import { markupVocabulary, skippedSources, tagEvents } from './tags.ts';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'Hello', 'world', 'GitHub', '42', 'fish &amp; chips', '&lt;b&gt;', 'caf&eacute;', 'x&nbsp;y', '"q"', "it's"];
const INLINE = ['b', 'i', 'em', 'strong', 'a href="#"', 'span class="c"', 'u', 'sup', 'small', 'abbr title="An abbreviation"', 'my-tag'];
const BLOCK = ['p', 'div', 'li', 'h2', 'blockquote', 'section'];
const OPAQUE = ['<code>x &lt; y</code>', '<img src="i.png" alt="An image">', '<!-- note -->', '<kbd>Ctrl</kbd>', '<span translate="no">Brand &amp; Co</span>', '<br>', '<script>if (a < b) {}</script>', '<textarea placeholder="Type a message" title="Box">keep &amp; this</textarea>', '<span translate="no">Keep <b translate="yes">this part</b> here</span>'];

function generate(random: () => number, depth = 0): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  let out = '';
  const parts = 1 + Math.floor(random() * 5);
  for (let i = 0; i < parts; i++) {
    const r = random();
    if (r < 0.35 || depth > 3) {
      const n = 1 + Math.floor(random() * 6);
      out += Array.from({ length: n }, () => pick(WORDS)).join(pick([' ', ' ', '\n  ', '  '])) + pick(['', '.', '. ', '! ', ' ']);
    } else if (r < 0.6) {
      const tag = pick(INLINE);
      const name = tag.split(' ')[0];
      out += `<${tag}>${generate(random, depth + 1)}${random() < 0.9 ? `</${name}>` : ''}`; // sometimes unclosed
    } else if (r < 0.75) {
      const tag = pick(BLOCK);
      out += `<${tag}>${generate(random, depth + 1)}${random() < 0.85 ? `</${tag}>` : ''}`;
    } else if (r < 0.87) {
      out += pick(OPAQUE);
    } else if (r < 0.93) {
      out += `<table><tr><td>${generate(random, depth + 1)}</td>${random() < 0.5 ? 'stray text' : ''}<td>${pick(WORDS)}</td></tr></table>`;
    } else if (r < 0.97) {
      out += `<ul><li>${generate(random, depth + 1)}<li>${pick(WORDS)}</ul>`;
    } else {
      out += pick(['</b>', '</p>', '<b><i>misnested</b></i>', '</div>']);
    }
  }
  return out;
}

const SAMPLES = Array.from({ length: 400 }, (_, i) => {
  const html = generate(rng(i + 1));
  return i % 10 === 0 ? `<!DOCTYPE html><html><head><title>T ${i}</title></head><body>${html}</body></html>` : html;
});

const TRANSLATORS: Record<string, (s: string) => string> = {
  uppercase: (s) => s.toUpperCase(),
  reversed: (s) => s.split(' ').reverse().join(' '),
  longer: (s) => `${s} and then some more words`,
  markup: (s) => `<script>alert(1)</script> ${s.split(' ')[0]} "'&`,
};

describe('html fuzz (400 seeded random strings)', () => {
  it('identity round trip is byte-identical', () => {
    for (const html of SAMPLES) {
      const plan = planHtml(html);
      expect(plan.assemble(plan.segments), html).toBe(html);
    }
  });

  it('word-changing and markup-returning translators keep tags, skipped elements, and add no markup', () => {
    let segments = 0;
    for (const html of SAMPLES) {
      const plan = planHtml(html);
      segments += plan.segments.length;
      const tags = tagEvents(html);
      const skipped = skippedSources(html);
      const vocabulary = markupVocabulary(html);
      for (const [name, translate] of Object.entries(TRANSLATORS)) {
        const out = plan.assemble(plan.segments.map(translate));
        const context = `${name}: ${html}\n-> ${out}`;
        expect(tagEvents(out), context).toEqual(tags);
        expect(skippedSources(out), context).toEqual(skipped);
        expect([...markupVocabulary(out)].filter((v) => !vocabulary.has(v)), context).toEqual([]);
      }
    }
    expect(segments).toBeGreaterThan(1000);
  });

  it('an empty translation keeps every written tag and skipped element', () => {
    for (const html of SAMPLES) {
      const plan = planHtml(html);
      const out = plan.assemble(plan.segments.map(() => ''));
      expect(tagEvents(out, 'written'), out).toEqual(tagEvents(html, 'written'));
      expect(skippedSources(out), out).toEqual(skippedSources(html));
    }
  });
});
