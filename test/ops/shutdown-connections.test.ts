// Closing the server does not wait for connections that never sent a request (a browser's speculative
// preconnect, an HTTP client's spare socket): Node counts them as waiting for headers, up to headersTimeout
// (60 s), not as idle. They are ended when the close begins; a kept-alive connection that carried a request is
// ended by Node as idle; both without holding up the close.
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { oneModelDir } from '../fixture-models.ts';
import { startTestApp } from '../api/helpers.ts';

function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('closing the server', () => {
  it('ends a connection that sent nothing and one kept alive after its request, and closes at once', { timeout: 30_000 }, async () => {
    const t = await startTestApp({ DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de') });
    const silent = await openSocket(t.url);
    const silentClosed = new Promise<void>((r) => silent.once('close', () => r()));
    silent.on('error', () => undefined);
    // A request on its own socket, answered and kept alive.
    const kept = await openSocket(t.url);
    const keptClosed = new Promise<void>((r) => kept.once('close', () => r()));
    kept.on('error', () => undefined);
    const answered = new Promise<string>((r) => kept.once('data', (d) => r(d.toString('latin1'))));
    kept.write(`GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n`);
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);

    const t0 = performance.now();
    await t.close();
    const took = performance.now() - t0;
    await Promise.all([silentClosed, keptClosed]);
    // Without the close ending it, the silent connection holds server.close() until headersTimeout (60 s).
    expect(took).toBeLessThan(10_000);
  });
});
