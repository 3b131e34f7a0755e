// The SQLite store's objects and the garbage collector. On Node 24.19 and later, a better-sqlite3 statement or
// database freed by a collection that V8 starts with no current context aborts the process (open.ts): the server
// died at start with any model folder. The store's whole life is run in a child process on this same Node, followed
// by allocations that collect that way; the child must live to say so. (CI runs the suite on Node 20 and on 24.)
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/sqlite/open.ts';

const exec = promisify(execFile);

describe('SQLite objects and the garbage collector', () => {
  it('a process that opened, used, closed and dropped stores survives major collections made by builtin allocations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-churn-'));
    try {
      const child = await exec(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'sqlite-churn.ts'), dir], {
        cwd: join(import.meta.dirname, '..', '..'),
      }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number | null; signal?: string; stdout: string; stderr: string }) => e,
      );
      expect(child.stderr).not.toMatch(/Assertion failed/);
      expect(child.code).toBe(0);
      const report = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { survived: boolean; majors: number };
      expect(report.survived).toBe(true);
      expect(report.majors).toBeGreaterThan(0); // the collections really happened after the stores were dropped
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses pragma(), whose statement the collector would free: pragmas go through exec() or a kept prepare()', () => {
    const db = openDatabase(':memory:');
    expect(() => db.pragma('foreign_keys')).toThrow(/exec\(\)/);
    db.exec('PRAGMA foreign_keys = ON');
    expect(db.prepare('PRAGMA foreign_keys').pluck().get()).toBe(1);
    db.close();
  });
});
