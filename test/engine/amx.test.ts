// DRAGOMAN_AMX (src/engine/amx.ts): with it off, onnxruntime never gets the AMX tile permission in the engine's
// process, and the int8 translations are the same either way (integer products are exact on every kernel). Each case
// runs in a fresh process (amx-child.ts): the permission and the filter last as long as the process.
import { execFileSync } from 'node:child_process';
import { constants } from 'node:os';
import { describe, expect, it } from 'vitest';
import { applyAmxSetting, errnoName, loadAmxGuard } from '../../src/engine/runtime/amx.ts';
import { cpuHasAmx } from '../../src/engine/graph/cpu-features.ts';

const linuxX64 = process.platform === 'linux' && process.arch === 'x64';
const hasAmx = cpuHasAmx();

function child(...args: string[]): Record<string, any> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/engine/amx-child.ts', ...args], { encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

describe('DRAGOMAN_AMX', () => {
  it('the guard is built by npm ci (Linux x64) and refuses the request onnxruntime makes, for the rest of the process', () => {
    if (!linuxX64) {
      expect(loadAmxGuard()).toMatch(/not built for/);
      return;
    }
    const r = child('guard');
    // tilePermitted: 1 granted, 0 not, -errno where the kernel predates the AMX calls (then never granted either).
    expect(r.before).not.toBe(1);
    expect(r.denied).toBe(0);
    expect(r.deniedAgain).toBe(0);
    expect(r.request).toBe(constants.errno.EPERM);
    expect(r.after).not.toBe(1);
  });

  it('off: no AMX for onnxruntime in the engine process; on: onnxruntime takes it; same int8 translations', () => {
    const off = child('engine', 'off');
    const on = child('engine', 'on');
    expect(off.status.state).toBe(hasAmx ? 'off' : 'no amx');
    expect(on.status.state).toBe(hasAmx ? 'on' : 'no amx');
    if (linuxX64) {
      expect(off.permitted).not.toBe(1);
      if (hasAmx) expect(on.permitted).toBe(1);
      else expect(on.permitted).not.toBe(1);
    }
    expect(off.greedy).toHaveLength(60);
    expect(off.greedy.filter((t: string) => t.length > 0).length).toBeGreaterThan(50);
    expect(off.greedy).toEqual(on.greedy);
    expect(off.beam4).toEqual(on.beam4);
  }, 240_000);

  it('too late once a session was made before (the engine must apply it first)', () => {
    const r = child('session-first');
    expect(r.status.state).toBe(hasAmx ? 'too late' : 'no amx');
    if (hasAmx) expect(r.permitted).toBe(1);
  });

  it('says what it did', () => {
    expect(applyAmxSetting(false, false).state).toBe('no amx');
    expect(applyAmxSetting(true, true)).toEqual({ state: 'on', detail: expect.stringContaining('DRAGOMAN_AMX=on') });
    expect(errnoName(constants.errno.EPERM)).toBe('EPERM');
    expect(errnoName(-12345)).toBe('errno -12345');
  });
});
