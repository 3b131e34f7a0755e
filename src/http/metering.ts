// Metering wired into Fastify, for every surface: `admit` (authenticate + rate limit, X-RateLimit-* headers),
// `charge` (the request's characters, before the work) and the refund, done in `onSend` whenever the
// response status is 4xx/5xx so a failed request never costs characters (and when the client hangs up first).
// onSend runs before the response leaves, so a client that reads its usage right after a failure already sees
// the refund.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Admission, Gate } from '../accounts/gate.ts';
import type { Charge } from '../accounts/types.ts';
import type { PlanFlags } from '../config/env.ts';
import { rateLimitHeaders } from './domain-errors.ts';

interface RequestMetering {
  admission?: Admission;
  charge?: Charge;
  /** X-Dragoman-Plan / -Characters-Used / -Characters-Limit, sent with a successful answer. */
  quota?: Record<string, string>;
  refunded?: boolean;
  /** Aborted when the client closes the connection before its answer. */
  gone: AbortController;
}

declare module 'fastify' {
  interface FastifyRequest {
    metering: RequestMetering | null;
  }
}

async function refundOnce(gate: Gate, request: FastifyRequest, m: RequestMetering): Promise<void> {
  if (!m.charge || m.refunded) return;
  m.refunded = true;
  try {
    await gate.refund(m.charge);
  } catch (err) {
    request.log.error({ err, keyId: m.charge.keyId }, 'refund failed');
  }
}

export function installMetering(app: FastifyInstance, gate: Gate): void {
  app.decorateRequest('metering', null);

  app.addHook('onSend', async (request, reply, payload) => {
    const m = request.metering;
    if (m && reply.statusCode >= 400) await refundOnce(gate, request, m);
    // The month's characters after this request, so a client (the web page) shows its meter without asking
    // GET /v1/usage, which would cost a request of the minute. Not on a failure: that was refunded.
    else if (m?.quota) void reply.headers(m.quota);
    return payload;
  });
}

/**
 * Authenticate `secret` and count the request against the key's rate limit; X-RateLimit-* headers go on the reply.
 * `sharedKeyId` instead meters a request without a secret against that key (the web page's DRAGOMAN_UI_KEY).
 */
export async function admit(
  gate: Gate,
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string | undefined,
  sharedKeyId?: string,
): Promise<Admission> {
  const admission = sharedKeyId === undefined ? await gate.admit(secret, request.ip) : await gate.admitKeyId(sharedKeyId, request.ip);
  const m: RequestMetering = { admission, gone: new AbortController() };
  request.metering = m;
  reply.headers(rateLimitHeaders(admission.rate));
  // A client that hung up before its answer got nothing: its characters are given back, so a retry is charged once,
  // not twice, and its sentences still waiting for the engine are dropped (`gone`; a batch already in onnxruntime
  // cannot be cancelled). Fastify's onRequestAbort does not fire once the body has been read, when the work starts.
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return;
    request.log.info({ refunded: Boolean(m.charge && !m.refunded) }, 'client closed the connection before the answer');
    m.gone.abort();
    void refundOnce(gate, request, m);
  });
  return admission;
}

/** Charge `chars` before the work (QuotaExceeded when they do not fit; nothing charged then). */
export async function charge(gate: Gate, request: FastifyRequest, chars: number): Promise<void> {
  const m = request.metering;
  if (!m?.admission) throw new Error('charge() before admit()');
  if (m.charge) throw new Error('a request is charged once');
  const { charge: charged, used, limit } = await gate.charge(m.admission, chars);
  m.charge = charged;
  m.quota = {
    'x-dragoman-plan': m.admission.key.plan,
    'x-dragoman-characters-used': String(used),
    'x-dragoman-characters-limit': limit === null ? 'unlimited' : String(limit),
  };
}

/** Aborted when the client of an admitted request has gone: the service drops its work still waiting. */
export function clientGone(request: FastifyRequest): AbortSignal | undefined {
  return request.metering?.gone.signal;
}

/**
 * The characters a translation memory served (exact segments), given back once the request is answered when the
 * key's plan does not charge them (DRAGOMAN_MEMORY_CHARGED, DRAGOMAN_MEMORY_CHARGED_<PLAN>); /v1/usage counts them
 * apart either way. A credit that fails leaves them charged: the answer is not withheld for it.
 */
export async function settleMemory(gate: Gate, request: FastifyRequest, chars: number, charged: PlanFlags): Promise<void> {
  const m = request.metering;
  if (!m?.charge || !m.admission || chars <= 0 || charged[m.admission.key.plan]) return;
  try {
    const before = m.charge.chars;
    m.charge = await gate.credit(m.charge, chars);
    const used = m.quota?.['x-dragoman-characters-used'];
    if (used !== undefined) m.quota!['x-dragoman-characters-used'] = String(Math.max(0, Number(used) - (before - m.charge.chars)));
  } catch (err) {
    request.log.error({ err, keyId: m.charge.keyId }, 'memory characters not credited');
  }
}
