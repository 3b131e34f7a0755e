// The page's files, read from `ui/` in the package and held in memory: index.html, style.css, icon.svg as they
// are, and ui/src/main.ts bundled into one browser ES module by esbuild (already a dependency through tsx).
// Building when the server starts, not at `npm run build`, keeps a fresh clone and `npm start` working with
// no extra step; it takes tens of milliseconds and happens once per process.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/** ui/ at the package root: three levels up from src/http/ui/ (and from dist/http/ui/ after a build). */
export const UI_DIR = fileURLToPath(new URL('../../../ui/', import.meta.url));

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

export async function bundleScript(uiDir = UI_DIR): Promise<Buffer> {
  const result = await build({
    entryPoints: [`${uiDir}src/main.ts`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    write: false,
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  return Buffer.from(result.outputFiles[0]!.contents);
}

/** Every file the page needs, by URL path. */
export async function loadAssets(uiDir = UI_DIR): Promise<Map<string, Asset>> {
  const [html, css, icon, script] = await Promise.all([
    readFile(`${uiDir}index.html`),
    readFile(`${uiDir}style.css`),
    readFile(`${uiDir}icon.svg`),
    bundleScript(uiDir),
  ]);
  return new Map([
    ['/', asset(html, 'text/html; charset=utf-8')],
    ['/ui/style.css', asset(css, 'text/css; charset=utf-8')],
    ['/ui/icon.svg', asset(icon, 'image/svg+xml')],
    ['/ui/app.js', asset(script, 'text/javascript; charset=utf-8')],
  ]);
}
