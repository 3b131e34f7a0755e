// Second half of `npm run build`: tsc compiles src/**/*.ts into dist/, this copies everything else the code reads
// at run time (SQL migrations, worker entry modules, UI assets ...) to the same relative place. Plain .mjs/.js files
// get the same treatment tsc gives .ts files (rewriteRelativeImportExtensions): relative './x.ts' → './x.js'.
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = resolve(root, process.argv[2] ?? 'dist');
let copied = 0;

for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile()) continue;
  const from = join(entry.parentPath, entry.name);
  const ext = extname(entry.name);
  // amx-guard's C source and gyp file are compiled in place by npm ci; dist needs only the .node it made.
  if (ext === '.ts' || ext === '.md' || ext === '.c' || ext === '.gyp') continue;
  const to = join(dist, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  if (ext === '.mjs' || ext === '.js') {
    const code = readFileSync(from, 'utf8').replace(/(['"])(\.{1,2}\/[^'"]+)\.ts\1/g, '$1$2.js$1');
    writeFileSync(to, code);
  } else cpSync(from, to);
  copied++;
}
console.log(`copied ${copied} non-TypeScript files from src/ to ${relative(root, dist) || '.'}/`);
