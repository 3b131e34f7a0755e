// A plain DOCX made by npm's docx (one paragraph per string) and the paragraphs' text read back with yauzl and
// saxes: what a translated file holds, read without the code under test.
import { Document, Packer, Paragraph } from 'docx';
import { descendants, textUnder, unzip, xmlTree } from './zip-helpers.ts';

export async function docxOf(paragraphs: readonly string[]): Promise<Buffer> {
  const doc = new Document({ sections: [{ children: paragraphs.map((p) => new Paragraph(p)) }] });
  return Packer.toBuffer(doc);
}

export async function docxParagraphs(bytes: Uint8Array): Promise<string[]> {
  const part = (await unzip(bytes)).find((e) => e.name === 'word/document.xml');
  if (!part) throw new Error('no word/document.xml in the file');
  return descendants(xmlTree(part.data.toString('utf8')), 'w:p').map((p) => textUnder(p, 'w:t'));
}
