// The cores the pool is sized on: a container's CPU quota, read from cgroup files laid out here as the kernel does.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupCpuLimit, poolShape, usableCores } from '../../src/engine/pool/cpu-limit.ts';
import { tempDir } from './helpers.ts';

const dirs: { remove: () => void }[] = [];
afterAll(() => dirs.forEach((d) => d.remove()));

/** A filesystem root holding the given files. */
function root(files: Record<string, string>): string {
  const dir = tempDir('dragoman-cgroup-');
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir.path, path)), { recursive: true });
    writeFileSync(join(dir.path, path), content);
  }
  return dir.path;
}

describe('cgroup CPU quota', () => {
  it('v2 inside a container (cgroup namespace: the container is the root)', () => {
    expect(cgroupCpuLimit(root({ 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/cpu.max': '200000 100000\n' }))).toBe(2);
    expect(cgroupCpuLimit(root({ 'proc/self/cgroup': '0::/\n', 'sys/fs/cgroup/cpu.max': 'max 100000\n' }))).toBeUndefined();
  });

  it('v2 on a host: the process\'s own cgroup and its ancestors, the smallest', () => {
    const r = root({
      'proc/self/cgroup': '0::/kubepods/pod1/c1\n',
      'sys/fs/cgroup/kubepods/cpu.max': '800000 100000',
      'sys/fs/cgroup/kubepods/pod1/cpu.max': '150000 100000',
      'sys/fs/cgroup/kubepods/pod1/c1/cpu.max': 'max 100000',
    });
    expect(cgroupCpuLimit(r)).toBe(1.5);
  });

  it('v1 (cpu,cpuacct hierarchy; -1 = no quota), and the mount root read inside a container', () => {
    expect(cgroupCpuLimit(root({
      'proc/self/cgroup': '11:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n',
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '50000',
      'sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000',
    }))).toBe(0.5);
    expect(cgroupCpuLimit(root({
      'proc/self/cgroup': '1:cpu:/\n',
      'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1',
      'sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
    }))).toBeUndefined();
  });

  it('no cgroup files (not Linux): no limit', () => {
    expect(cgroupCpuLimit(root({}))).toBeUndefined();
  });

  it('the pool is sized on the quota, rounded, at least one core', () => {
    expect(usableCores(32, 2)).toBe(2);
    expect(usableCores(32, 1.5)).toBe(2);
    expect(usableCores(32, 0.25)).toBe(1);
    expect(usableCores(2, 8)).toBe(2);
    expect(usableCores(16, undefined)).toBe(16);
    // A 2-CPU pod on a 32-core node: one worker × 2 threads, not 4 workers × 8 threads.
    expect(poolShape({ workers: 0, intraOpThreads: 0 }, usableCores(32, 2))).toEqual({ workers: 1, intraOp: 2 });
  });
});
