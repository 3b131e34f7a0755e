// Install hygiene: package.json's allowScripts (npm 11's install-script policy) names exactly the installed
// dependencies that have install scripts, each allowed or denied on purpose, so `npm ci` runs better-sqlite3's
// build, skips onnxruntime-node's CUDA download, and has nothing left to warn about. Asked of npm itself, on the
// node_modules this suite runs on. And `engines` admits the Node the suite runs on.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; allowScripts: Record<string, boolean> };
const npm = async (...args: string[]) => JSON.parse((await exec('npm', args, { cwd: ROOT })).stdout) as { allowScripts: unknown };

describe('install scripts', () => {
  it('every installed dependency with an install script is covered by allowScripts', async () => {
    expect((await npm('install-scripts', 'ls', '--json')).allowScripts).toEqual([]);
  });

  it('allowScripts names no package that is not installed or has no install script', async () => {
    expect((await npm('install-scripts', 'prune', '--dry-run', '--json')).allowScripts).toEqual({ removed: [], dryRun: true });
  });

  it('runs the SQLite binding build and denies the rest, onnxruntime-node\'s CUDA download first', () => {
    expect(pkg.allowScripts).toEqual({ 'better-sqlite3': true, esbuild: false, 'onnxruntime-node': false, protobufjs: false });
  });
});

describe('engines', () => {
  it('admits the Node this suite runs on (CI: the machine\'s Node and Node 24)', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    const ranges = pkg.engines.node.split('||').map((r) => /\^?>?=?(\d+)\.(\d+)\.\d+/.exec(r.trim())!);
    const admitted = ranges.some(([range, maj, min]) =>
      range.startsWith('>=') ? major > Number(maj) || (major === Number(maj) && minor >= Number(min)) : major === Number(maj) && minor >= Number(min),
    );
    expect(admitted, `${process.version} vs ${pkg.engines.node}`).toBe(true);
  });
});
