// The page's files, read from `page/` beside this module and held in memory: index.html, style.css and icon.svg as
// they are, and the script as one browser ES module.
//
// The script is bundled once, when the code is built: `npm run build` runs scripts/bundle-page.ts, which writes
// dist/http/ui/page/app.js, so a built server (the container image) only reads a file and never runs esbuild.
// Run from source (`npm start`, `npm test`, a fresh clone with no build), there is no app.js: page/main.ts is
// bundled with esbuild on the first request for /ui/app.js, once per process (tens of milliseconds), so editing
// the page needs no build step and servers that never serve the page never bundle it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

export const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));
/** The built script's name in `page/` (dist only; never committed under src/). */
export const PREBUILT_SCRIPT = 'app.js';

export function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** page/main.ts and everything it imports as one minified ES module. */
export async function bundleScript(pageDir = PAGE_DIR): Promise<Buffer> {
  // Imported here, not at the top: a built server never loads esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [`${pageDir}main.ts`],
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

const bundles = new Map<string, Promise<Asset>>();

/** The script: the built app.js when there is one, else main.ts bundled on first use (once per process and folder). */
export function scriptAsset(pageDir = PAGE_DIR): Promise<Asset> {
  let found = bundles.get(pageDir);
  if (!found) {
    const prebuilt = `${pageDir}${PREBUILT_SCRIPT}`;
    found = (existsSync(prebuilt) ? readFile(prebuilt) : bundleScript(pageDir)).then((body) =>
      asset(body, 'text/javascript; charset=utf-8'),
    );
    // A failed bundle (a syntax error while editing the page) is tried again on the next request.
    found.catch(() => bundles.delete(pageDir));
    bundles.set(pageDir, found);
  }
  return found;
}

/** The page's static files by URL path (the script is served by `scriptAsset`, at SCRIPT_PATH). */
export async function loadAssets(pageDir = PAGE_DIR): Promise<Map<string, Asset>> {
  const [html, css, icon] = await Promise.all([
    readFile(`${pageDir}index.html`),
    readFile(`${pageDir}style.css`),
    readFile(`${pageDir}icon.svg`),
  ]);
  return new Map([
    ['/', asset(html, 'text/html; charset=utf-8')],
    ['/ui/style.css', asset(css, 'text/css; charset=utf-8')],
    ['/ui/icon.svg', asset(icon, 'image/svg+xml')],
  ]);
}

export const SCRIPT_PATH = '/ui/app.js';
