// /v1/glossaries against the real app (SQLite here; PostgreSQL in the api-on-postgres project): made from JSON or
// TSV, listed, read, deleted, owned by one key, within the limits, and used by /v1/translate's `glossary` field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_GLOSSARY_MAX_ENTRIES: '3', DRAGOMAN_GLOSSARY_MAX_TERM_CHARS: '20' });
  key = (await t.key()).secret;
});

afterAll(async () => {
  await t?.close();
});

const HOUSE = { name: 'house terms', source: 'en', target: 'de', entries: [{ source: 'house', target: 'Vertrag' }, { source: 'small', target: 'winzig' }] };

describe('/v1/glossaries', () => {
  it('creates from JSON (201), then lists, reads, gives entries and deletes (204)', async () => {
    const made = await t.call('POST', '/v1/glossaries', { key, body: HOUSE });
    expect(made.status).toBe(201);
    const g = made.body.data.glossary;
    expect(g).toMatchObject({ name: 'house terms', source: 'en', target: 'de', entryCount: 2 });
    expect(typeof g.id).toBe('string');
    expect(new Date(g.createdAt).toISOString()).toBe(g.createdAt);

    expect((await t.call('GET', '/v1/glossaries', { key })).body.data.glossaries.map((x: { id: string }) => x.id)).toContain(g.id);
    expect((await t.call('GET', `/v1/glossaries/${g.id}`, { key })).body.data.glossary).toEqual(g);
    expect((await t.call('GET', `/v1/glossaries/${g.id}/entries`, { key })).body.data.entries).toEqual(HOUSE.entries);

    expect((await t.call('DELETE', `/v1/glossaries/${g.id}`, { key })).status).toBe(204);
    expectErrorShape(await t.call('GET', `/v1/glossaries/${g.id}`, { key }), 404, 'invalid_request');
  });

  it('creates from TSV, as a JSON string or as a text/tab-separated-values body', async () => {
    const a = await t.call('POST', '/v1/glossaries', { key, body: { name: 'tsv', source: 'en', target: 'de', entries: 'house\tHaus\nsmall\tklein\n' } });
    expect(a.status).toBe(201);
    expect(a.body.data.glossary.entryCount).toBe(2);
    const b = await t.call('POST', '/v1/glossaries?name=raw&source=en&target=de', { key, raw: 'dog\tHund', headers: { 'content-type': 'text/tab-separated-values' } });
    expect(b.status).toBe(201);
    const entries = await t.call('GET', `/v1/glossaries/${b.body.data.glossary.id}/entries`, { key });
    expect(entries.body.data.entries).toEqual([{ source: 'dog', target: 'Hund' }]);
  });

  it("another key's glossary is a 404 everywhere, translate included", async () => {
    const g = (await t.call('POST', '/v1/glossaries', { key, body: HOUSE })).body.data.glossary;
    const other = (await t.key()).secret;
    expectErrorShape(await t.call('GET', `/v1/glossaries/${g.id}`, { key: other }), 404, 'invalid_request');
    expectErrorShape(await t.call('DELETE', `/v1/glossaries/${g.id}`, { key: other }), 404, 'invalid_request');
    expect((await t.call('GET', '/v1/glossaries', { key: other })).body.data.glossaries).toEqual([]);
    expectErrorShape(await t.call('POST', '/v1/translate', { key: other, body: { q: 'The house.', source: 'en', target: 'de', glossary: g.id } }), 404, 'invalid_request');
    expect((await t.call('GET', `/v1/glossaries/${g.id}`, { key })).status).toBe(200);
  });

  it('refuses bad entries with specific messages, and more entries or longer terms than the limits', async () => {
    const bad = async (body: unknown) => expectErrorShape(await t.call('POST', '/v1/glossaries', { key, body }), 400, 'invalid_request');
    expect(await bad({ ...HOUSE, name: '' })).toMatch(/name/);
    expect(await bad({ ...HOUSE, source: 'xx-nope' })).toMatch(/source language/);
    expect(await bad({ ...HOUSE, target: 'en' })).toMatch(/must differ/);
    expect(await bad({ ...HOUSE, entries: [{ source: 'a', target: '' }] })).toMatch(/entries\[0\].*empty/);
    expect(await bad({ ...HOUSE, entries: [{ source: 'a', target: 'b' }, { source: 'A', target: 'c' }] })).toMatch(/already/);
    expect(await bad({ ...HOUSE, entries: 'one column only' })).toMatch(/line 1/);
    expect(await bad({ ...HOUSE, entries: [{ source: 'x'.repeat(21), target: 'y' }] })).toMatch(/DRAGOMAN_GLOSSARY_MAX_TERM_CHARS/);
    const many = await t.call('POST', '/v1/glossaries', { key, body: { ...HOUSE, entries: 'a\tb\nc\td\ne\tf\ng\th' } });
    expect(expectErrorShape(many, 413, 'invalid_request')).toMatch(/DRAGOMAN_GLOSSARY_MAX_ENTRIES/);
  });

  it('translate with `glossary` puts the target term in, and leaves sentences without a term as they were', async () => {
    const g = (await t.call('POST', '/v1/glossaries', { key, body: HOUSE })).body.data.glossary;
    const withTerm = await t.call('POST', '/v1/translate', { key, body: { q: 'The house is big.', source: 'en', target: 'de', glossary: g.id } });
    expect(withTerm.status).toBe(200);
    expect(withTerm.body.data.translations[0].translatedText.match(/\bVertrag\b/g)).toHaveLength(1);
    const plain = 'A man is riding a bicycle.';
    const a = await t.call('POST', '/v1/translate', { key, body: { q: plain, source: 'en', target: 'de', glossary: g.id } });
    const b = await t.call('POST', '/v1/translate', { key, body: { q: plain, source: 'en', target: 'de' } });
    expect(a.body.data.translations[0].translatedText).toBe(b.body.data.translations[0].translatedText);
    // A pair the glossary does not hold, with a given source: refused, not ignored.
    expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'Das Haus.', source: 'de', target: 'en', glossary: g.id } }), 400, 'invalid_request');
  });
});
