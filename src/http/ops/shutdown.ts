// During a graceful shutdown the requests in flight finish, but their connections would then stay open as
// keep-alive (Fastify's keepAliveTimeout is 72 s, and clients honour it), holding up server.close() and so the exit.
// Once close() has begun, every response says `Connection: close`, and Node ends the socket right after it.
import type { FastifyInstance } from 'fastify';

export function installShutdownHooks(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
