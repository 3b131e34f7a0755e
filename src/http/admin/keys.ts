// /admin/keys: list, create (the secret is in the answer once), set plan and limits, revoke. Every change goes
// through KeyOperations as the actor "admin", so it is in the audit log.
import type { FastifyInstance } from 'fastify';
import { isEmailAddress } from '../../accounts/accounts.ts';
import { unsafeCharacter } from '../../accounts/free-text.ts';
import { KeyOperations, type KeyOperationOutcome } from '../../accounts/key-operations.ts';
import { isPlanName, PLAN_NAMES, type PlanName } from '../../accounts/types.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';

type LimitValue = number | null | 'plan';

function field(body: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
}

function planOf(value: unknown): PlanName {
  if (typeof value !== 'string' || !isPlanName(value)) throw invalidRequest(`"plan" must be one of ${PLAN_NAMES.join(', ')}.`);
  return value;
}

/** A limit: a non-negative integer, null (unlimited), or "plan" (follow the plan) where allowed. */
function limitOf(name: string, value: unknown, planAllowed: boolean): LimitValue | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === 'unlimited') return null;
  if (planAllowed && value === 'plan') return 'plan';
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw invalidRequest(`"${name}" must be a non-negative integer, null or "unlimited"${planAllowed ? ', or "plan"' : ''}.`);
}

function textOf(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > 200) throw invalidRequest(`"${name}" must be a string of at most 200 characters.`);
  const bad = unsafeCharacter(value);
  if (bad) throw invalidRequest(`"${name}" contains the control character ${bad}.`);
  return value;
}

function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidRequest('The body must be a JSON object.');
  return body as Record<string, unknown>;
}

function outcome(id: string, result: KeyOperationOutcome): void {
  if (result === 'unknown') throw new ApiError(404, 'invalid_request', `No key with id "${id.slice(0, 80)}".`);
  if (result === 'revoked') throw new ApiError(409, 'invalid_request', `Key ${id} is revoked: it cannot be used again, so it is not changed.`);
}

export async function adminKeyRoutes(app: FastifyInstance): Promise<void> {
  const { accounts } = app.dragoman;
  const ops = new KeyOperations(accounts, 'admin');

  app.get('/keys', { schema: { hide: true } }, async () => {
    const keys = await accounts.store.listKeys();
    const limits = await Promise.all(keys.map((k) => accounts.limits(k.id)));
    return { data: keys.map((k, i) => ({ ...k, limits: limits[i] })) };
  });

  app.post('/keys', { schema: { hide: true } }, async (request, reply) => {
    const body = bodyOf(request.body);
    const email = textOf('email', field(body, 'email'));
    if (email !== undefined && !isEmailAddress(email)) throw invalidRequest('"email" is not an email address.');
    const monthlyChars = limitOf('monthlyChars', field(body, 'monthlyChars'), false) as number | null | undefined;
    const rpm = limitOf('rpm', field(body, 'rpm'), false) as number | null | undefined;
    const { key, secret } = await ops.create({
      plan: planOf(field(body, 'plan')),
      name: textOf('name', field(body, 'name')) ?? null,
      email: email ?? null,
      ...(monthlyChars !== undefined && { monthlyChars }),
      ...(rpm !== undefined && { rpm }),
    });
    return reply.code(201).send({ data: { ...key, secret } });
  });

  app.patch<{ Params: { id: string } }>('/keys/:id', { schema: { hide: true } }, async (request) => {
    const { id } = request.params;
    const body = bodyOf(request.body);
    const plan = field(body, 'plan');
    const monthlyChars = limitOf('monthlyChars', field(body, 'monthlyChars'), true);
    const rpm = limitOf('rpm', field(body, 'rpm'), true);
    if (plan === undefined && monthlyChars === undefined && rpm === undefined) {
      throw invalidRequest('Give at least one of "plan", "monthlyChars", "rpm".');
    }
    if (plan !== undefined) outcome(id, await ops.setPlan(id, planOf(plan)));
    if (monthlyChars !== undefined || rpm !== undefined) {
      outcome(id, await ops.setLimits(id, { ...(monthlyChars !== undefined && { monthlyChars }), ...(rpm !== undefined && { rpm }) }));
    }
    const key = (await accounts.store.getKey(id))!;
    return { data: { ...key, limits: await accounts.limits(id) } };
  });

  app.delete<{ Params: { id: string } }>('/keys/:id', { schema: { hide: true } }, async (request) => {
    const { id } = request.params;
    outcome(id, await ops.revoke(id));
    return { data: await accounts.store.getKey(id) };
  });
}
