// The page's files, read from `page/` beside this module and held in memory: index.html, style.css and
// icon.svg as they are, and page/main.ts bundled into one browser ES module by esbuild. The page lives under
// src/ so `npm run build` carries it into dist/ like the rest of the code (tsc compiles the .ts files to .js,
// scripts/copy-build-assets.mjs copies the others), and the container image needs nothing extra. Bundling when
// the server starts keeps a fresh clone and `npm start` working with no build step; it takes tens of
// milliseconds, once per process.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

export const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** The page's script as one ES module: from main.ts when run from source, main.js in a build (dist/). */
export async function bundleScript(pageDir = PAGE_DIR): Promise<Buffer> {
  const entry = existsSync(`${pageDir}main.ts`) ? `${pageDir}main.ts` : `${pageDir}main.js`;
  const result = await build({
    entryPoints: [entry],
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
export async function loadAssets(pageDir = PAGE_DIR): Promise<Map<string, Asset>> {
  const [html, css, icon, script] = await Promise.all([
    readFile(`${pageDir}index.html`),
    readFile(`${pageDir}style.css`),
    readFile(`${pageDir}icon.svg`),
    bundleScript(pageDir),
  ]);
  return new Map([
    ['/', asset(html, 'text/html; charset=utf-8')],
    ['/ui/style.css', asset(css, 'text/css; charset=utf-8')],
    ['/ui/icon.svg', asset(icon, 'image/svg+xml')],
    ['/ui/app.js', asset(script, 'text/javascript; charset=utf-8')],
  ]);
}
