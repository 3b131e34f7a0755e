// DeepL's wire format by hand (fetch): JSON and form bodies, the parameters and what each one does, the error bodies,
// the v3 glossary edits, and DRAGOMAN_DEEPL_COMPAT=off.
import * as deepl from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';

let server: CompatServer;
let secret: string;

beforeAll(async () => {
  server = await startCompatServer();
  secret = (await server.key()).secret;
});

afterAll(async () => {
  await server?.close();
});

/** `key` null: no Authorization header. */
async function post(path: string, body: Record<string, unknown> | URLSearchParams, key: string | null = secret) {
  const form = body instanceof URLSearchParams;
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers: {
      ...(key !== null ? { authorization: `DeepL-Auth-Key ${key}` } : {}),
      'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
    },
    body: form ? body.toString() : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() as any };
}

describe('/v2/translate by hand', () => {
  it('takes a form with repeated text fields and a JSON body alike', async () => {
    const form = new URLSearchParams([['text', 'The house is small.'], ['text', 'The dog runs.'], ['target_lang', 'DE'], ['source_lang', 'EN']]);
    const a = await post('/v2/translate', form);
    const b = await post('/v2/translate', { text: ['The house is small.', 'The dog runs.'], target_lang: 'de', source_lang: 'en' });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body.translations.map((t: { text: string }) => t.text)).toEqual(await reference(server.service, ['The house is small.', 'The dog runs.'], 'de', 'en'));
    expect(a.body.translations[0]).toEqual({ detected_source_language: 'EN', text: expect.any(String) });
  });

  it('split_sentences=0 translates each text as one segment; 1 cuts at sentences and lines; nonewlines reads lines as spaces', async () => {
    const text = 'The house is small.\nThe dog runs.';
    const whole = await post('/v2/translate', { text: [text], target_lang: 'DE', source_lang: 'EN', split_sentences: '0' });
    const split = await post('/v2/translate', { text: [text], target_lang: 'DE', source_lang: 'EN', split_sentences: '1' });
    const noNl = await post('/v2/translate', { text: [text], target_lang: 'DE', source_lang: 'EN', split_sentences: 'nonewlines' });
    const [expectedWhole] = await reference(server.service, text.replace('\n', ' '), 'de', 'en');
    expect(split.body.translations[0].text).toBe((await reference(server.service, text, 'de', 'en'))[0]);
    expect(split.body.translations[0].text).toContain('\n');
    expect(noNl.body.translations[0].text).not.toContain('\n');
    expect(noNl.body.translations[0].text).toBe(expectedWhole);
    // One segment, newline and all, straight to the engine.
    expect(whole.body.translations[0].text).toBe((await server.app.engine.translate([text], 'eng_Latn', 'deu_Latn')).translations[0]);
  });

  it('answers billed_characters only when asked, and never bills context', async () => {
    const key = (await server.key()).secret;
    const r = await post('/v2/translate', { text: ['Hello!'], target_lang: 'DE', context: 'x'.repeat(500) }, key);
    expect(r.body.translations[0]).not.toHaveProperty('billed_characters');
    const usage = await fetch(`${server.url}/v2/usage`, { headers: { authorization: `DeepL-Auth-Key ${key}` } }).then((x) => x.json());
    expect(usage.character_count).toBe(6);
  });

  it('refuses bad parameters with 400 and DeepL-like messages', async () => {
    const base = { text: ['Hi.'], target_lang: 'DE' };
    const bad = async (body: Record<string, unknown>) => {
      const r = await post('/v2/translate', body);
      expect(r.status).toBe(400);
      return r.body.message as string;
    };
    expect(await bad({ target_lang: 'DE' })).toBe("Parameter 'text' not specified.");
    expect(await bad({ text: ['Hi.'] })).toBe("Parameter 'target_lang' not specified.");
    expect(await bad({ ...base, source_lang: 'QQ' })).toBe("Value for 'source_lang' not supported.");
    expect(await bad({ ...base, split_sentences: '2' })).toBe("Value for 'split_sentences' not supported.");
    expect(await bad({ ...base, tag_handling: 'markdown' })).toBe("Value for 'tag_handling' not supported.");
    expect(await bad({ ...base, formality: 'less' })).toMatch(/formality/);
    expect(await bad({ ...base, glossary_id: 'x' })).toMatch(/source_lang/);
  });

  it("messages name DeepL's parameters and paths, never /v1's or the q of other surfaces", async () => {
    const many = await post('/v2/translate', { text: Array.from({ length: 20_000 }, () => 'a'), target_lang: 'DE' });
    expect(many.status).toBe(400);
    expect(many.body.message).toBe("Too many strings in 'text': 20000 were sent, the maximum is 128 per request. Split them over several requests.");
    const long = await post('/v2/translate', { text: ['a'.repeat(100_001)], target_lang: 'DE' });
    expect(long.body.message).toMatch(/^Request too long: 'text' has 100001 characters/);
    // As a form: more fields than any request may have.
    const form = await post('/v2/translate', new URLSearchParams([['target_lang', 'DE'], ...Array.from({ length: 300 }, (_, i) => [`f${i}`, 'a'])]));
    expect(form.status).toBe(400);
    expect(form.body.message).toMatch(/strings in 'text'/);
    const wrongKey = await post('/v2/translate', { text: ['Hi.'], target_lang: 'DE' }, 'dk_wrong_key_0000000000000000');
    expect(wrongKey.status).toBe(403);
    expect(wrongKey.body.message).toMatch(/DeepL-Auth-Key/);
    const typed = await fetch(`${server.url}/v2/translate`, { method: 'POST', headers: { authorization: `DeepL-Auth-Key ${secret}`, 'content-type': 'text/csv' }, body: 'a,b' });
    expect(typed.status).toBe(415);
    expect(((await typed.json()) as { message: string }).message).toMatch(/application\/x-www-form-urlencoded/);
    for (const r of [many, long, form, wrongKey]) {
      expect(r.body.message).not.toMatch(/'q'|\bq\[|\/v1\/|X-API-Key|\bsource\b(?!_lang)/);
    }
  });

  it('errors: 403 without a key, 456 over quota, 404 for an unknown path, all as {"message"}', async () => {
    const none = await post('/v2/translate', { text: ['Hi.'], target_lang: 'DE' }, null);
    expect(none.status).toBe(403);
    expect(Object.keys(none.body)).toEqual(['message']);
    const small = (await server.key({ plan: 'free', monthlyChars: 2 })).secret;
    const over = await post('/v2/translate', { text: ['Hello there.'], target_lang: 'DE' }, small);
    expect(over.status).toBe(456);
    expect(over.body.message).toMatch(/quota|characters/i);
    const lost = await post('/v2/nothing-here', {});
    expect(lost.status).toBe(404);
    expect(Object.keys(lost.body)).toEqual(['message']);
    // A document upload without its multipart file part is a 400 that says so.
    const fileless = await post('/v2/document', {});
    expect(fileless.status).toBe(400);
    expect(fileless.body.message).toMatch(/file/);
  });
});

describe('v3 glossary edits through deepl-node', () => {
  it('renames, replaces and removes a dictionary', async () => {
    const client = new deepl.DeepLClient(secret, { serverUrl: server.url, maxRetries: 0 });
    const g = await client.createMultilingualGlossary('first', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { house: 'Haus' } }) },
    ]);
    expect((await client.updateMultilingualGlossaryName(g.glossaryId, 'second')).name).toBe('second');
    const replaced = await client.replaceMultilingualGlossaryDictionary(g.glossaryId, {
      sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { dog: 'Hund', cat: 'Katze' } }),
    });
    expect(replaced.entryCount).toBe(2);
    const merged = await client.updateMultilingualGlossaryDictionary(g.glossaryId, {
      sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { bird: 'Vogel' } }),
    });
    expect(merged.dictionaries[0]!.entryCount).toBe(3);
    await client.deleteMultilingualGlossaryDictionary(g.glossaryId, 'en', 'de');
    expect((await client.getMultilingualGlossary(g.glossaryId)).dictionaries).toEqual([]);
  });
});

describe('DRAGOMAN_DEEPL_COMPAT=off', () => {
  it('removes the surface', async () => {
    const off = await startCompatServer({ DRAGOMAN_DEEPL_COMPAT: 'off' });
    try {
      const key = (await off.key()).secret;
      const res = await fetch(`${off.url}/v2/usage`, { headers: { authorization: `DeepL-Auth-Key ${key}` } });
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe(404);
    } finally {
      await off.close();
    }
  });
});
