// Time as the accounts see it. Production uses the system clock; tests pass a clock they move by hand, so the
// 60 s window and the month boundary are tested without sleeping.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to (tests, benchmarks). */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
