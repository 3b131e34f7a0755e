// LibreTranslate's file translation as its web page calls it: POST /libretranslate/translate_file with a
// FormData (file, source=auto, target, api_key) answers translatedFileUrl once done; the URL serves the file.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { SAMPLES } from './samples.ts';

let t: TestApp;
let key: { id: string; secret: string };

beforeAll(async () => {
  t = await startTestApp();
  key = await t.key();
});

afterAll(async () => {
  await t?.close();
});

function form(fields: Record<string, string>, file?: { name: string; text: string }): FormData {
  const f = new FormData();
  if (file) f.set('file', new Blob([Buffer.from(file.text)]), file.name);
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}

describe('LibreTranslate /translate_file and /download_file', () => {
  it('translates a subtitle file synchronously and serves it at translatedFileUrl', async () => {
    const srt = SAMPLES.find((s) => s.name === 'film.srt')!;
    const r = await fetch(`${t.url}/libretranslate/translate_file`, {
      method: 'POST',
      body: form({ source: 'auto', target: 'de', api_key: key.secret }, { name: srt.name, text: srt.text }),
    });
    const body = (await r.json()) as { translatedFileUrl: string };
    expect(r.status, JSON.stringify(body)).toBe(200);
    expect(body.translatedFileUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/libretranslate\/download_file\/[0-9a-f]{64}-film\.de\.srt$/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');

    const file = await fetch(body.translatedFileUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain('filename="film.de.srt"');
    const text = await file.text();
    for (const kept of srt.kept) expect(text).toContain(kept);
    expect(text).not.toBe(srt.text);
    // The same text through /translate gives the same words: the two-line cue as one sentence, set on its lines again.
    const tr = await fetch(`${t.url}/libretranslate/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'The children play in the garden.', source: 'en', target: 'de', format: 'html', api_key: key.secret }),
    });
    const expected = ((await tr.json()) as { translatedText: string }).translatedText;
    const cue = text.split('\r\n\r\n')[1]!.split('\r\n').slice(2).filter((l) => l !== '');
    expect(cue.join(' ')).toBe(expected);
    const used = await t.app.store.usage(key.id, new Date(t.clock.now()).toISOString().slice(0, 7));
    expect(used.chars).toBeGreaterThan(0);
  });

  it('refusals in LibreTranslate\'s error body: no key, no file, a PDF; an unknown download is 404', async () => {
    const noKey = await fetch(`${t.url}/libretranslate/translate_file`, { method: 'POST', body: form({ target: 'de' }, { name: 'a.txt', text: 'The house.' }) });
    expect(noKey.status).toBe(403);
    expect(((await noKey.json()) as any).error).toMatch(/API key/);
    const noFile = await fetch(`${t.url}/libretranslate/translate_file`, { method: 'POST', body: form({ target: 'de', api_key: key.secret }) });
    expect(noFile.status).toBe(400);
    expect(await noFile.json()).toEqual({ error: 'Invalid request: missing file parameter' });
    const pdf = await fetch(`${t.url}/libretranslate/translate_file`, { method: 'POST', body: form({ target: 'de', api_key: key.secret }, { name: 'a.pdf', text: '%PDF-1.4\n' }) });
    expect(pdf.status).toBe(400);
    expect(((await pdf.json()) as any).error).toMatch(/PDF/);
    const missing = await fetch(`${t.url}/libretranslate/download_file/${'0'.repeat(64)}-a.de.txt`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error).toMatch(/No such file/);
  });

  it('translate_file with two different api_key fields is a 400 and charges neither; the same key twice is one key', async () => {
    const other = await t.key();
    const used = async (id: string) => (await t.app.store.usage(id, new Date(t.clock.now()).toISOString().slice(0, 7))).chars;
    const before = [await used(key.id), await used(other.id)];
    const jobs = readdirSync(join(t.dataDir, 'documents')).length;
    const twoKeys = (first: string, second: string) => {
      const f = form({ source: 'en', target: 'de' }, { name: 'a.txt', text: 'The house is small.' });
      f.append('api_key', first);
      f.append('api_key', second);
      return fetch(`${t.url}/libretranslate/translate_file`, { method: 'POST', body: f });
    };
    for (const [first, second] of [[key.secret, other.secret], [other.secret, key.secret]]) {
      const r = await twoKeys(first!, second!);
      expect(r.status).toBe(400);
      expect(((await r.json()) as any).error).toMatch(/two different API keys/);
    }
    expect([await used(key.id), await used(other.id)]).toEqual(before);
    expect(readdirSync(join(t.dataDir, 'documents'))).toHaveLength(jobs);
    // The same key twice, or an empty key field (the npm client's "no key") beside one: that key.
    expect((await twoKeys(key.secret, key.secret)).status).toBe(200);
    expect((await twoKeys('', other.secret)).status).toBe(200);
    expect(await used(other.id)).toBeGreaterThan(before[1]!);
  });

  it('download_file serves translate_file jobs by their token only: never by a job id, never a /v1 or DeepL job', async () => {
    const f = await fetch(`${t.url}/libretranslate/translate_file`, {
      method: 'POST',
      body: form({ source: 'en', target: 'de', api_key: key.secret }, { name: 'a.txt', text: 'The house is small.' }),
    });
    const url = ((await f.json()) as { translatedFileUrl: string }).translatedFileUrl;
    const token = /download_file\/([0-9a-f]{64})-/.exec(url)![1]!;
    expect((await fetch(url)).status).toBe(200);
    // The job behind it, as its owner sees it in /v1/documents: its id is not the token, and does not download.
    const ids = readdirSync(join(t.dataDir, 'documents'));
    expect(ids).not.toContain(token.slice(0, 32));
    for (const id of ids) {
      for (const name of [`${id}-x`, `${id}-a.de.txt`, `${id}${id}-x`]) {
        const r = await fetch(`${t.url}/libretranslate/download_file/${name}`);
        expect(r.status, name).toBe(404);
      }
    }
    // A /v1 job and a DeepL job, finished: no download_file name reaches them.
    const v1 = await fetch(`${t.url}/v1/documents`, { method: 'POST', headers: { 'x-api-key': key.secret }, body: form({ source: 'en', target: 'de' }, { name: 'b.txt', text: 'The cat sleeps.' }) });
    const v1Id = ((await v1.json()) as any).data.document.id as string;
    const deepl = await fetch(`${t.url}/v2/document`, { method: 'POST', headers: { authorization: `DeepL-Auth-Key ${key.secret}` }, body: form({ source_lang: 'EN', target_lang: 'DE' }, { name: 'c.txt', text: 'The dog runs.' }) });
    const deeplId = ((await deepl.json()) as any).document_id as string;
    for (const id of [v1Id, deeplId]) {
      for (let n = 0; ; n++) {
        const s = await fetch(`${t.url}/v1/documents/${id}`, { headers: { 'x-api-key': key.secret } });
        if (((await s.json()) as any).data.document.status === 'done') break;
        expect(n).toBeLessThan(300);
        await new Promise((r) => setTimeout(r, 100));
      }
      const r = await fetch(`${t.url}/libretranslate/download_file/${id}-x`);
      expect(r.status).toBe(404);
      expect(await r.json()).toEqual({ error: 'No such file: the link is wrong, or the file has expired.' });
    }
    // A token that differs in one digit is another (unknown) token.
    const other = token.slice(0, 63) + (token[63] === '0' ? '1' : '0');
    expect((await fetch(`${t.url}/libretranslate/download_file/${other}-a.de.txt`)).status).toBe(404);
  });
});
