// The official deepl-node client's document translation (translateDocument, uploadDocument, getDocumentStatus,
// downloadDocument) pointed at a real Dragoman server with serverUrl: a DOCX made by npm's docx and a plain text
// file come back with each paragraph as /v1/translate translates it, billed as /v1/usage counts, with a glossary
// applied; keys own their documents; errors are the ones deepl-node raises for DeepL's own answers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as deepl from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docxOf, docxParagraphs } from '../documents/docx-text.ts';
import { type CompatServer, startCompatServer } from '../google/harness.ts';

const PARAGRAPHS = ['The house is small.', 'The weather is very nice today and we are going to the park.', 'A man is riding a bicycle.'];

let server: CompatServer;
let dir: string;
let secret: string;
let client: deepl.DeepLClient;

const clientWith = (key: string) => new deepl.DeepLClient(key, { serverUrl: server.url, maxRetries: 0, sendPlatformInfo: false });

beforeAll(async () => {
  server = await startCompatServer();
  dir = mkdtempSync(join(tmpdir(), 'dragoman-deepl-docs-'));
  secret = (await server.key({ rpm: null })).secret;
  client = clientWith(secret);
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(() => { throw new Error('expected a rejection'); }, (err: unknown) => err as Error);
}

/** /v1/translate's translation of each text, with the same key (and glossary). */
async function v1Translate(key: string, q: string[], extra: Record<string, string> = {}): Promise<string[]> {
  const res = await fetch(`${server.url}/v1/translate`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ q, source: 'en', target: 'de', ...extra }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { translations: { translatedText: string }[] } }).data.translations.map((t) => t.translatedText);
}

async function charactersUsed(key: string): Promise<number> {
  const res = await fetch(`${server.url}/v1/usage`, { headers: { 'x-api-key': key } });
  return ((await res.json()) as { data: { charactersUsed: number } }).data.charactersUsed;
}

function file(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('deepl-node translateDocument against Dragoman', () => {
  it('a DOCX: each paragraph as /v1/translate gives it, billed characters as /v1/usage counts them', async () => {
    const key = await server.key({ rpm: null });
    const c = clientWith(key.secret);
    const input = file('report.docx', await docxOf(PARAGRAPHS));
    const output = join(dir, 'report.de.docx');
    const before = await charactersUsed(key.secret);
    const status = await c.translateDocument(input, output, 'en', 'de');
    const used = (await charactersUsed(key.secret)) - before;

    expect(status.done()).toBe(true);
    expect(await docxParagraphs(readFileSync(output))).toEqual(await v1Translate(key.secret, PARAGRAPHS));
    expect(status.billedCharacters).toBe(PARAGRAPHS.join('').length);
    expect(used).toBe(status.billedCharacters);
  });

  it('a plain text file with a detected source (null): each paragraph as /v1/translate gives it', async () => {
    const input = file('notes.txt', PARAGRAPHS.join('\n\n') + '\n');
    const output = join(dir, 'notes.de.txt');
    const status = await client.translateDocument(input, output, null, 'de');
    expect(status.done()).toBe(true);
    expect(readFileSync(output, 'utf8')).toBe((await v1Translate(secret, PARAGRAPHS)).join('\n\n') + '\n');
  });

  it("with a glossary: the term comes back as the glossary's target, as /v1/translate gives it with the glossary", async () => {
    const g = await client.createGlossary('terms', 'en', 'de', new deepl.GlossaryEntries({ entries: { house: 'Vertrag' } }));
    const input = file('terms.docx', await docxOf(PARAGRAPHS));
    const withGlossary = join(dir, 'terms.glossary.docx');
    await client.translateDocument(input, withGlossary, 'en', 'de', { glossary: g.glossaryId });
    const paragraphs = await docxParagraphs(readFileSync(withGlossary));
    expect(paragraphs[0]).toContain('Vertrag');
    expect((await v1Translate(secret, PARAGRAPHS))[0]).not.toContain('Vertrag');
    expect(paragraphs).toEqual(await v1Translate(secret, PARAGRAPHS, { glossary: g.glossaryId }));
  });
});

describe('deepl-node translateDocument with translationMemory against Dragoman', () => {
  const STORED = { source: PARAGRAPHS[0]!, target: 'Dieses Häuschen stammt aus dem Gedächtnis.' };
  const TMX = `<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" segtype="sentence" o-tmf="test" adminlang="en" datatype="plaintext" creationtool="test" creationtoolversion="1"/>
<body><tu><tuv xml:lang="en"><seg>${STORED.source}</seg></tuv><tuv xml:lang="de"><seg>${STORED.target}</seg></tuv></tu></body></tmx>
`;

  it('exact paragraphs come back as stored, the others as /v1/translate gives them; another key gets not found', async () => {
    const key = await server.key({ rpm: null });
    const c = clientWith(key.secret);
    const job = await c.importTranslationMemoryFromFilepath(file('memory.tmx', TMX), { displayName: 'Docs', timeoutMs: 20_000 });
    const memoryId = job.results[0]!.translationMemoryId!;
    const input = file('memory.docx', await docxOf(PARAGRAPHS));
    const output = join(dir, 'memory.de.docx');
    const status = await c.translateDocument(input, output, 'en', 'de', { translationMemory: memoryId, translationMemoryThreshold: 80 });
    expect(status.done()).toBe(true);
    const machine = await v1Translate(key.secret, PARAGRAPHS.slice(1));
    expect(machine).not.toContain(STORED.target);
    expect(await docxParagraphs(readFileSync(output))).toEqual([STORED.target, ...machine]);
    expect(status.billedCharacters).toBe(PARAGRAPHS.join('').length);
    const usage = await fetch(`${server.url}/v1/usage`, { headers: { 'x-api-key': key.secret } }).then((r) => r.json() as Promise<any>);
    expect(usage.data.memoryCharactersServed).toBe(STORED.source.length);
    // Another key: DeepL's not-found answer, wrapped by translateDocument as its DocumentTranslationError.
    const err = await rejection(client.translateDocument(input, join(dir, 'other.de.docx'), 'en', 'de', { translationMemory: memoryId }));
    expect(err).toBeInstanceOf(deepl.DocumentTranslationError);
    expect((err as deepl.DocumentTranslationError).error).toBeInstanceOf(deepl.DeepLError);
    expect(String((err as deepl.DocumentTranslationError).error?.message)).toMatch(/Translation memory '[^']+' not found/);
  });
});

describe('deepl-node upload, status and download against Dragoman', () => {
  it('uploads, reports the status until done, downloads once; the document is then gone', async () => {
    const handle = await client.uploadDocument(file('steps.txt', PARAGRAPHS.join('\n\n')), 'en', 'de');
    expect(handle.documentId).toMatch(/^[0-9a-f]{32}$/);
    expect(handle.documentKey).toMatch(/^[0-9a-f]{64}$/);
    let status = await client.getDocumentStatus(handle);
    for (let i = 0; !status.done() && status.ok() && i < 300; i++) {
      expect(['queued', 'translating']).toContain(status.status);
      await new Promise((r) => setTimeout(r, 100));
      status = await client.getDocumentStatus(handle);
    }
    expect(status.status).toBe('done');
    expect(status.billedCharacters).toBe(PARAGRAPHS.join('').length);
    const out = join(dir, 'steps.de.txt');
    await client.downloadDocument(handle, out);
    expect(readFileSync(out, 'utf8')).toBe((await v1Translate(secret, PARAGRAPHS)).join('\n\n'));
    // Deleted after its download, as DeepL does: a second download and a status both say it is not found.
    await new Promise((r) => setTimeout(r, 100));
    expect(await rejection(client.downloadDocument(handle, join(dir, 'again.txt')))).toBeInstanceOf(deepl.DeepLError);
    expect((await rejection(client.getDocumentStatus(handle))).message).toMatch(/^Not found/);
  });

  it('a result asked for before it is done is a DocumentNotReadyError (503)', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `The house number ${i} is small and the weather is nice.`);
    const handle = await client.uploadDocument(file('long.txt', many.join('\n\n')), 'en', 'de');
    const err = await rejection(client.downloadDocument(handle, join(dir, 'long.de.txt')));
    expect(err).toBeInstanceOf(deepl.DocumentNotReadyError);
    expect(['queued', 'translating']).toContain((await client.getDocumentStatus(handle)).status);
  });

  it('an unknown document, a wrong document_key and another key all get the 404 of an unknown document', async () => {
    const handle = await client.uploadDocument(file('mine.txt', PARAGRAPHS[0]!), 'en', 'de');
    const other = clientWith((await server.key()).secret);
    const cases: [deepl.DeepLClient, deepl.DocumentHandle][] = [
      [client, { documentId: '0'.repeat(32), documentKey: '0'.repeat(64) }],
      [client, { documentId: handle.documentId, documentKey: '0'.repeat(64) }],
      [other, handle],
    ];
    for (const [c, h] of cases) {
      const err = await rejection(c.getDocumentStatus(h));
      expect(err).toBeInstanceOf(deepl.DeepLError);
      expect(err.message).toMatch(/^Not found/);
      const download = await rejection(c.downloadDocument(h, join(dir, 'nothing.txt')));
      expect(download).toBeInstanceOf(deepl.DeepLError);
      expect(download).not.toBeInstanceOf(deepl.DocumentNotReadyError);
    }
    // The owner with the right key still reads it.
    expect((await client.getDocumentStatus(handle)).ok()).toBe(true);
  });
});

describe('deepl-node document errors against Dragoman', () => {
  it('a wrong key is an AuthorizationError (inside translateDocument, its DocumentTranslationError)', async () => {
    const input = file('auth.txt', PARAGRAPHS[0]!);
    expect(await rejection(clientWith('dk_wrong').uploadDocument(input, 'en', 'de'))).toBeInstanceOf(deepl.AuthorizationError);
    const err = await rejection(clientWith('dk_wrong').translateDocument(input, join(dir, 'auth.de.txt'), 'en', 'de'));
    expect(err).toBeInstanceOf(deepl.DocumentTranslationError);
    expect((err as deepl.DocumentTranslationError).error).toBeInstanceOf(deepl.AuthorizationError);
  });

  it('over the quota is a QuotaExceededError and nothing is charged', async () => {
    const small = await server.key({ plan: 'free', monthlyChars: 20, rpm: null });
    const err = await rejection(clientWith(small.secret).uploadDocument(file('quota.txt', PARAGRAPHS.join('\n\n')), 'en', 'de'));
    expect(err).toBeInstanceOf(deepl.QuotaExceededError);
    expect(await charactersUsed(small.secret)).toBe(0);
  });

  it("what cannot be done is refused as DeepL refuses it: formality 'more', a conversion, equal languages, a glossary", async () => {
    const input = file('refused.txt', PARAGRAPHS[0]!);
    const more = await rejection(client.uploadDocument(input, 'en', 'de', { formality: 'more' }));
    expect(more).toBeInstanceOf(deepl.DeepLError);
    expect(more.message).toMatch(/formality/);
    const convert = await rejection(client.uploadDocument(input, 'en', 'de', { extraRequestParameters: { output_format: 'pdf' } }));
    expect(convert.message).toMatch(/output_format/);
    const same = await rejection(client.uploadDocument(input, 'de', 'de'));
    expect(same.message).toMatch(/Source and target language are equal/);
    // Glossaries: an unknown one is DeepL's 404, one without the document's pair a 400; neither is charged.
    const before = await charactersUsed(secret);
    const unknown = await rejection(client.uploadDocument(input, 'en', 'de', { glossary: '00000000-0000-0000-0000-000000000000' }));
    expect(unknown.message).toMatch(/^Not found.*Glossary/);
    const reversed = await client.createGlossary('reversed', 'de', 'en', new deepl.GlossaryEntries({ entries: { Haus: 'building' } }));
    const pair = await rejection(client.uploadDocument(input, 'en', 'de', { glossary: reversed.glossaryId }));
    expect(pair.message).toMatch(/^Bad request.*has no entries for en→de/);
    expect(await charactersUsed(secret)).toBe(before);
    // 'prefer_more' falls back to the default, as DeepL's does.
    const h = await client.uploadDocument(input, 'en', 'de', { formality: 'prefer_more', extraRequestParameters: { output_format: 'txt' } });
    expect(h.documentId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('the wire format: upload answers exactly {document_id, document_key}; a file-less upload is a 400 with a message', async () => {
    const form = new FormData();
    form.set('target_lang', 'DE');
    form.set('source_lang', 'EN');
    form.set('file', new Blob([Buffer.from(PARAGRAPHS[0]!)]), 'wire.txt');
    const auth = { authorization: `DeepL-Auth-Key ${secret}` };
    const res = await fetch(`${server.url}/v2/document`, { method: 'POST', headers: auth, body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual(['document_id', 'document_key']);
    const status = await fetch(`${server.url}/v2/document/${body.document_id}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ document_key: body.document_key }),
    });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ document_id: body.document_id, status: expect.stringMatching(/^(queued|translating|done)$/) });

    const empty = new FormData();
    empty.set('target_lang', 'DE');
    const bad = await fetch(`${server.url}/v2/document`, { method: 'POST', headers: auth, body: empty });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/file/);
    const noKey = await fetch(`${server.url}/v2/document/${body.document_id}`, { method: 'POST', headers: auth });
    expect(noKey.status).toBe(400);
    expect(await noKey.json()).toEqual({ message: "Parameter 'document_key' not specified." });
  });
});
