import { describe, expect, it } from 'vitest';
import { hashesEqual, hashSecret, looksLikeSecret, newSecret, visiblePrefix } from '../../src/accounts/keys.ts';
import { periodBounds, periodOf } from '../../src/accounts/period.ts';

describe('key secrets', () => {
  it('are dk_ + 192 random bits, distinct, hashed with sha256', () => {
    const a = newSecret();
    const b = newSecret();
    expect(a).toMatch(/^dk_[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(a.slice(3), 'base64url')).toHaveLength(24);
    expect(a).not.toBe(b);
    expect(looksLikeSecret(a)).toBe(true);
    expect(looksLikeSecret(a.slice(0, -1))).toBe(false);
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hashSecret(a), hashSecret(a))).toBe(true);
    expect(hashesEqual(hashSecret(a), hashSecret(b))).toBe(false);
    expect(visiblePrefix(a)).toBe(a.slice(0, 9));
  });
});

describe('quota period', () => {
  it('is the calendar month in UTC', () => {
    expect(periodOf(Date.UTC(2026, 0, 31, 23, 59, 59, 999))).toBe('2026-01');
    expect(periodOf(Date.UTC(2026, 1, 1, 0, 0, 0))).toBe('2026-02');
    expect(periodBounds('2026-12')).toEqual({
      start: new Date('2026-12-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
    });
  });
});
