// During a graceful shutdown the requests in flight finish, but their connections would then stay open as
// keep-alive (Fastify's keepAliveTimeout is 72 s, and clients honour it), holding up server.close() and so the exit.
// Once close() has begun, every response says `Connection: close`, and Node ends the socket right after it.
//
// A connection that has not sent a request yet (a browser's speculative preconnect, an HTTP client's spare socket)
// is not idle to Node: it waits for its headers, up to headersTimeout (60 s), and server.close() waits with it.
// Such connections are ended when the close begins: there is no request on them to finish.
import type { Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { FastifyInstance } from 'fastify';

export function installShutdownHooks(app: FastifyInstance): void {
  let closing = false;
  const unused = new Set<Socket>();
  // Over TLS a request's socket is the TLS socket, so that is the one followed (a handshake still under way is
  // left to the handshake timeout).
  const opened = app.server instanceof TlsServer ? 'secureConnection' : 'connection';
  app.server.on(opened, (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (request: { socket: Socket }) => unused.delete(request.socket));
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of unused) socket.destroy();
    unused.clear();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
