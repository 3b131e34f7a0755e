// Settings are checked when the configuration is read: a typo is a clear start-up error, not a surprise later.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, GRAPH_PASSES, loadConfig, MAX_BEAM } from '../../src/config/env.ts';
import { LAST_POSITION } from '../../src/engine/graph/last-position.ts';
import { PASSES } from '../../src/engine/runtime/prepare.ts';
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
    // Timers: past 2^31 - 1 ms Node fires at once, so a huge shutdown timeout would cut requests off at SIGTERM.
    expect(() => loadConfig({ DRAGOMAN_SHUTDOWN_TIMEOUT_MS: '2147480000' })).toThrow(/DRAGOMAN_SHUTDOWN_TIMEOUT_MS must be at most 3600000/);
    expect(loadConfig({ DRAGOMAN_SHUTDOWN_TIMEOUT_MS: '3600000' }).shutdownTimeoutMs).toBe(3_600_000);
    expect(() => loadConfig({ DRAGOMAN_BATCH_WAIT_MS: '3000000000' })).toThrow(/DRAGOMAN_BATCH_WAIT_MS must be at most 1000/);
    expect(() => loadConfig({ DRAGOMAN_INTRA_OP_THREADS: '100000' })).toThrow(/DRAGOMAN_INTRA_OP_THREADS must be at most 256/);
  });

  it('scheduling: priority, a 10 % bulk share, 2000 characters and 100 ms by default; each within its range', () => {
    expect(loadConfig({})).toMatchObject({ scheduling: 'priority', bulkShare: 10, bulkCharacters: 2000, yieldMs: 100 });
    expect(loadConfig({ DRAGOMAN_SCHEDULING: 'FIFO' }).scheduling).toBe('fifo');
    expect(() => loadConfig({ DRAGOMAN_SCHEDULING: 'lifo' })).toThrow(/DRAGOMAN_SCHEDULING must be one of priority, fifo/);
    expect(() => loadConfig({ DRAGOMAN_BULK_SHARE: '101' })).toThrow(/DRAGOMAN_BULK_SHARE must be at most 100/);
    expect(() => loadConfig({ DRAGOMAN_YIELD_MS: '0' })).toThrow(/DRAGOMAN_YIELD_MS must be an integer >= 1/);
  });

  it('DRAGOMAN_DOCUMENT_CONTEXT_CHARS: 500 by default, 0 (none) to 2000', () => {
    expect(loadConfig({}).documentContextChars).toBe(500);
    expect(loadConfig({ DRAGOMAN_DOCUMENT_CONTEXT_CHARS: '0' }).documentContextChars).toBe(0);
    expect(loadConfig({ DRAGOMAN_DOCUMENT_CONTEXT_CHARS: '2000' }).documentContextChars).toBe(2000);
    expect(() => loadConfig({ DRAGOMAN_DOCUMENT_CONTEXT_CHARS: '2001' })).toThrow(/DRAGOMAN_DOCUMENT_CONTEXT_CHARS must be at most 2000/);
    expect(() => loadConfig({ DRAGOMAN_DOCUMENT_CONTEXT_CHARS: '-1' })).toThrow(/DRAGOMAN_DOCUMENT_CONTEXT_CHARS must be an integer >= 0/);
  });

  it('DRAGOMAN_KEYLESS_RPM: 1200 by default, a positive count or unlimited', () => {
    expect(loadConfig({}).keylessPerMinute).toBe(1200);
    expect(loadConfig({ DRAGOMAN_KEYLESS_RPM: '30' }).keylessPerMinute).toBe(30);
    expect(loadConfig({ DRAGOMAN_KEYLESS_RPM: 'Unlimited' }).keylessPerMinute).toBeNull();
    expect(() => loadConfig({ DRAGOMAN_KEYLESS_RPM: '0' })).toThrow(/DRAGOMAN_KEYLESS_RPM must be an integer >= 1/);
    expect(() => loadConfig({ DRAGOMAN_KEYLESS_RPM: 'none' })).toThrow(/DRAGOMAN_KEYLESS_RPM/);
  });
});

describe('DRAGOMAN_UI_KEY', () => {
  it('is off by default, takes a key id, and refuses a secret', () => {
    expect(loadConfig({}).uiKey).toBeUndefined();
    expect(loadConfig({ DRAGOMAN_UI_KEY: 'k_0123456789' }).uiKey).toBe('k_0123456789');
    expect(() => loadConfig({ DRAGOMAN_UI_KEY: 'dk_' + 'a'.repeat(32) })).toThrow(ConfigError);
    expect(loadConfig({ DRAGOMAN_UI_KEY: 'off' }).uiKey).toBeUndefined();
    expect(() => loadConfig({ DRAGOMAN_UI_KEY: 'dk_' + 'a'.repeat(32) })).toThrow(/not its secret/);
    expect(() => loadConfig({ DRAGOMAN_UI_KEY: 'my key' })).toThrow(/must be the id of a key/);
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

describe('a start that fails for a reason outside the program', () => {
  it('says what to change in one line, exit 1, no stack: port in use, host not of this machine, data folder a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-env-'));
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '127.0.0.1', done));
    const port = String((taken.address() as AddressInfo).port);
    const start = async (env: Record<string, string>) => {
      const err: string[] = [];
      const base = { DRAGOMAN_MODELS_DIR: join(dir, 'models'), DRAGOMAN_DATA_DIR: join(dir, 'data'), DRAGOMAN_PORT: '0', DRAGOMAN_LOG_LEVEL: 'silent' };
      const code = await main(['serve'], { env: { ...base, ...env }, out: () => undefined, err: (l) => void err.push(l) });
      return { code, text: err.join('\n') };
    };
    try {
      const inUse = await start({ DRAGOMAN_HOST: '127.0.0.1', DRAGOMAN_PORT: port });
      expect(inUse.code).toBe(1);
      expect(inUse.text).toContain(`cannot listen on 127.0.0.1:${port}: the port is in use (set DRAGOMAN_PORT)`);
      expect(inUse.text).not.toMatch(/\n\s+at /);
      const host = await start({ DRAGOMAN_HOST: 'no-such-host.invalid' });
      expect(host.code).toBe(1);
      expect(host.text).toMatch(/no-such-host\.invalid is not an address of this machine \(set DRAGOMAN_HOST/);
      writeFileSync(join(dir, 'a-file'), '');
      const data = await start({ DRAGOMAN_DATA_DIR: join(dir, 'a-file') });
      expect(data.code).toBe(1);
      expect(data.text).toMatch(/cannot start: .*is DRAGOMAN_DATA_DIR .*a-file a writable folder\?/);
      expect(data.text).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});


describe('DRAGOMAN_SKIP_PASSES', () => {
  it('is empty by default and takes names of the engine\'s declared passes, refusing others', () => {
    expect(loadConfig({}).skipPasses).toEqual([]);
    expect(loadConfig({ DRAGOMAN_SKIP_PASSES: 'none' }).skipPasses).toEqual([]);
    expect(loadConfig({ DRAGOMAN_SKIP_PASSES: 'Beam-Loop, attention-fusion' }).skipPasses).toEqual(['beam-loop', 'attention-fusion']);
    expect(() => loadConfig({ DRAGOMAN_SKIP_PASSES: 'beam-loop,fuse' })).toThrow(/DRAGOMAN_SKIP_PASSES .*"fuse" is none of them/);
    // The names the setting accepts are the engine's list, in its order.
    expect([...GRAPH_PASSES]).toEqual(['split', ...PASSES.map((p) => p.name), LAST_POSITION]);
  });
});

describe('DRAGOMAN_VOCABULARY', () => {
  it('is target by default, full or target otherwise, refusing anything else', () => {
    expect(loadConfig({}).vocabulary).toBe('target');
    expect(loadConfig({ DRAGOMAN_VOCABULARY: 'Full' }).vocabulary).toBe('full');
    expect(loadConfig({ DRAGOMAN_VOCABULARY: 'target' }).vocabulary).toBe('target');
    expect(() => loadConfig({ DRAGOMAN_VOCABULARY: 'latin' })).toThrow(/DRAGOMAN_VOCABULARY must be one of target, full/);
  });
});

describe('model memory settings', () => {
  it('DRAGOMAN_MODEL_MEMORY takes bytes or K/M/G, unset or unlimited for no limit; DRAGOMAN_PRELOAD a list of names', () => {
    expect(loadConfig({}).modelMemory).toBeUndefined();
    expect(loadConfig({ DRAGOMAN_MODEL_MEMORY: 'unlimited' }).modelMemory).toBeUndefined();
    expect(loadConfig({ DRAGOMAN_MODEL_MEMORY: '800000000' }).modelMemory).toBe(800_000_000);
    expect(loadConfig({ DRAGOMAN_MODEL_MEMORY: '1536M' }).modelMemory).toBe(1536 * 2 ** 20);
    expect(loadConfig({ DRAGOMAN_MODEL_MEMORY: '4GiB' }).modelMemory).toBe(4 * 2 ** 30);
    expect(loadConfig({ DRAGOMAN_MODEL_MEMORY: '1.5g' }).modelMemory).toBe(1.5 * 2 ** 30);
    for (const raw of ['0', '-1', '4T', 'lots', '1e9']) {
      expect(() => loadConfig({ DRAGOMAN_MODEL_MEMORY: raw }), raw).toThrow(`DRAGOMAN_MODEL_MEMORY must be a memory size such as 4G, 1536M or 800000000 (bytes), or unlimited, got "${raw}"`);
    }
    expect(loadConfig({}).preload).toBeUndefined();
    expect(loadConfig({ DRAGOMAN_PRELOAD: ' opus-mt-en-de, nllb ,' }).preload).toEqual(['opus-mt-en-de', 'nllb']);
  });
});

describe('DRAGOMAN_OUTPUT_CHECK', () => {
  it('is on unless turned off, and refuses another word', () => {
    expect(loadConfig({}).outputCheck).toBe(true);
    expect(loadConfig({ DRAGOMAN_OUTPUT_CHECK: 'off' }).outputCheck).toBe(false);
    expect(loadConfig({ DRAGOMAN_OUTPUT_CHECK: 'on' }).outputCheck).toBe(true);
    expect(() => loadConfig({ DRAGOMAN_OUTPUT_CHECK: 'maybe' })).toThrow(/DRAGOMAN_OUTPUT_CHECK/);
  });
});
