// LibreTranslate's file translation as its web page calls it: POST /libretranslate/translate_file with a
// FormData (file, source=auto, target, api_key) answers translatedFileUrl once done; the URL serves the file.
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
    expect(body.translatedFileUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/libretranslate\/download_file\/[0-9a-f]{32}-film\.de\.srt$/);
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
    const missing = await fetch(`${t.url}/libretranslate/download_file/${'0'.repeat(32)}-a.de.txt`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error).toMatch(/No document/);
  });
});
