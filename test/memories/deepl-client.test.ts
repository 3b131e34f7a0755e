// deepl-node 1.28's translation-memory calls against a real Dragoman server (real SQLite, fixture models): import
// through importTranslationMemoryFromFilepath and through the three steps, list, translate with translationMemory,
// export and read the file back, list segments with filterText and a cursor, delete; another key sees nothing.
import * as deepl from 'deepl-node';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';
import { BASIC, EXACT, FUZZY_STORED, SECOND } from './fixtures.ts';

let server: CompatServer;
let client: deepl.DeepLClient;
let other: deepl.DeepLClient;
let dir: string;
let memoryId: string;

const clientWith = (key: string) => new deepl.DeepLClient(key, { serverUrl: server.url, maxRetries: 0, sendPlatformInfo: false });

beforeAll(async () => {
  server = await startCompatServer();
  client = clientWith((await server.key()).secret);
  other = clientWith((await server.key()).secret);
  dir = mkdtempSync(join(tmpdir(), 'dragoman-tm-'));
  writeFileSync(join(dir, 'legal.tmx'), BASIC);
  const job = await client.importTranslationMemoryFromFilepath(join(dir, 'legal.tmx'), { displayName: 'Legal', timeoutMs: 20_000 });
  expect(job.results[0]!.status).toBe('completed');
  memoryId = job.results[0]!.translationMemoryId!;
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('deepl-node translation memories against Dragoman', () => {
  it('lists the imported memory with its languages and segment count', async () => {
    const list = await client.listTranslationMemories();
    const tm = list.find((m) => m.translationMemoryId === memoryId)!;
    expect(tm).toMatchObject({ name: 'Legal', sourceLanguage: 'en', targetLanguages: ['de'], segmentCount: 3 });
    expect((await client.getTranslationMemory(memoryId)).segmentCount).toBe(3);
  });

  it('imports through the three steps: create the job, upload to its URL, poll the job', async () => {
    const created = await client.createTranslationMemoryImport('three.tmx', Buffer.byteLength(BASIC), { displayName: 'Three' });
    expect(created.uploadUrl.startsWith(server.url)).toBe(true);
    expect((await client.getTranslationMemoryJob(created.jobId)).results[0]!.status).toBe('awaiting_input');
    await client.uploadTranslationMemoryFile(created, Buffer.from(BASIC));
    const job = await client.getTranslationMemoryJob(created.jobId);
    expect(job.results[0]!.status).toBe('completed');
    expect(job.operation).toBe('import');
    const tm = await client.getTranslationMemory(job.results[0]!.translationMemoryId!);
    expect(tm).toMatchObject({ name: 'Three', segmentCount: 3 });
    await client.deleteTranslationMemory(tm);
  });

  it('translates with translationMemory: exact segments come back as stored, the others from the model', async () => {
    const other = 'The dog is in the garden.';
    const rs = await client.translateText([EXACT.source, `  ${EXACT.source.replace(' ', '   ')}`, other], 'en', 'de', { translationMemory: memoryId });
    expect(rs[0]!.text).toBe(EXACT.target);
    // Whitespace is normalised for the lookup; the string's own edge whitespace stays.
    expect(rs[1]!.text).toBe(`  ${EXACT.target}`);
    expect(rs[2]!.text).toBe((await reference(server.service, other, 'de', 'en'))[0]);
    expect(rs[2]!.text).not.toBe(EXACT.target);
    // A sentence of a longer text is found on its own.
    const [mixed] = await client.translateText([`${other} ${EXACT.source}`], 'en', 'de', { translationMemory: memoryId, translationMemoryThreshold: 90 });
    expect(mixed!.text.endsWith(EXACT.target)).toBe(true);
  });

  it('refuses an unknown memory and one of another key as DeepL does (not found)', async () => {
    await expect(other.getTranslationMemory(memoryId)).rejects.toThrow(/not found/i);
    await expect(other.listTranslationMemorySegments(memoryId)).rejects.toThrow(/not found/i);
    await expect(other.translateText(EXACT.source, 'en', 'de', { translationMemory: memoryId })).rejects.toThrow(/not found/i);
    await expect(other.createTranslationMemoryExport(memoryId)).rejects.toThrow(/not found/i);
    await expect(other.deleteTranslationMemory(memoryId)).rejects.toThrow(/not found/i);
    expect(await other.listTranslationMemories()).toEqual([]);
  });

  it('exports a TMX that imports back to the same segments (inline codes kept)', async () => {
    const out = join(dir, 'export.tmx');
    await client.exportTranslationMemoryToFilepath(memoryId, out, { timeoutMs: 20_000 });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('<bpt i="1" x="1">&lt;b&gt;</bpt>');
    const back = await client.importTranslationMemoryFromFilepath(out, { displayName: 'Back', timeoutMs: 20_000 });
    const backId = back.results[0]!.translationMemoryId!;
    const seg = async (id: string) => (await client.listTranslationMemorySegments(id, { pageSize: 100 })).segments
      .map((s) => [s.sourceText, s.targets.map((t) => [t.targetLanguage, t.targetText])]);
    expect(await seg(backId)).toEqual(await seg(memoryId));
    expect((await seg(memoryId)).map((s) => s[0])).toEqual([EXACT.source, SECOND.source, FUZZY_STORED.source]);
    await client.deleteTranslationMemory(backId);
  });

  it('lists segments a page at a time with a cursor, and filters them by text', async () => {
    const first = await client.listTranslationMemorySegments(memoryId, { pageSize: 2 });
    expect(first.segments).toHaveLength(2);
    expect(first.segmentCount).toBe(3);
    expect(first.nextPageCursor).toBeTruthy();
    const second = await client.listTranslationMemorySegments(memoryId, { pageSize: 2, pageCursor: first.nextPageCursor! });
    expect(second.segments.map((s) => s.sourceText)).toEqual([FUZZY_STORED.source]);
    expect(second.nextPageCursor).toBeUndefined();
    const filtered = await client.listTranslationMemorySegments(memoryId, { filterText: 'HÄUSCHEN' });
    expect(filtered.segments.map((s) => s.sourceText)).toEqual([EXACT.source]);
    expect(filtered.segmentCount).toBe(3);
    expect((await client.listTranslationMemorySegments(memoryId, { filterText: 'HÄUSCHEN', filterCaseSensitive: true })).segments).toEqual([]);
  });

  it('answers a bad TMX upload with the line and the reason, and the job says it failed', async () => {
    const bad = BASIC.replace('<tuv xml:lang="de-DE"><seg>Dieses', '<tuv xml:lang="qq-QQ"><seg>Dieses');
    const created = await client.createTranslationMemoryImport('bad.tmx', bad.length);
    const err = await client.uploadTranslationMemoryFile(created, Buffer.from(bad)).then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(/Line 8: unknown language code 'qq-QQ'/);
    const job = await client.getTranslationMemoryJob(created.jobId);
    expect(job.results[0]!.status).toBe('failed');
    expect(job.results[0]!.errorMessage).toMatch(/qq-QQ/);
    // A wrong token is not the job's upload URL.
    const again = await client.createTranslationMemoryImport('x.tmx', 10);
    await expect(client.uploadTranslationMemoryFile(again.uploadUrl.replace(/token=[^&]+/, 'token=wrong'), Buffer.from(BASIC))).rejects.toThrow(/404/);
  });

  it('deletes the memory: it is gone for every call', async () => {
    const job = await client.importTranslationMemoryFromFilepath(join(dir, 'legal.tmx'), { timeoutMs: 20_000 });
    const id = job.results[0]!.translationMemoryId!;
    await client.deleteTranslationMemory(id);
    await expect(client.getTranslationMemory(id)).rejects.toThrow(/not found/i);
    expect((await client.listTranslationMemories()).map((m) => m.translationMemoryId)).not.toContain(id);
  });
});
