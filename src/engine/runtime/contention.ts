// Whether other processes are using the cores onnxruntime's threads need (DRAGOMAN_SPINNING=auto).
//
// Spinning between the operators of a run (`run`) makes a sentence faster on a quiet machine, because a step is ~140
// short operators and waking a sleeping thread for each costs more than the work. With one CPU-bound process beside
// it on a 2-core machine the same setting is far slower than not spinning (both measured in docs/tuning.md): a
// spinning thread holds a core the other process wants, and the thread it waits for is the one descheduled. So
// `auto` spins while the machine is otherwise quiet and stops while it is not.
//
// "Others" = CPU time the whole machine spent busy (/proc/stat, steal included: a hypervisor's other guests count)
// minus this process's own (every thread of it: the pool's other workers, the HTTP thread), in cores, over a window
// of ~0.5 s. Contended when the others leave us fewer free cores than the pool's threads need, with hysteresis so a
// short burst does not flip every step. Linux only; elsewhere it never reports contention (= `run`).
import { readFileSync } from 'node:fs';

/** /proc/stat's aggregate line: busy and total time in clock ticks, and the number of CPUs it counts. */
export interface CpuTimes {
  busyTicks: number;
  cpus: number;
}

/** USER_HZ: /proc/stat's unit on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;
/** Shortest window a decision is made on (ticks are 10 ms: shorter windows are mostly rounding). */
export const WINDOW_MS = 500;
/** A window longer than this (the engine was idle) only restarts the measurement: its average says little of now. */
const STALE_MS = 5000;
/** Cores of use by others beyond our slack that switch spinning off, and below which it comes back. */
const ENTER_CORES = 0.3;
const LEAVE_CORES = 0.15;
/** Consecutive quiet windows before spinning comes back. */
const QUIET_WINDOWS = 2;

export function readProcStat(text = readFileSync('/proc/stat', 'utf8')): CpuTimes | undefined {
  const lines = text.split('\n');
  const cpu = lines[0]?.trim().split(/\s+/);
  if (!cpu || cpu[0] !== 'cpu' || cpu.length < 8) return undefined;
  // user nice system idle iowait irq softirq steal (guest is already counted in user).
  const [user, nice, system, , , irq, softirq, steal = 0] = cpu.slice(1, 9).map(Number);
  const busyTicks = user! + nice! + system! + irq! + softirq! + steal;
  const cpus = lines.filter((l) => /^cpu\d+\s/.test(l)).length;
  return Number.isFinite(busyTicks) && cpus > 0 ? { busyTicks, cpus } : undefined;
}

export interface ContentionSources {
  /** The machine's counters; undefined when they cannot be read (not Linux). */
  machine: () => CpuTimes | undefined;
  /** This process's CPU time in microseconds (all threads). */
  ownMicros: () => number;
  nowMs: () => number;
}

const linux: ContentionSources = {
  machine: () => {
    try {
      return readProcStat();
    } catch {
      return undefined;
    }
  },
  ownMicros: () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  },
  nowMs: () => performance.now(),
};

export class CpuContention {
  private last: { at: number; busyTicks: number; ownMicros: number } | undefined;
  private contended = false;
  private quietWindows = 0;
  private unavailable = false;
  /** Cores other processes used in the last window (for logs and tests). */
  othersCores = 0;

  /**
   * `demand`: onnxruntime threads the pool runs at once (workers × threads per worker). `onChange` hears each change
   * of mind (for the log).
   */
  constructor(
    private readonly demand: number,
    private readonly sources: ContentionSources = linux,
    private readonly onChange?: (contended: boolean, othersCores: number) => void,
  ) {}

  /** Whether to run without spinning now. Cheap: reads the counters at most once per window. */
  isContended(): boolean {
    if (this.unavailable) return false;
    const now = this.sources.nowMs();
    if (this.last && now - this.last.at < WINDOW_MS) return this.contended;
    const times = this.sources.machine();
    if (!times) {
      this.unavailable = true;
      return false;
    }
    const own = this.sources.ownMicros();
    const previous = this.last;
    this.last = { at: now, busyTicks: times.busyTicks, ownMicros: own };
    if (!previous || now - previous.at > STALE_MS) return this.contended;
    const seconds = (now - previous.at) / 1000;
    const busy = (times.busyTicks - previous.busyTicks) / TICKS_PER_SECOND;
    const ours = (own - previous.ownMicros) / 1e6;
    this.othersCores = Math.max(0, (busy - ours) / seconds);
    const slack = Math.max(0, times.cpus - this.demand);
    const before = this.contended;
    if (this.othersCores > slack + ENTER_CORES) {
      this.contended = true;
      this.quietWindows = 0;
    } else if (this.othersCores < slack + LEAVE_CORES) {
      if (this.contended && ++this.quietWindows >= QUIET_WINDOWS) this.contended = false;
    } else {
      this.quietWindows = 0;
    }
    if (this.contended !== before) this.onChange?.(this.contended, this.othersCores);
    return this.contended;
  }
}
