// /docs covers every surface: the OpenAPI document a real server serves at /docs/json has the routes of /v1,
// its documents and glossaries, DeepL v2 and v3, Google v2 and LibreTranslate, each under its surface's tag and
// with a summary, and none of the ops routes or the web page's own files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../api/helpers.ts';

let t: TestApp;
let doc: { paths: Record<string, Record<string, { tags?: string[]; summary?: string; security?: unknown[] }>>; tags: { name: string }[] };

beforeAll(async () => {
  // Every surface on (the default; said here so the test does not depend on it).
  t = await startTestApp({ DRAGOMAN_DEEPL_COMPAT: 'on', DRAGOMAN_LIBRETRANSLATE_COMPAT: 'on', DRAGOMAN_GOOGLE_COMPAT: 'on' });
  const r = await t.call('GET', '/docs/json');
  expect(r.status).toBe(200);
  doc = r.body;
});

afterAll(async () => {
  await t?.close();
});

const operation = (path: string, method: string) => doc.paths[path]?.[method];

describe('GET /docs/json', () => {
  const expected: [string, string, string][] = [
    ['/v1/translate', 'post', 'Dragoman /v1'],
    ['/v1/languages', 'get', 'Dragoman /v1'],
    ['/v1/documents', 'get', 'Documents'],
    ['/v1/documents', 'post', 'Documents'],
    ['/v1/documents/{id}/result', 'get', 'Documents'],
    ['/v1/glossaries', 'post', 'Glossaries'],
    ['/v1/glossaries/{id}', 'delete', 'Glossaries'],
    ['/v2/translate', 'post', 'DeepL API v2 compatible'],
    ['/v2/document', 'post', 'DeepL API v2 compatible'],
    ['/v2/glossaries', 'get', 'DeepL API v2 compatible'],
    ['/v3/glossaries', 'post', 'DeepL API v3 compatible'],
    ['/language/translate/v2', 'post', 'Google Translate v2 compatible'],
    ['/language/translate/v2/detect', 'post', 'Google Translate v2 compatible'],
    ['/libretranslate/translate', 'post', 'LibreTranslate compatible'],
    ['/libretranslate/translate_file', 'post', 'LibreTranslate compatible'],
  ];
  for (const [path, method, tag] of expected) {
    it(`has ${method.toUpperCase()} ${path} under “${tag}”, with a summary`, () => {
      const op = operation(path, method);
      expect(op, `${method} ${path} missing; paths: ${Object.keys(doc.paths).join(' ')}`).toBeDefined();
      expect(op!.tags).toEqual([tag]);
      expect(op!.summary?.length).toBeGreaterThan(5);
    });
  }

  it('names each surface as a tag, and how its clients send the key', () => {
    expect(doc.tags.map((t) => t.name)).toEqual(expect.arrayContaining(['Dragoman /v1', 'Documents', 'Glossaries', 'DeepL API v2 compatible', 'DeepL API v3 compatible', 'Google Translate v2 compatible', 'LibreTranslate compatible']));
    expect(operation('/v2/translate', 'post')!.security).toEqual([{ deeplAuthKey: [] }]);
    expect(operation('/v1/translate', 'post')!.security).toEqual([{ apiKey: [] }]);
  });

  it('leaves out the ops routes and the web page', () => {
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/(v1|v2|v3|language\/translate\/v2|libretranslate)(\/|$)/);
    expect(doc.paths['/health']).toBeUndefined();
    expect(doc.paths['/ui/languages']).toBeUndefined();
  });
});
