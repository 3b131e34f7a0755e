// TMX files the memory suites import: small hand-written ones, and a generated one of n units (streamed to disk).
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export const EXACT = { source: 'The house is small.', target: 'Dieses Häuschen stammt aus dem Gedächtnis.' };
export const SECOND = { source: 'Click here to start the program.', target: 'Klicken Sie hier, um das Programm aus dem Gedächtnis zu starten.' };
export const FUZZY_STORED = { source: 'The weather is very nice today and we are going to the park.', target: 'Das Wetter ist heute sehr schön und wir gehen in den Park.' };

export const tmx = (units: { source: string; target: string; sourceMarkup?: string; targetMarkup?: string }[], srclang = 'en-US', tgt = 'de-DE') =>
  `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4">
  <header creationtool="test" creationtoolversion="1" segtype="sentence" o-tmf="test" adminlang="en" srclang="${srclang}" datatype="plaintext"/>
  <body>
${units.map((u) => `    <tu>
      <tuv xml:lang="${srclang}"><seg>${u.sourceMarkup ?? esc(u.source)}</seg></tuv>
      <tuv xml:lang="${tgt}"><seg>${u.targetMarkup ?? esc(u.target)}</seg></tuv>
    </tu>`).join('\n')}
  </body>
</tmx>
`;

export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const BASIC = tmx([
  EXACT,
  { source: SECOND.source, target: SECOND.target, sourceMarkup: 'Click <bpt i="1" x="1">&lt;b&gt;</bpt>here<ept i="1">&lt;/b&gt;</ept> to start the program.', targetMarkup: 'Klicken Sie <bpt i="1" x="1">&lt;b&gt;</bpt>hier<ept i="1">&lt;/b&gt;</ept>, um das Programm aus dem Gedächtnis zu starten.' },
  FUZZY_STORED,
]);

/** The i-th generated sentence pair (distinct sources, words varied so the index has rare and common words). */
export function generated(i: number): { source: string; target: string } {
  return { source: `Invoice number ${i} was sent to customer ${i % 9973} on line ${i % 101} of the report.`, target: `Rechnung Nummer ${i} ging an Kunde ${i % 9973} in Zeile ${i % 101} des Berichts.` };
}

/** A TMX of n generated units written to `path`. */
export async function writeGeneratedTmx(path: string, n: number): Promise<void> {
  const out = createWriteStream(path);
  const write = async (s: string) => {
    if (!out.write(s)) await once(out, 'drain');
  };
  await write('<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" segtype="sentence" o-tmf="x" adminlang="en" datatype="plaintext" creationtool="t" creationtoolversion="1"/><body>\n');
  let buf = '';
  for (let i = 0; i < n; i++) {
    const g = generated(i);
    buf += `<tu><tuv xml:lang="en"><seg>${g.source}</seg></tuv><tuv xml:lang="de"><seg>${g.target}</seg></tuv></tu>\n`;
    if (buf.length > 1 << 16) {
      await write(buf);
      buf = '';
    }
  }
  await write(buf + '</body></tmx>\n');
  out.end();
  await once(out, 'finish');
}
