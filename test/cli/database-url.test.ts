// DRAGOMAN_DATABASE_URL with a libpq TLS mode, run as the real process: what the operator sees on stderr is
// Dragoman's one line, not node-postgres's multi-line "SECURITY WARNING" between the JSON log lines.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { withVerifiedSslMode } from '../../src/storage/postgres/connection.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'dragoman.js');
const dir = mkdtempSync(join(tmpdir(), 'dragoman-dburl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DRAGOMAN_DATABASE_URL TLS modes', () => {
  it('require/prefer/verify-ca are spelled verify-full, what node-postgres 8 applies for them anyway', () => {
    expect(withVerifiedSslMode('postgres://u@db/x?sslmode=require')).toBe('postgres://u@db/x?sslmode=verify-full');
    expect(withVerifiedSslMode('postgres://u@db/x?a=1&sslmode=prefer&b=2')).toBe('postgres://u@db/x?a=1&sslmode=verify-full&b=2');
    expect(withVerifiedSslMode('postgres://u@db/x?sslmode=VERIFY-CA')).toBe('postgres://u@db/x?sslmode=verify-full');
    for (const kept of [
      'postgres://u@db/x',
      'postgres://u@db/x?sslmode=disable',
      'postgres://u@db/x?sslmode=no-verify',
      'postgres://u@db/x?sslmode=verify-full',
      'postgres://u@db/x?uselibpqcompat=true&sslmode=require',
      'postgres://u@db/require?application_name=sslmode=require',
    ])
      expect(withVerifiedSslMode(kept)).toBe(kept);
  });

  it('an unreachable database with sslmode=require: one line on stderr, no SECURITY WARNING', async () => {
    const env = {
      ...process.env,
      DRAGOMAN_DATA_DIR: join(dir, 'data'),
      DRAGOMAN_DATABASE_URL: 'postgres://dragoman@127.0.0.1:1/none?sslmode=require',
    };
    const r = await promisify(execFile)(process.execPath, [BIN, 'keys', 'list'], { cwd: dir, env, timeout: 60_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('dragoman: cannot reach the account database (DRAGOMAN_DATABASE_URL); try again when it is back');
  });
});
