// POST /v1/signup: a new free-plan key, no key or payment data needed. Limited per client address (a few per
// hour) so nobody can mint keys in bulk to escape the per-key limits. The key is made through key-operations.ts as the
// actor `signup`, so the audit log holds every key there is, whoever made it.
import type { FastifyInstance } from 'fastify';
import { isEmailAddress } from '../../accounts/accounts.ts';
import { KeyOperations } from '../../accounts/key-operations.ts';
import { checkFreeText } from '../../accounts/free-text.ts';
import { addressLimited } from '../../accounts/gate.ts';
import { RollingWindow } from '../../accounts/rolling-window.ts';
import { invalidRequest } from '../../errors/api-error.ts';
import { signupSchema } from './schemas.ts';

export const SIGNUPS_PER_HOUR = 5;

export async function signupRoutes(app: FastifyInstance): Promise<void> {
  const { accounts, clock } = app.dragoman;
  const window = new RollingWindow(SIGNUPS_PER_HOUR, 3_600_000);
  const operations = new KeyOperations(accounts, 'signup');
  app.post('/signup', { schema: signupSchema, config: { public: true } }, async (request, reply) => {
    const now = clock.now();
    const wait = window.blockedFor(request.ip, now);
    if (wait > 0) throw addressLimited(wait, `Too many signups from this address: at most ${SIGNUPS_PER_HOUR} keys per hour.`);
    const body = (request.body ?? {}) as { email?: string; name?: string };
    checkFreeText('name', body.name);
    checkFreeText('email', body.email);
    if (body.email !== undefined && !isEmailAddress(body.email)) {
      throw invalidRequest(`Field 'email' is not an email address.`);
    }
    window.record(request.ip, now);
    const { key, secret } = await operations.create({ plan: 'free', email: body.email, name: body.name });
    reply.code(201);
    return {
      data: {
        id: key.id,
        key: secret,
        plan: key.plan,
        message: 'Store this key now: it is shown only once. Send it in the X-API-Key header.',
      },
    };
  });
}
