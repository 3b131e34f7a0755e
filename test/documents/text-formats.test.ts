// The text formats without a server: a file written back from its own units (translation = source) is the file
// itself but for the language tags, so everything outside the units is kept byte for byte; and what each format
// does with translations (plural forms, targets added, lines and tags restored).
import { describe, expect, it } from 'vitest';
import { detectFormat, FORMATS } from '../../src/documents/formats/index.ts';
import { isWellFormed } from '../../src/documents/formats/xml-scan.ts';
import { SAMPLES } from './samples.ts';

const LIMITS = { maxCharacters: 1e6, maxUnits: 1e6, maxUncompressedBytes: 1e8, maxZipEntries: 1e4, maxCompressionRatio: 200 };

async function roundTrip(name: string, text: string, translate: (html: string) => string = (h) => h, target = 'de'): Promise<{ units: string[]; out: string }> {
  const bytes = Buffer.from(text);
  const doc = await detectFormat(bytes, name).open(bytes, LIMITS);
  return { units: doc.units.map((u) => u.html), out: Buffer.from(await doc.write(doc.units.map((u) => translate(u.html)), target)).toString() };
}

/** The language tags each format sets, taken out so the rest can be compared byte for byte. */
const withoutLanguageTags = (s: string) =>
  s.replace(/ (?:xml:)?lang="[^"]*"/g, '').replace(/ (?:target-language|trgLang)="[^"]*"/g, '').replace(/"Language: [^\\]*\\n"/, '');

describe('text formats: written back from their own units, every byte is kept', () => {
  for (const sample of SAMPLES) {
    it(sample.name, async () => {
      const { units, out } = await roundTrip(sample.name, sample.text);
      expect(units.length).toBeGreaterThan(0);
      if (sample.name.endsWith('.xlf')) {
        // The targets are new: with them taken out, the rest is the source.
        expect(withoutLanguageTags(out.replace(/\s*<target>[\s\S]*?<\/target>/g, ''))).toBe(withoutLanguageTags(sample.text.replace(/\s*<target>[\s\S]*?<\/target>/g, '')));
      } else if (sample.name.endsWith('.po')) {
        // The empty msgstr lines are filled; the header gets its Language.
        expect(out.replace(/msgstr(\[\d\])? "[^"]*"/g, 'msgstr')).toBe(sample.text.replace(/msgstr(\[\d\])? "[^"]*"/g, 'msgstr').replace('"Language: \\n"', '"Language: de\\n"'));
      } else {
        expect(withoutLanguageTags(out)).toBe(withoutLanguageTags(sample.text));
      }
    });
  }

  it('every text format is in the registry and recognised from its sample', () => {
    const ids = SAMPLES.map((s) => detectFormat(Buffer.from(s.text), s.name).id);
    expect(new Set(ids)).toEqual(new Set(['txt', 'markdown', 'srt', 'vtt', 'html', 'xhtml', 'xliff', 'po']));
    // Content, not the name: an SRT, a WebVTT and an XLIFF named .txt are still what they are.
    for (const name of ['film.srt', 'film.vtt', 'strings.xlf']) {
      const s = SAMPLES.find((x) => x.name === name)!;
      expect(detectFormat(Buffer.from(s.text), 'upload.txt').id).toBe(detectFormat(Buffer.from(s.text), name).id);
    }
    expect(FORMATS.at(-1)!.id).toBe('txt');
  });
});

describe('text formats: translations written in place', () => {
  /** Text outside the tags in capitals: a stand-in translation that shows where each piece went. */
  const upper = (html: string) => html.replace(/(^|>)([^<]*)/g, (_m, before: string, t: string) => before + t.toUpperCase());

  it('SRT: a cue over two lines is one sentence set again on two balanced lines, tags stay around their words, CRLF kept', async () => {
    const { units, out } = await roundTrip('film.srt', SAMPLES.find((s) => s.name === 'film.srt')!.text, upper);
    expect(units).toEqual(['The house is <i>small</i>.', 'The children play in the garden.']);
    expect(out).toBe('1\r\n00:00:01,000 --> 00:00:03,500\r\nTHE HOUSE IS <i>SMALL</i>.\r\n\r\n2\r\n00:00:04,000 --> 00:00:06,250\r\nTHE CHILDREN PLAY\r\nIN THE GARDEN.\r\n\r\n');
  });

  it('Markdown: link targets, code spans and emphasis markers come back around the translated words', async () => {
    const { units, out } = await roundTrip('a.md', 'Use **the big** [red button](http://x.y/?a=1&b=2) and `npm test`.\n', () =>
      'Benutze <b data-k="0">den großen</b> <a data-k="1">roten Knopf</a> und <img data-k="2">.');
    expect(units).toEqual(['Use <b data-k="0">the big</b> <a data-k="1">red button</a> and <img data-k="2">.']);
    expect(out).toBe('Benutze **den großen** [roten Knopf](http://x.y/?a=1&b=2) und `npm test`.\n');
  });

  it('XLIFF 1.2: a target is added after the source with its indentation; an existing one is replaced; well-formed', async () => {
    const sample = SAMPLES.find((s) => s.name === 'strings.xlf')!;
    const { out } = await roundTrip(sample.name, sample.text, (h) => h.replace('The house', 'Das Haus & <'));
    expect(out).toContain('<source>The house is <g id="1">very</g> small.</source>\n        <target>Das Haus &amp; &lt; is <g id="1">very</g> small.</target>');
    expect(out).toContain('<target>The garden<x id="2"/> is big.</target>');
    expect(out).not.toContain('<target>alt</target>');
    expect(out).toContain('<file source-language="en" datatype="plaintext" original="app.properties" target-language="de">');
    expect(isWellFormed(out)).toBe(true);
  });

  it('PO: plural forms follow the target (three for Russian) and the header says so', async () => {
    const sample = SAMPLES.find((s) => s.name === 'app.po')!;
    const { out } = await roundTrip(sample.name, sample.text, (h) => `[${h}]`, 'ru');
    expect(out).toContain('msgstr[0] "[One garden]"\nmsgstr[1] "[Many gardens]"\nmsgstr[2] "[Many gardens]"\n');
    expect(out).toContain('"Language: ru\\n"');
    expect(out).toMatch(/"Plural-Forms: nplurals=3; plural=/);
    expect(out).toContain('msgid "The house is small."\nmsgstr "[The house is small.]"\n');
  });

  it('PO: a message with line breaks keeps them', async () => {
    const { units, out } = await roundTrip('a.po', 'msgid ""\n"First line\\n"\n"second line"\nmsgstr ""\n', (h) => h.toUpperCase().replace('<BR>', '<br>'));
    expect(units).toEqual(['First line<br>second line']);
    expect(out).toBe('msgid ""\n"First line\\n"\n"second line"\nmsgstr ""\n"FIRST LINE\\n"\n"SECOND LINE"\n');
  });

  it('a UTF-8 byte-order mark and UTF-16 LE are kept', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('The house.\n')]);
    const doc = await detectFormat(bom, 'a.txt').open(bom, LIMITS);
    expect(Buffer.from(await doc.write(['Das Haus.'], 'de'))).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Das Haus.\n')]));
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('The house.\n', 'utf16le')]);
    const doc16 = await detectFormat(utf16, 'a.txt').open(utf16, LIMITS);
    expect(Buffer.from(await doc16.write(['Das Haus.'], 'de'))).toEqual(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Das Haus.\n', 'utf16le')]));
  });
});
