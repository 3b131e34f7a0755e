// Account operations shared by the CLI, signup and the gate: create keys (the secret is returned once and
// only its hash is stored), authenticate a presented secret, and report usage of a period.
import { AuthenticationFailed } from './errors.ts';
import type { Clock } from './clock.ts';
import { hashesEqual, hashSecret, looksLikeSecret, newKeyId, newSecret, visiblePrefix } from './keys.ts';
import { periodBounds, periodOf } from './period.ts';
import type { AccountStore } from './store.ts';
import type { KeyRecord, Limit, Limits, PlanName } from './types.ts';

export interface CreateKeyInput {
  plan: PlanName;
  name?: string | null;
  email?: string | null;
  monthlyChars?: Limit;
  rpm?: Limit;
}

export interface UsageReport {
  keyId: string;
  plan: PlanName;
  period: string;
  periodStart: string;
  periodEnd: string;
  charactersUsed: number;
  /** null = unlimited */
  characterLimit: Limit;
  charactersRemaining: Limit;
  requests: number;
  requestsPerMinute: Limit;
}

/** What a key's contact email must look like, wherever a key is made (POST /v1/signup, `dragoman keys create`). */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value);
}

export class Accounts {
  constructor(
    readonly store: AccountStore,
    readonly clock: Clock,
  ) {}

  async createKey(input: CreateKeyInput): Promise<{ key: KeyRecord; secret: string }> {
    const secret = newSecret();
    const overrides: { monthlyChars?: Limit; rpm?: Limit } = {};
    if (input.monthlyChars !== undefined) overrides.monthlyChars = input.monthlyChars;
    if (input.rpm !== undefined) overrides.rpm = input.rpm;
    for (let attempt = 0; ; attempt++) {
      try {
        const key = await this.store.insertKey({
          id: newKeyId(),
          prefix: visiblePrefix(secret),
          hash: hashSecret(secret),
          name: input.name ?? null,
          email: input.email ?? null,
          plan: input.plan,
          overrides,
          createdAt: this.clock.now(),
        });
        return { key, secret };
      } catch (err) {
        // A 40-bit id can collide (rarely): draw another one.
        if (attempt < 3 && String((err as Error).message).includes('UNIQUE')) continue;
        throw err;
      }
    }
  }

  /** The active key for `secret`, or AuthenticationFailed saying what is wrong with it. */
  async authenticate(secret: string | undefined): Promise<KeyRecord> {
    if (secret === undefined || secret.trim() === '') {
      throw new AuthenticationFailed('missing');
    }
    const presented = secret.trim();
    if (!looksLikeSecret(presented)) {
      throw new AuthenticationFailed('malformed');
    }
    const hash = hashSecret(presented);
    const found = await this.store.findKeyByHash(hash);
    // The lookup is by hash; comparing the stored hash in constant time keeps the final check timing-flat.
    if (!found || !hashesEqual(found.hash, hash)) {
      throw new AuthenticationFailed('unknown');
    }
    if (found.key.revokedAt !== null) {
      throw new AuthenticationFailed('revoked');
    }
    return found.key;
  }

  async limits(keyId: string): Promise<Limits> {
    const limits = await this.store.limitsFor(keyId);
    if (!limits) throw new Error(`no key ${keyId}`);
    return limits;
  }

  async usage(key: KeyRecord, period = periodOf(this.clock.now())): Promise<UsageReport> {
    const [row, limits] = await Promise.all([this.store.usage(key.id, period), this.limits(key.id)]);
    const { start, end } = periodBounds(period);
    return {
      keyId: key.id,
      plan: key.plan,
      period,
      periodStart: start.toISOString(),
      periodEnd: end.toISOString(),
      charactersUsed: row.chars,
      characterLimit: limits.monthlyChars,
      charactersRemaining: limits.monthlyChars === null ? null : Math.max(0, limits.monthlyChars - row.chars),
      requests: row.requests,
      requestsPerMinute: limits.rpm,
    };
  }
}
