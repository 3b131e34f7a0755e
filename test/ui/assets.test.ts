// Where the page's script comes from: a build's prebuilt app.js as it is (no esbuild at run time), or, run from
// source, page/main.ts bundled on first use, once per process.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleScript, loadAssets, PAGE_DIR, PREBUILT_SCRIPT, scriptAsset } from '../../src/http/ui/assets.ts';

const dirs: string[] = [];
function pageCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-page-')) + '/';
  cpSync(PAGE_DIR, dir, { recursive: true });
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the page script', () => {
  it('is never prebuilt in the source tree (only a build writes app.js, into dist/)', () => {
    expect(() => readFileSync(join(PAGE_DIR, PREBUILT_SCRIPT))).toThrow();
  });

  it('from source: main.ts bundled on first use, into one module with no imports left, once per folder', async () => {
    const dir = pageCopy();
    const first = scriptAsset(dir);
    expect(scriptAsset(dir)).toBe(first);
    const script = (await first).body.toString('utf8');
    expect(script.length).toBeGreaterThan(5000);
    expect(script).not.toMatch(/\bimport\s*[{*"']|\bfrom\s*["']\.\//);
    // The page's own words are in it: it is main.ts and the files it imports.
    expect(script).toContain('Translating as you type');
    expect((await first).type).toBe('text/javascript; charset=utf-8');
  });

  it('built: app.js beside the page is served as it is, and main.ts is not bundled', async () => {
    const dir = pageCopy();
    writeFileSync(join(dir, PREBUILT_SCRIPT), '/* prebuilt */ export {};\n');
    // A main.ts that cannot be bundled proves it is not read.
    writeFileSync(join(dir, 'main.ts'), 'this is not TypeScript (');
    const script = await scriptAsset(dir);
    expect(script.body.toString('utf8')).toBe('/* prebuilt */ export {};\n');
    await expect(bundleScript(dir)).rejects.toThrow();
  });

  it('a page that does not bundle fails that request, and the next request tries again', async () => {
    const dir = pageCopy();
    const good = readFileSync(join(dir, 'main.ts'), 'utf8');
    writeFileSync(join(dir, 'main.ts'), 'this is not TypeScript (');
    await expect(scriptAsset(dir)).rejects.toThrow();
    writeFileSync(join(dir, 'main.ts'), good);
    expect((await scriptAsset(dir)).body.length).toBeGreaterThan(5000);
  });

  it('the static files are read as they are', async () => {
    const assets = await loadAssets();
    expect([...assets.keys()]).toEqual(['/', '/ui/style.css', '/ui/icon.svg']);
    expect(assets.get('/')!.body.toString('utf8')).toBe(readFileSync(join(PAGE_DIR, 'index.html'), 'utf8'));
  });
});
