// (3) Injection: escaped payloads in text and attributes, and translators that return markup, never
// produce an element or attribute the input did not have.
import { parseFragment, parse, type DefaultTreeAdapterTypes as T } from 'parse5';
import { describe, expect, it } from 'vitest';
import { escapeHtmlAttribute, escapeHtmlText, isHtmlDocument, planHtml } from '../../src/text/html/index.ts';
import { markupVocabulary, tagEvents, textContent } from './tags.ts';

const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><script>alert(1)</script>',
  "'><svg onload=alert(1)>",
  '<iframe src="javascript:alert(1)"></iframe>',
  '</title><script>alert(1)</script>',
  '</textarea><script>alert(1)</script>',
  '</p></div><script>alert(1)</script>',
  '<a href="javascript:alert(1)">click</a>',
  '<!--<script>alert(1)//-->',
  '<style>@import "http://x/x.css";</style>',
  '" onmouseover="alert(1)',
  "' autofocus onfocus='alert(1)",
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  '<body onload=alert(1)>',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<x onclick=alert(1)>y</x>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '<<script>alert(1);//<</script>',
];

/** Numeric character references for every special character (another way inputs arrive escaped). */
const numeric = (s: string): string => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

function inputsFor(payload: string): string[] {
  const text = escapeHtmlText(payload);
  return [
    `<p>${text}</p>`,
    `<p>Before <b>${text}</b> after. Then more.</p>`,
    `<div>${numeric(payload)}</div>`,
    `<img src="a.png" alt="${escapeHtmlAttribute(payload, '"')}">`,
    `<a href="/x" title='${escapeHtmlAttribute(payload, "'")}'>a link</a>`,
    `<input placeholder="${numeric(payload)}" aria-label="Field">`,
    `<!doctype html><html><head><title>${text}</title></head><body><p>${text}</p></body></html>`,
    `<table><tr><td>${text}</td></tr></table><ul><li>${text} <i>x</i></li></ul>`,
  ];
}

const EVIL: Record<string, (s: string) => string> = {
  identity: (s) => s,
  'returns the payload': () => '<script>alert(1)</script>',
  'appends markup': (s) => `${s}"><img src=x onerror=alert(1)>`,
  'closes the element': () => '</p></b><script>alert(1)</script><p>',
  'breaks out of attributes': () => `' onmouseover='alert(1)" onfocus="alert(2)`,
  'returns entities': () => '&lt;script&gt;&amp;&quot;',
  'comment and cdata': () => '--><!-- <![CDATA[ x ]]>',
};

function attributeValues(html: string): string[] {
  const root = isHtmlDocument(html) ? parse(html) : parseFragment(html);
  const values: string[] = [];
  const visit = (node: T.ChildNode): void => {
    if (!('tagName' in node)) return;
    for (const a of (node as T.Element).attrs) values.push(a.value);
    for (const c of (node as T.Element).childNodes) visit(c);
  };
  for (const c of root.childNodes) visit(c);
  return values;
}

describe('html injection', () => {
  for (const payload of PAYLOADS) {
    it(`payload ${JSON.stringify(payload)}`, () => {
      for (const input of inputsFor(payload)) {
        const plan = planHtml(input);
        const vocabulary = markupVocabulary(input);
        // The payload was text in the input, so it is decoded text in the segments, never markup
        // (possibly cut into several sentences: "<![" ends one for Intl.Segmenter).
        const squash = (t: string): string => t.replace(/\s+/g, '');
        expect(squash(plan.segments.join('')).includes(squash(payload)), input).toBe(true);
        for (const [name, translate] of Object.entries(EVIL)) {
          const out = plan.assemble(plan.segments.map(translate));
          const context = `${name}: ${input} -> ${out}`;
          expect([...markupVocabulary(out)].filter((v) => !vocabulary.has(v)), context).toEqual([]);
          expect(tagEvents(out), context).toEqual(tagEvents(input));
          // What the translator returned arrived as text (or attribute value), character for character.
          const returned = translate('probe').replace('probe', '');
          if (name !== 'identity') {
            const where = textContent(out) + '\u0000' + attributeValues(out).join('\u0000');
            expect(where.includes(returned.trim()), context).toBe(true);
          }
        }
      }
    });
  }

  it('escaped markup in text stays escaped text, including after translation', () => {
    const input = '<p>Type &lt;script&gt;alert(1)&lt;/script&gt; here.</p>';
    const plan = planHtml(input);
    expect(plan.segments).toEqual(['Type <script>alert(1)</script> here.']);
    expect(plan.assemble(plan.segments)).toBe(input);
    expect(plan.assemble(['Tippe <script>alert(1)</script> hier.'])).toBe('<p>Tippe &lt;script&gt;alert(1)&lt;/script&gt; hier.</p>');
  });

  it('re-quotes an unquoted attribute whose translation needs quotes', () => {
    const plan = planHtml('<img alt=cat src=x>');
    expect(plan.segments).toEqual(['cat']);
    expect(plan.assemble(['x onerror=alert(1)'])).toBe('<img alt="x onerror=alert(1)" src=x>');
    expect(plan.assemble(['a "b" c'])).toBe('<img alt="a &quot;b&quot; c" src=x>');
  });

  it('escapes helpers', () => {
    expect(escapeHtmlText('a < b & c > d\u00a0"\'')).toBe('a &lt; b &amp; c &gt; d&nbsp;"\'');
    expect(escapeHtmlAttribute(`"x' <`, '"')).toBe(`&quot;x' &lt;`);
    expect(escapeHtmlAttribute(`"x' <`, "'")).toBe(`"x&#39; &lt;`);
  });
});
