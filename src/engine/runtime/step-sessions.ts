// The decoder's step model (split: its with-past model; else the merged file) under DRAGOMAN_SPINNING=auto: a
// spinning session while the cores are free, a non-spinning one of the same graph while other processes use them
// (contention.ts). Only how idle threads wait differs, not the arithmetic, so either gives the same tokens.
//
// The one not in use is released after IDLE_RELEASE_MS: both OPUS-MT-base step sessions open are +240-270 MB
// resident, and a machine that was busy once should not pay that for ever (glibc may keep part of it all the same). Opening one (reading
// the decoder file again, cutting, fusing, onnxruntime's own load) takes ~0.5-1 s on OPUS-MT-base; it happens in
// the background while steps go on on the other, and at most once per IDLE_RELEASE_MS per direction.
import ort from 'onnxruntime-node';
import type { CpuContention } from './contention.ts';

type Mode = 'spin' | 'calm';

export const IDLE_RELEASE_MS = 60_000;

export class StepSessions {
  private readonly open: Partial<Record<Mode, ort.InferenceSession>> = {};
  private readonly opening: Partial<Record<Mode, Promise<void>>> = {};
  private readonly lastUsed: Record<Mode, number> = { spin: 0, calm: 0 };
  /** A twin that failed to open (or differs) is not tried again: steps stay on the session that works. */
  private failed = false;
  private closed = false;

  constructor(
    spinning: ort.InferenceSession,
    private readonly contention: CpuContention,
    /** The step model's bytes again, exactly as `spinning` was made from them. */
    private readonly rebuild: () => Promise<Uint8Array>,
    private readonly options: Record<Mode, ort.InferenceSession.SessionOptions>,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.open.spin = spinning;
    this.lastUsed.spin = now();
  }

  /** The session for the next step. */
  pick(): ort.InferenceSession {
    const want: Mode = this.contention.isContended() ? 'calm' : 'spin';
    const other: Mode = want === 'spin' ? 'calm' : 'spin';
    if (!this.open[want] && !this.opening[want] && !this.failed) this.opening[want] = this.openMode(want);
    const mode = this.open[want] ? want : other;
    const now = this.now();
    this.lastUsed[mode] = now;
    const idle: Mode = mode === 'spin' ? 'calm' : 'spin';
    const idleSession = this.open[idle];
    if (idleSession && now - this.lastUsed[idle] > IDLE_RELEASE_MS) {
      delete this.open[idle];
      void idleSession.release().catch(() => undefined);
    }
    return this.open[mode]!;
  }

  /** Which session the next step would run on, without asking for one to be opened (tests, logs). */
  get current(): Mode {
    const want: Mode = this.contention.isContended() ? 'calm' : 'spin';
    return this.open[want] ? want : want === 'spin' ? 'calm' : 'spin';
  }

  /** Sessions open now (1 or 2). */
  get openCount(): number {
    return Object.keys(this.open).length;
  }

  private async openMode(mode: Mode): Promise<void> {
    try {
      const session = await ort.InferenceSession.create(await this.rebuild(), this.options[mode]);
      const ref = this.open.spin ?? this.open.calm;
      const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((n, i) => n === b[i]);
      if (this.closed || !ref || !same(session.inputNames, ref.inputNames) || !same(session.outputNames, ref.outputNames)) {
        if (!this.closed) this.failed = true;
        await session.release();
        return;
      }
      this.open[mode] = session;
      this.lastUsed[mode] = this.now();
    } catch {
      // Slower on a shared machine (or a quiet one), never wrong: the session that works stays.
      this.failed = true;
    } finally {
      delete this.opening[mode];
    }
  }

  async release(): Promise<void> {
    this.closed = true;
    await Promise.all(Object.values(this.opening));
    for (const mode of ['spin', 'calm'] as const) {
      const session = this.open[mode];
      delete this.open[mode];
      await session?.release();
    }
  }
}
