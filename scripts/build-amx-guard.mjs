// `npm ci` / `npm install` (the package's install script): compiles src/engine/amx-guard/amx_guard.c, the seccomp
// filter that keeps onnxruntime off Intel AMX (src/engine/amx.ts), with node-gyp (npm's own copy; the same toolchain
// better-sqlite3 needs when it builds from source). Linux x64 only. A failed build does not fail the install: the
// server then says at start that onnxruntime uses AMX.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'engine', 'amx-guard');
const target = join(dir, 'amx_guard.node');

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`amx guard: not needed on ${process.platform}-${process.arch}`);
  process.exit(0);
}
// npm sets npm_config_node_gyp for lifecycle scripts; otherwise node-gyp must be on PATH.
const gyp = process.env.npm_config_node_gyp;
const [cmd, args] = gyp ? [process.execPath, [gyp, 'rebuild']] : ['node-gyp', ['rebuild']];
const run = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8' });
const built = join(dir, 'build', 'Release', 'amx_guard.node');
if (run.status === 0 && existsSync(built)) {
  copyFileSync(built, target);
  rmSync(join(dir, 'build'), { recursive: true, force: true });
  console.log('amx guard: built src/engine/amx-guard/amx_guard.node');
} else {
  rmSync(join(dir, 'build'), { recursive: true, force: true });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? String(run.error) : ''}`.trim().split('\n').slice(-15).join('\n');
  console.warn(`amx guard: NOT built (${cmd} ${args.join(' ')} in ${dir}); onnxruntime will use AMX on CPUs that have it (DRAGOMAN_AMX has no effect).\n${output}`);
}
