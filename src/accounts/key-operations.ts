// Key operations that leave an entry in the audit log: the CLI (`dragoman keys ...`) and the admin surface
// (/admin/keys) both go through here, so neither can change a key without the trail saying who, when and what.
// The entry holds the plan, limits and name; never the secret or its hash.
import type { Accounts, CreateKeyInput } from './accounts.ts';
import type { Actor, KeyRecord, LimitsPatch, PlanName } from './types.ts';

export type KeyOperationOutcome = 'done' | 'unknown' | 'revoked';

export class KeyOperations {
  constructor(
    private readonly accounts: Accounts,
    private readonly actor: Actor,
  ) {}

  private async record(action: string, keyId: string, detail: Record<string, unknown>): Promise<void> {
    await this.accounts.store.addAudit({ at: this.accounts.clock.now(), actor: this.actor, action, keyId, detail });
  }

  async create(input: CreateKeyInput): Promise<{ key: KeyRecord; secret: string }> {
    const made = await this.accounts.createKey(input);
    await this.record('key.create', made.key.id, {
      plan: made.key.plan,
      name: made.key.name,
      ...(input.monthlyChars !== undefined && { monthlyChars: input.monthlyChars }),
      ...(input.rpm !== undefined && { rpm: input.rpm }),
    });
    return made;
  }

  async revoke(id: string): Promise<KeyOperationOutcome> {
    const key = await this.accounts.store.getKey(id);
    if (!key) return 'unknown';
    if (key.revokedAt !== null) return 'revoked';
    if (!(await this.accounts.store.revokeKey(id, this.accounts.clock.now()))) return 'revoked';
    await this.record('key.revoke', id, { plan: key.plan });
    return 'done';
  }

  /** A revoked key never authenticates again: its plan and limits are left as they are ('revoked'). */
  async setPlan(id: string, plan: PlanName): Promise<KeyOperationOutcome> {
    const key = await this.accounts.store.getKey(id);
    if (!key) return 'unknown';
    if (key.revokedAt !== null) return 'revoked';
    await this.accounts.store.setKeyPlan(id, plan);
    await this.record('key.set-plan', id, { from: key.plan, to: plan });
    return 'done';
  }

  /** `plan` for a field: the key follows its plan's figure again. */
  async setLimits(id: string, limits: { monthlyChars?: number | null | 'plan'; rpm?: number | null | 'plan' }): Promise<KeyOperationOutcome> {
    const key = await this.accounts.store.getKey(id);
    if (!key) return 'unknown';
    if (key.revokedAt !== null) return 'revoked';
    const patch: LimitsPatch = {};
    if (limits.monthlyChars !== undefined && limits.monthlyChars !== 'plan') patch.monthlyChars = limits.monthlyChars;
    if (limits.rpm !== undefined && limits.rpm !== 'plan') patch.rpm = limits.rpm;
    await this.accounts.store.setKeyOverrides(id, patch);
    if (limits.monthlyChars === 'plan' || limits.rpm === 'plan') {
      await this.accounts.store.clearKeyOverrides(id, { monthlyChars: limits.monthlyChars === 'plan', rpm: limits.rpm === 'plan' });
    }
    await this.record('key.set-limits', id, { ...limits });
    return 'done';
  }
}
