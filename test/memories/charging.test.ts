// Whether characters served from a memory are charged is a plan setting: charged by default (as DeepL), and not on
// a plan with DRAGOMAN_MEMORY_CHARGED_<PLAN>=off, on SQLite and on PostgreSQL, through /v1/translate, DeepL's
// /v2/translate and LibreTranslate; /v1/usage shows the served characters and the setting either way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../api/helpers.ts';
import { type CompatServer, startCompatServer } from '../google/harness.ts';
import { freshDatabase, type FreshDatabase } from '../postgres/pg-helpers.ts';
import { describeNeeding } from '../tools.ts';
import { BASIC, EXACT } from './fixtures.ts';

const FRESH = 'The dog is in the garden.';

function suite(name: string, env: () => Promise<{ env: Record<string, string>; done?: () => Promise<void> }>, describeIt: (name: string, fn: () => void) => void = describe) {
  describeIt(name, () => {
    let server: CompatServer;
    let done: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const e = await env();
      done = e.done;
      // Pro keys are not charged for memory characters; free keys follow DRAGOMAN_MEMORY_CHARGED (default on).
      server = await startCompatServer({ ...e.env, DRAGOMAN_MEMORY_CHARGED_PRO: 'off' });
    });

    afterAll(async () => {
      await server?.close();
      await done?.();
    });

    async function keyWithMemory(plan: 'free' | 'pro') {
      const { id, secret: key } = await server.key({ plan });
      const r = await fetch(`${server.url}/v1/memories?name=M`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-tmx+xml' }, body: BASIC });
      expect(r.status).toBe(201);
      return { id, key, memory: ((await r.json()) as any).data.memory.id as string };
    }
    const usage = async (key: string) => (await call(server.url, 'GET', '/v1/usage', { key })).body.data;

    it('charges them on a plan that charges them (the default)', async () => {
      const { key, memory } = await keyWithMemory('free');
      const r = await call(server.url, 'POST', '/v1/translate', { key, body: { q: [EXACT.source, FRESH], source: 'en', target: 'de', memory } });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-dragoman-characters-used')).toBe(String(EXACT.source.length + FRESH.length));
      expect(await usage(key)).toMatchObject({ charactersUsed: EXACT.source.length + FRESH.length, memoryCharactersServed: EXACT.source.length, memoryCharactersCharged: true });
    });

    it('gives them back on a plan that does not, on every text surface, and counts them apart', async () => {
      const { id, key, memory } = await keyWithMemory('pro');
      const v1 = await call(server.url, 'POST', '/v1/translate', { key, body: { q: [EXACT.source, FRESH], source: 'en', target: 'de', memory } });
      expect(v1.status).toBe(200);
      expect(v1.body.data.translations[0].translatedText).toBe(EXACT.target);
      expect(v1.headers.get('x-dragoman-characters-used')).toBe(String(FRESH.length));
      const deepl = await fetch(`${server.url}/v2/translate`, {
        method: 'POST', headers: { authorization: `DeepL-Auth-Key ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: [EXACT.source], source_lang: 'EN', target_lang: 'DE', translation_memory_id: memory }),
      });
      expect(deepl.status).toBe(200);
      const libre = await fetch(`${server.url}/libretranslate/translate`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: EXACT.source, source: 'en', target: 'de', memory, api_key: key }),
      });
      expect(((await libre.json()) as any).translatedText).toBe(EXACT.target);
      expect(await usage(key)).toMatchObject({ charactersUsed: FRESH.length, memoryCharactersServed: 3 * EXACT.source.length, memoryCharactersCharged: false, requests: expect.any(Number) });
      // The per-day ledger (usage reports) gives the same back: its days add up to the month's characters.
      const days = await server.app.store.dailyUsage({ from: '2000-01-01', to: '2999-12-31', keyId: id });
      expect(days.reduce((sum, d) => sum + d.characters, 0)).toBe(FRESH.length);
    });

    it('a request refused after the work still gives back only what it was charged', async () => {
      const { key, memory } = await keyWithMemory('pro');
      // A memory of another source language is refused before any work: nothing charged, nothing credited.
      const bad = await call(server.url, 'POST', '/v1/translate', { key, body: { q: EXACT.source, source: 'de', target: 'en', memory } });
      expect(bad.status).toBe(400);
      expect((await usage(key)).charactersUsed).toBe(0);
    });
  });
}

suite('memory characters and the plan (SQLite)', async () => ({ env: {} }));

let db: FreshDatabase | undefined;
suite('memory characters and the plan (PostgreSQL)', async () => {
  db = await freshDatabase();
  return { env: { DRAGOMAN_DATABASE_URL: db.url }, done: () => db!.drop() };
}, describeNeeding('postgresql'));
