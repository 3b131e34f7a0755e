// The usage panel: plan, characters used of the monthly limit as a bar, requests-per-minute limit.
// It is read from GET /v1/usage after the first translation (when the minute has a request left for it) or on
// "Refresh usage"; after that each translation adds the characters the server charged (code points of q, the
// documented rule) and reads the X-RateLimit-* headers instead of calling /v1/usage again, because every call,
// /v1/usage too, counts against the per-minute limit of the key.
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

  /** A successful request charged `chars`; its X-RateLimit headers say how many requests are left. */
  charged(chars: number, rate: ApiAnswer<unknown>['rate']): void {
    if (!this.usage) return;
    this.usage.charactersUsed += chars;
    if (this.usage.characterLimit !== null) {
      this.usage.charactersRemaining = Math.max(0, this.usage.characterLimit - this.usage.charactersUsed);
    }
    this.renderChars();
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
