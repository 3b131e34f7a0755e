// Settings are checked when the configuration is read: a typo is a clear start-up error, not a surprise later.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, MAX_BEAM } from '../../src/config/env.ts';
import { main } from '../../src/cli/dispatch.ts';

describe('integer settings', () => {
  it('take digits only, within their range', () => {
    expect(loadConfig({ DRAGOMAN_BEAM: '4', DRAGOMAN_WORKERS: ' 2 ' })).toMatchObject({ beam: 4, workers: 2 });
    for (const raw of ['1e1', '0x10', '1.5', '-1', 'abc', '4 beams']) {
      expect(() => loadConfig({ DRAGOMAN_BEAM: raw }), raw).toThrow(/DRAGOMAN_BEAM must be an integer >= 1/);
    }
    expect(() => loadConfig({ DRAGOMAN_BEAM: '0' })).toThrow(ConfigError);
    expect(loadConfig({ DRAGOMAN_BEAM: String(MAX_BEAM) }).beam).toBe(MAX_BEAM);
    expect(() => loadConfig({ DRAGOMAN_BEAM: '2048' })).toThrow(`DRAGOMAN_BEAM must be at most ${MAX_BEAM}, got "2048"`);
    expect(() => loadConfig({ DRAGOMAN_PORT: '70000' })).toThrow(/DRAGOMAN_PORT must be at most 65535/);
    expect(() => loadConfig({ DRAGOMAN_WORKERS: '65' })).toThrow(/DRAGOMAN_WORKERS must be at most 64/);
  });
});

describe('DRAGOMAN_DATABASE_URL', () => {
  it('is a PostgreSQL URL or nothing', () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ DRAGOMAN_DATABASE_URL: 'postgresql://u@h/db' }).databaseUrl).toBe('postgresql://u@h/db');
    expect(() => loadConfig({ DRAGOMAN_DATABASE_URL: 'mysql://u:secret@h/db' })).toThrow('DRAGOMAN_DATABASE_URL must be a postgres:// or postgresql:// URL, got "mysql://…"');
  });
});

describe('DRAGOMAN_TRUST_PROXY', () => {
  it('is off, on, a hop count, or a list of addresses, CIDRs and range names', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ DRAGOMAN_TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ DRAGOMAN_TRUST_PROXY: 'on' }).trustProxy).toBe(true);
    expect(loadConfig({ DRAGOMAN_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ DRAGOMAN_TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ DRAGOMAN_TRUST_PROXY: 'Loopback, 10.0.0.0/8,fd00::/8 ,192.0.2.7' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
    for (const raw of ['10.0.0.0/33', 'proxy.internal', '10.0.0/8', '1.2.3.4/8/9', 'yes please']) {
      expect(() => loadConfig({ DRAGOMAN_TRUST_PROXY: raw }), raw).toThrow(/DRAGOMAN_TRUST_PROXY must be off, on, a number of proxy hops/);
    }
  });
});

describe('DRAGOMAN_MODELS_DIR at start', () => {
  it('a file is refused with exit 2 before anything starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-env-'));
    try {
      const file = join(dir, 'models.tar');
      writeFileSync(file, 'not a folder');
      const err: string[] = [];
      const code = await main(['serve'], { env: { DRAGOMAN_MODELS_DIR: file, DRAGOMAN_DATA_DIR: join(dir, 'data'), DRAGOMAN_PORT: '0' }, out: () => undefined, err: (l) => void err.push(l) });
      expect(code).toBe(2);
      expect(err.join('\n')).toContain(`DRAGOMAN_MODELS_DIR ${file} is not a folder`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
