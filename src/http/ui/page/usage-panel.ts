// The usage panel: plan, characters used of the monthly limit as a bar, requests-per-minute limit.
// Filled from the headers of each translation or detection (X-Dragoman-Plan / -Characters-Used / -Characters-Limit
// and X-RateLimit-*), and from GET /v1/usage only on "Refresh usage": every call, /v1/usage too, counts against the
// key's requests per minute, so reading the meter by itself would cost the user a translation.
import type { ApiAnswer, Usage } from './api.ts';
import { formatCount, formatPercent } from './messages.ts';

export class UsagePanel {
  private usage: Usage | null = null;

  constructor(private readonly root: HTMLElement) {}

  private el<T extends HTMLElement>(id: string): T {
    return this.root.querySelector<T>(`#${id}`)!;
  }

  get loaded(): boolean {
    return this.usage !== null;
  }

  /** No usage shown; with a key entered (`note` given) "Refresh usage" can read it. */
  clear(note?: string): void {
    this.usage = null;
    this.el('usage-details').hidden = true;
    this.el('usage-refresh').hidden = note === undefined;
    this.el('usage-note').textContent = '';
    const empty = this.el('usage-empty');
    empty.hidden = false;
    empty.textContent = note ?? 'Enter a key to see its plan and usage.';
  }

  note(text: string): void {
    this.el('usage-note').textContent = text;
  }

  show(u: Usage): void {
    this.usage = { ...u };
    this.el('usage-empty').hidden = true;
    this.el('usage-details').hidden = false;
    this.el('usage-refresh').hidden = false;
    this.el('usage-plan').textContent = u.plan;
    this.renderChars();
    this.el('usage-rpm').textContent =
      u.requestsPerMinute === null ? 'unlimited' : `${formatCount(u.requestsPerMinute)} requests per minute`;
    this.el('usage-reset').textContent = new Date(u.periodEnd).toLocaleString(undefined, {
      dateStyle: 'medium',
      timeStyle: 'short',
    });
    this.note('');
  }

  /** What a charged answer's headers say: the month's characters after it, the plan, the minute's requests. */
  fromAnswer(quota: NonNullable<ApiAnswer<unknown>['quota']>, rate: ApiAnswer<unknown>['rate']): void {
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    this.show({
      ...(this.usage ?? { keyId: '', period: '', periodStart: '', requests: 0 }),
      plan: quota.plan,
      periodEnd: nextMonth.toISOString(),
      charactersUsed: quota.used,
      characterLimit: quota.limit,
      charactersRemaining: quota.limit === null ? null : Math.max(0, quota.limit - quota.used),
      requestsPerMinute: rate ? rate.limit : null,
    });
    if (rate) this.note(`${formatCount(rate.remaining)} of ${formatCount(rate.limit)} requests left in this minute.`);
  }

  private renderChars(): void {
    const u = this.usage!;
    const bar = this.el<HTMLProgressElement>('usage-bar');
    const chars = this.el('usage-chars');
    if (u.characterLimit === null) {
      bar.hidden = true;
      chars.textContent = `${formatCount(u.charactersUsed)} characters used (no monthly limit)`;
      return;
    }
    bar.hidden = false;
    bar.max = Math.max(1, u.characterLimit);
    bar.value = Math.min(u.charactersUsed, u.characterLimit);
    const share = u.characterLimit > 0 ? u.charactersUsed / u.characterLimit : 1;
    chars.textContent =
      `${formatCount(u.charactersUsed)} of ${formatCount(u.characterLimit)} characters used (${formatPercent(share)})`;
  }
}
