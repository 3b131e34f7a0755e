// Third step of `npm run build`: the web page's script bundled once into dist/http/ui/page/app.js, which the built
// server serves as it is (src/http/ui/assets.ts). Run from source, the server bundles page/main.ts itself.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleScript, PAGE_DIR, PREBUILT_SCRIPT } from '../src/http/ui/assets.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const out = join(resolve(root, process.argv[2] ?? 'dist'), 'http', 'ui', 'page', PREBUILT_SCRIPT);
const body = await bundleScript(PAGE_DIR);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, body);
console.log(`bundled the web page's script into ${relative(root, out)} (${body.length} bytes)`);
