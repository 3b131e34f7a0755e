// /v1/memories and translation with a memory on /v1/translate, against a real server (real SQLite, fixture
// models): fuzzy matches on either side of a pair's similarity, learning that never overwrites a reviewed segment,
// segment edits, the /v1 error shapes, hostile files refused by name with the server still serving, usage.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectErrorShape } from '../api/helpers.ts';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';
import { similarity } from '../../src/memories/index.ts';
import { BASIC, EXACT, FUZZY_STORED, tmx } from './fixtures.ts';

let server: CompatServer;
let key: string;
let memory: string;

const post = (path: string, body: unknown, k = key) => call(server.url, 'POST', path, { key: k, body });
const upload = (path: string, raw: string | Buffer, type = 'application/x-tmx+xml') =>
  fetch(server.url + path, { method: 'POST', headers: { 'x-api-key': key, 'content-type': type }, body: typeof raw === 'string' ? raw : new Uint8Array(raw) })
    .then(async (r) => ({ status: r.status, headers: r.headers, body: await r.json() as any }));

beforeAll(async () => {
  server = await startCompatServer();
  key = (await server.key()).secret;
  const r = await upload('/v1/memories?name=Basic', BASIC);
  expect(r.status).toBe(201);
  memory = r.body.data.memory.id;
  expect(r.body.data).toMatchObject({ imported: 3, skipped: 0, memory: { source: 'en', targets: ['de'], segmentCount: 3 } });
});

afterAll(async () => {
  await server?.close();
});

describe('/v1/translate with a memory', () => {
  const NEAR = 'The weather is very nice today and we are going to the beach.';

  it('reports a fuzzy pair at a threshold at its similarity, and not at one above it', async () => {
    const sim = similarity(NEAR, FUZZY_STORED.source);
    // 14 tokens, one substituted: floor(100 × (1 − 1/14)).
    expect(sim).toBe(92);
    const at = await post('/v1/translate', { q: [NEAR, EXACT.source], source: 'en', target: 'de', memory, memoryThreshold: sim, matches: true });
    expect(at.status).toBe(200);
    const [fuzzy, exact] = at.body.data.translations;
    expect(fuzzy.matches).toEqual([{ segment: NEAR, source: FUZZY_STORED.source, target: FUZZY_STORED.target, similarity: 92 }]);
    // A fuzzy match is reported, never used: the sentence is the model's.
    expect(fuzzy.translatedText).toBe((await reference(server.service, NEAR, 'de', 'en'))[0]);
    expect(fuzzy.memory).toEqual({ segments: 1, exact: 0, characters: 0 });
    expect(exact).toMatchObject({ translatedText: EXACT.target, memory: { segments: 1, exact: 1, characters: EXACT.source.length } });
    expect(exact.matches).toEqual([{ segment: EXACT.source, source: EXACT.source, target: EXACT.target, similarity: 100 }]);
    const above = await post('/v1/translate', { q: NEAR, source: 'en', target: 'de', memory, memoryThreshold: sim + 1, matches: true });
    expect(above.body.data.translations[0].matches).toEqual([]);
  });

  it('counts characters served from the memory apart in /v1/usage and in the per-day ledger, and charges them', async () => {
    const { id: keyId, secret: k } = await server.key();
    const m = (await upload('/v1/memories?name=U', BASIC).then(async () => {
      const r = await fetch(server.url + '/v1/memories?name=U2', { method: 'POST', headers: { 'x-api-key': k, 'content-type': 'application/xml' }, body: BASIC });
      return (await r.json() as any).data.memory.id as string;
    }));
    const r = await post('/v1/translate', { q: [EXACT.source, 'The dog is in the garden.'], source: 'en', target: 'de', memory: m }, k);
    expect(r.status).toBe(200);
    const usage = await call(server.url, 'GET', '/v1/usage', { key: k });
    expect(usage.body.data.memoryCharactersServed).toBe(EXACT.source.length);
    expect(usage.body.data.charactersUsed).toBe(EXACT.source.length + 'The dog is in the garden.'.length);
    const day = new Date(server.clock.now()).toISOString().slice(0, 10);
    const rows = await server.app.store.dailyUsage({ from: day, to: day, keyId });
    expect(rows.map((r) => [r.characters, r.requests, r.memoryCharacters])).toEqual([
      [usage.body.data.charactersUsed, usage.body.data.requests, EXACT.source.length],
    ]);
  });

  it('learns machine translations as unreviewed segments on request, never replacing a reviewed one', async () => {
    const m = (await upload('/v1/memories?name=Learn', BASIC)).body.data.memory.id;
    const fresh = 'The dog is in the garden.';
    const r = await post('/v1/translate', { q: [fresh, EXACT.source], source: 'en', target: 'de', memory: m, memoryUpdate: true });
    const machine = r.body.data.translations[0].translatedText;
    const list = await call(server.url, 'GET', `/v1/memories/${m}/segments?status=unreviewed`, { key });
    expect(list.body.data.segments.map((s: any) => [s.source, s.target, s.status])).toEqual([[fresh, machine, 'unreviewed']]);
    // The learned segment now comes back from the memory; the reviewed one is as it was.
    const again = await post('/v1/translate', { q: [fresh, EXACT.source], source: 'en', target: 'de', memory: m, memoryUpdate: true });
    expect(again.body.data.translations.map((t: any) => t.memory.exact)).toEqual([1, 1]);
    const reviewed = await call(server.url, 'GET', `/v1/memories/${m}/segments?status=reviewed&text=small`, { key });
    expect(reviewed.body.data.segments.map((s: any) => s.target)).toEqual([EXACT.target]);
  });

  it('refuses a memory of another key as unknown, and one of another source language', async () => {
    const other = (await server.key()).secret;
    expectErrorShape(await post('/v1/translate', { q: 'x', source: 'en', target: 'de', memory }, other), 404, 'invalid_request');
    expect(expectErrorShape(await post('/v1/translate', { q: 'Das Haus.', source: 'de', target: 'en', memory }), 400, 'invalid_request')).toMatch(/source language 'en'/);
    expect(expectErrorShape(await post('/v1/translate', { q: 'x', target: 'de', matches: true }), 400, 'invalid_request')).toMatch(/need 'memory'/);
    expectErrorShape(await call(server.url, 'GET', `/v1/memories/${memory}`, { key: other }), 404, 'invalid_request');
  });
});

describe('/v1/memories', () => {
  it('makes an empty memory, adds, changes, filters and deletes segments', async () => {
    const made = await post('/v1/memories', { name: 'Manual', source: 'en', targets: ['de', 'fr'] });
    expect(made.status).toBe(201);
    const id = made.body.data.memory.id;
    const added = await post(`/v1/memories/${id}/segments`, { segments: [{ source: 'Good morning.', target: 'Guten Morgen.', targetLanguage: 'de' }, { source: 'Good morning.', target: 'Bonjour.', targetLanguage: 'fr' }] });
    expect(added.status).toBe(201);
    const [de] = added.body.data.segments;
    const changed = await call(server.url, 'PATCH', `/v1/memories/${id}/segments/${de.id}`, { key, body: { target: 'Guten Morgen!' } });
    expect(changed.body.data.segment).toMatchObject({ source: 'Good morning.', target: 'Guten Morgen!', targetLanguage: 'de', status: 'reviewed' });
    const fr = await call(server.url, 'GET', `/v1/memories/${id}/segments?target=fr`, { key });
    expect(fr.body.data.segments.map((s: any) => s.target)).toEqual(['Bonjour.']);
    expect((await call(server.url, 'DELETE', `/v1/memories/${id}/segments/${de.id}`, { key })).status).toBe(204);
    expect((await call(server.url, 'GET', `/v1/memories/${id}`, { key })).body.data.memory.segmentCount).toBe(1);
    expectErrorShape(await call(server.url, 'GET', `/v1/memories/${id}/segments/${de.id}`, { key }), 404, 'invalid_request');
    expect((await call(server.url, 'DELETE', `/v1/memories/${id}`, { key })).status).toBe(204);
    expectErrorShape(await call(server.url, 'GET', `/v1/memories/${id}`, { key }), 404, 'invalid_request');
  });

  it('imports TSV and CSV as glossaries take them, and exports TMX that imports back equal', async () => {
    const t = await upload('/v1/memories?name=T&source=en&target=de', 'One house.\tEin Haus.\nTwo houses.\tZwei Häuser.\n', 'text/tab-separated-values');
    expect(t.body.data).toMatchObject({ imported: 2, memory: { segmentCount: 2 } });
    const c = await upload(`/v1/memories/${t.body.data.memory.id}/import?target=de`, '"Three, houses.","Drei, Häuser."\n', 'text/csv');
    expect(c.body.data.memory.segmentCount).toBe(3);
    const exported = await fetch(`${server.url}/v1/memories/${t.body.data.memory.id}/export`, { headers: { 'x-api-key': key } }).then((r) => r.text());
    const back = await upload('/v1/memories?name=Back', exported);
    const rows = async (id: string) => (await call(server.url, 'GET', `/v1/memories/${id}/segments`, { key })).body.data.segments.map((s: any) => [s.source, s.target, s.targetLanguage, s.status]);
    expect(await rows(back.body.data.memory.id)).toEqual(await rows(t.body.data.memory.id));
    expect(await rows(back.body.data.memory.id)).toContainEqual(['Three, houses.', 'Drei, Häuser.', 'de', 'reviewed']);
    const bad = await upload('/v1/memories?name=T&source=en&target=de', 'ok\tgut\nno tab here\n', 'text/tab-separated-values');
    expect(expectErrorShape(bad, 400, 'invalid_request')).toMatch(/line 2: expected a source and a target/i);
  });
});

describe('hostile TMX files', () => {
  const refused = async (body: string | Buffer, pattern: RegExp) => {
    const r = await upload('/v1/memories?name=Hostile', body);
    expect(expectErrorShape(r, 400, 'invalid_request')).toMatch(pattern);
  };

  it('refuses XXE, entity expansion, undefined entities, invalid UTF-8 and unknown languages by name, and keeps serving', async () => {
    const before = (await call(server.url, 'GET', '/v1/memories', { key })).body.data.memories.length;
    await refused('<?xml version="1.0"?>\n<!DOCTYPE tmx [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>&xxe;</seg></tuv></tu></body></tmx>', /Line 2: the DOCTYPE declares entities.*XXE/);
    const lol = '<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">';
    await refused(`<?xml version="1.0"?><!DOCTYPE tmx [${lol}]><tmx><body><tu><tuv xml:lang="en"><seg>&lol3;</seg></tuv></tu></body></tmx>`, /DOCTYPE declares entities.*expand without bound/);
    await refused('<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>&xxe;</seg></tuv></tu></body></tmx>', /Line 2: undefined entity/);
    await refused(Buffer.concat([Buffer.from('<tmx version="1.4"><header srclang="en"/><body>\n\n<tu><tuv xml:lang="en"><seg>'), Buffer.from([0xc3, 0x28]), Buffer.from('</seg></tuv></tu></body></tmx>')]), /Line 3: the file is not valid UTF-8/);
    await refused(tmx([EXACT], 'en', 'xx-YY'), /Line 8: unknown language code 'xx-YY'/);
    await refused(tmx([EXACT], 'klingon', 'de'), /Line 4: unknown language code 'klingon' in the header's srclang/);
    await refused('<html><body/></html>', /not <tmx>/);
    await refused('<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>a</tuv></tu></body></tmx>', /Line 1: not well-formed XML/);
    expect((await call(server.url, 'GET', '/v1/memories', { key })).body.data.memories.length).toBe(before);
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  });

  it('stops a 1 GB single segment at the segment limit while it arrives', async () => {
    const r = await new Promise<{ status: number; body: any; sent: number }>((resolve, reject) => {
      let sent = 0;
      let done = false;
      const req = httpRequest(`${server.url}/v1/memories?name=Big`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/xml' } }, (res) => {
        done = true;
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), sent }));
      });
      req.on('error', (err) => (done ? undefined : reject(err)));
      req.write('<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>');
      const mb = Buffer.alloc(1 << 20, 'a');
      const pump = () => {
        while (!done && sent < 1024) {
          sent++;
          if (!req.write(mb)) return void req.once('drain', pump);
        }
        if (!done) req.end('</seg></tuv></tu></body></tmx>');
      };
      pump();
    });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toMatch(/a segment has more than 5000 characters/);
    expect(r.sent).toBeLessThan(1024);
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  });
});
