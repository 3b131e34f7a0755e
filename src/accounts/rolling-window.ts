// In-memory rolling window per subject (client address): used for failed authentications and signups, which
// have no key to store usage under. Process-local on purpose: losing it on restart only resets a throttle.

export class RollingWindow {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  private live(subject: string, now: number): number[] {
    const list = (this.hits.get(subject) ?? []).filter((t) => t > now - this.windowMs);
    if (list.length) this.hits.set(subject, list);
    else this.hits.delete(subject);
    return list;
  }

  /** Seconds until `subject` may act again, or 0 when it is under the limit now. */
  blockedFor(subject: string, now: number): number {
    const list = this.live(subject, now);
    if (list.length < this.limit) return 0;
    const oldest = list[list.length - this.limit]!;
    return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
  }

  record(subject: string, now: number): void {
    const list = this.live(subject, now);
    list.push(now);
    this.hits.set(subject, list);
    if (this.hits.size > 100_000) this.sweep(now);
  }

  private sweep(now: number): void {
    for (const subject of [...this.hits.keys()]) this.live(subject, now);
  }
}
