// Hostile and broken zip documents: each is refused with a DocumentError that names the problem (the http
// layer answers it as a 400), and nothing is read from outside the file or expanded without bound.
import { deflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DocumentError, type DocumentFormat, type DocumentLimits } from '../../src/documents/formats/types.ts';
import { zipFormats } from '../../src/documents/formats/zip-formats.ts';
import { makeDocx, makeEpub3, makeXlsx, zipOf } from './zip-fixtures.ts';
import { LIMITS, unzip } from './zip-helpers.ts';

const format = (id: string): DocumentFormat => zipFormats.find((f) => f.id === id)!;

async function refusal(id: string, bytes: Uint8Array, limits: DocumentLimits = LIMITS): Promise<string> {
  const err = await format(id)
    .open(bytes, limits)
    .then(() => undefined, (e: unknown) => e);
  expect(err, 'refused').toBeInstanceOf(DocumentError);
  return (err as DocumentError).message;
}

/** A DOCX made by npm docx with one entry replaced or added. */
async function docxWith(changes: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  const entries = (await unzip(await makeDocx())).map((e): [string, string | Uint8Array] => [e.name, changes[e.name] ?? e.data]);
  for (const [name, content] of Object.entries(changes)) if (!entries.some(([n]) => n === name)) entries.push([name, content]);
  return zipOf(entries);
}

/** Renames an entry in place (same length), in the local and the central header: yazl refuses to write such names. */
function renameEntry(bytes: Uint8Array, from: string, to: string): Uint8Array {
  expect(to.length).toBe(from.length);
  const buf = Buffer.from(bytes);
  let at = 0;
  let count = 0;
  while ((at = buf.indexOf(from, at, 'latin1')) >= 0) {
    buf.write(to, at, 'latin1');
    at += from.length;
    count++;
  }
  expect(count).toBe(2);
  return new Uint8Array(buf);
}

describe('zip containers', () => {
  it('a zip bomb (one entry compressed 1000 to 1) is refused before it is inflated', async () => {
    const zeros = Buffer.alloc(20 * 1024 * 1024);
    const message = await refusal('docx', await docxWith({ 'word/media/bomb.bin': zeros }));
    expect(deflateRawSync(zeros).length).toBeLessThan(zeros.length / 100);
    expect(message).toMatch(/word\/media\/bomb\.bin.*compressed more than 100 to 1/);
  });

  it('more bytes unpacked in total than the limit is refused', async () => {
    const message = await refusal('docx', await docxWith({ 'word/media/big.bin': randomBytes(3 * 1024 * 1024) }), { ...LIMITS, maxUncompressedBytes: 2 * 1024 * 1024 });
    expect(message).toMatch(/unpacks to more than 2097152 bytes/);
  });

  it('an entry whose header understates its size is refused as damaged (sizes are checked while inflating)', async () => {
    const bytes = Buffer.from(await docxWith({ 'word/media/liar.bin': Buffer.alloc(300_000, 7) }));
    // Patch the central directory's uncompressed size of that entry down to 1000.
    const at = bytes.lastIndexOf('word/media/liar.bin', undefined, 'latin1');
    const central = at - 46;
    expect(bytes.readUInt32LE(central)).toBe(0x02014b50);
    bytes.writeUInt32LE(1000, central + 24);
    const message = await refusal('docx', new Uint8Array(bytes));
    expect(message).toMatch(/damaged zip archive/);
  });

  it('entry names that climb out of the folder or are absolute are refused', async () => {
    const base = await docxWith({ 'aa/evil.txt': 'x', 'Xbsolute.txt': 'y' });
    expect(await refusal('docx', renameEntry(base, 'aa/evil.txt', '../evil.txt'))).toMatch(/"\.\." path segment/);
    expect(await refusal('docx', renameEntry(base, 'Xbsolute.txt', '/bsolute.txt'))).toMatch(/absolute path/);
    // A backslash is read as a slash, so Windows-style climbing is refused too.
    expect(await refusal('docx', renameEntry(base, 'aa/evil.txt', '..\\evil.txt'))).toMatch(/"\.\." path segment/);
  });

  it('more entries than the limit is refused without reading them', async () => {
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra/${i}.txt`, `${i}`]));
    const message = await refusal('docx', await docxWith(extra), { ...LIMITS, maxZipEntries: 40 });
    expect(message).toMatch(/has \d+ zip entries; at most 40/);
  });

  it('more characters of text than the limit is refused', async () => {
    expect(await refusal('docx', await makeDocx(), { ...LIMITS, maxCharacters: 50 })).toMatch(/characters of text; at most 50/);
  });

  it('bytes that are no zip are claimed by no zip format and refused by each', async () => {
    const junk = new Uint8Array(randomBytes(5000));
    junk.set([0x50, 0x4b, 0x03, 0x04]);
    for (const f of zipFormats) {
      expect(f.sniff(junk, 'x.docx'), f.id).toBe(false);
      await refusal(f.id, junk);
    }
  });
});

describe('XML inside documents', () => {
  it('XXE in word/document.xml is refused (no DOCTYPE), and nothing of the file system shows', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>`;
    const message = await refusal('docx', await docxWith({ 'word/document.xml': xxe }));
    expect(message).toMatch(/word\/document\.xml.*DOCTYPE/);
    expect(message).not.toMatch(/root:/);
  });

  it('a billion laughs in xl/sharedStrings.xml is refused at once', async () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE sst [<!ENTITY a "lollollollollollollollollollol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('')}]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>&j;</t></si></sst>`;
    const entries = (await unzip(await makeXlsx())).map((e): [string, string | Uint8Array] => [e.name, e.name === 'xl/sharedStrings.xml' ? lol : e.data]);
    const started = Date.now();
    expect(await refusal('xlsx', await zipOf(entries))).toMatch(/sharedStrings\.xml.*DOCTYPE/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('an EPUB chapter may carry <!DOCTYPE html> but not an internal subset (entity declarations)', async () => {
    const entries = (await unzip(await makeEpub3())).map((e): [string, string | Uint8Array] => [
      e.name,
      e.name === 'OEBPS/chapter1.xhtml' ? e.data.toString('utf8').replace('<!DOCTYPE html>', '<!DOCTYPE html [<!ENTITY x SYSTEM "file:///etc/passwd">]>') : e.data,
    ]);
    expect(await refusal('epub', await zipOf(entries))).toMatch(/chapter1\.xhtml.*DOCTYPE/);
  });

  it('malformed XML names the part', async () => {
    expect(await refusal('docx', await docxWith({ 'word/document.xml': '<w:document xmlns:w="x"><w:body>' }))).toMatch(/word\/document\.xml.*not well-formed/);
  });
});

describe('encrypted files', () => {
  it('an ODF package whose manifest has encryption data is refused as encrypted', async () => {
    const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="1234">
  <manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="AAAA">
   <manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="AAAA"/>
   <manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="AAAA"/>
  </manifest:encryption-data>
 </manifest:file-entry>
</manifest:manifest>`;
    const odt = await zipOf([
      ['mimetype', 'application/vnd.oasis.opendocument.text'],
      ['META-INF/manifest.xml', manifest],
      ['content.xml', randomBytes(1234)],
    ]);
    expect(format('odt').sniff(odt, 'x.bin')).toBe(true);
    expect(await refusal('odt', odt)).toMatch(/encrypted \(password-protected\)/);
  });
});
