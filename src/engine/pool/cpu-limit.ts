// The CPUs this process may really use. `os.availableParallelism()` counts the CPUs it may be scheduled on, not a
// container's CPU quota: a pod limited to 2 CPUs on a 32-core node saw 32, and the default pool (4 workers × 8
// onnxruntime threads, four replicas of every model) ran 32 threads on 2 CPUs' worth of time and hit its memory
// limit. The quota is read from the cgroup files (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`) of
// this process's cgroup and its ancestors; the smallest applies. poolShape shares them out as workers and threads.
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, posix } from 'node:path';
import type { Config } from '../../config/env.ts';

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** `/a/b` → `/a/b`, `/a`, `/`. */
function withAncestors(path: string): string[] {
  const out: string[] = [];
  for (let p = posix.normalize(path || '/'); ; p = posix.dirname(p)) {
    out.push(p);
    if (p === '/') return out;
  }
}

/** CPUs' worth of time the cgroup quota allows (1.5 = 150 ms per 100 ms), or undefined when there is none. */
export function cgroupCpuLimit(root = '/'): number | undefined {
  const membership = read(join(root, 'proc/self/cgroup'));
  if (!membership) return undefined;
  const limits: number[] = [];
  for (const line of membership.split('\n')) {
    const [, controllers, path] = line.split(':', 3) as [string, string | undefined, string | undefined];
    if (path === undefined) continue;
    if (controllers === '') {
      // cgroup v2 (unified), mounted at /sys/fs/cgroup (or /sys/fs/cgroup/unified beside v1 controllers).
      for (const mount of ['sys/fs/cgroup', 'sys/fs/cgroup/unified']) {
        for (const dir of withAncestors(path)) {
          const [quota, period] = (read(join(root, mount, dir, 'cpu.max')) ?? '').split(/\s+/);
          if (quota && quota !== 'max' && Number(period) > 0) limits.push(Number(quota) / Number(period));
        }
      }
    } else if (controllers?.split(',').includes('cpu')) {
      // cgroup v1: the cpu controller's own hierarchy (`cpu` or `cpu,cpuacct`); inside a container its root is the
      // container's cgroup whatever path /proc/self/cgroup names, so the mount's root is read too.
      for (const mount of ['sys/fs/cgroup/cpu', 'sys/fs/cgroup/cpu,cpuacct', 'sys/fs/cgroup/cpuacct,cpu']) {
        if (!existsSync(join(root, mount))) continue;
        for (const dir of withAncestors(path)) {
          const quota = Number(read(join(root, mount, dir, 'cpu.cfs_quota_us')));
          const period = Number(read(join(root, mount, dir, 'cpu.cfs_period_us')));
          if (quota > 0 && period > 0) limits.push(quota / period);
        }
      }
    }
  }
  return limits.length > 0 ? Math.min(...limits) : undefined;
}

/** The cores the engine shares out by default: the schedulable CPUs, or fewer when a CPU quota says so. */
export function usableCores(cpus = availableParallelism(), limit = cgroupCpuLimit()): number {
  return limit === undefined ? cpus : Math.max(1, Math.min(cpus, Math.round(limit)));
}

/**
 * Defaults for the pool on this machine: one worker per two cores, at most 4 (each worker holds a full replica of
 * every model: 4 x NLLB-600M int8 is already ~4 GB), the cores shared out as onnxruntime threads. Cores = the CPUs
 * this process may use, a container's CPU quota included (cpu-limit.ts).
 */
export function poolShape(config: Pick<Config, 'workers' | 'intraOpThreads'>, cores = usableCores()) {
  const workers = config.workers || Math.min(4, Math.max(1, Math.floor(cores / 2)));
  const intraOp = config.intraOpThreads || Math.max(1, Math.floor(cores / workers));
  return { workers, intraOp };
}
