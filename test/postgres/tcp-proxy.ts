// A TCP proxy between the store and PostgreSQL that breaks connections on cue, to test what happens when a
// connection is lost in the middle of a statement (before it reached the server, or after it committed but
// before the answer came back) and while the database cannot be reached at all.
import net from 'node:net';

export type Cut = 'before-send' | 'after-commit';

export class FlakyProxy {
  private server: net.Server;
  private sockets = new Set<net.Socket>();
  private trap: { marker: string; cut: Cut; hits: number } | undefined;
  /** While true, new connections are closed at once (database "unreachable"). */
  refuse = false;
  cuts = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    server: net.Server,
  ) {
    this.server = server;
  }

  static async start(targetUrl: string): Promise<FlakyProxy> {
    const u = new URL(targetUrl);
    const server = net.createServer();
    const proxy = new FlakyProxy({ host: u.hostname, port: Number(u.port || 5432) }, server);
    server.on('connection', (c) => proxy.accept(c));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return proxy;
  }

  /** The URL of the proxied database. */
  url(targetUrl: string): string {
    const u = new URL(targetUrl);
    u.hostname = '127.0.0.1';
    u.port = String((this.server.address() as net.AddressInfo).port);
    return u.toString();
  }

  /** Break the connection of the next `hits` statements whose text contains `marker`. */
  arm(marker: string, cut: Cut, hits = 1): void {
    this.trap = { marker, cut, hits };
  }

  private accept(client: net.Socket): void {
    if (this.refuse) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    const kill = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', kill).on('close', kill);
    upstream.on('error', kill).on('close', kill);
    let cutting = false;
    upstream.on('data', (d) => {
      if (!cutting) client.write(d);
    });
    client.on('data', (d) => {
      const t = this.trap;
      if (t && t.hits > 0 && d.toString('latin1').includes(t.marker)) {
        t.hits--;
        this.cuts++;
        cutting = true;
        if (t.cut === 'before-send') {
          kill();
          return;
        }
        // Let the statement reach the server and commit, and swallow the answer.
        upstream.write(d);
        setTimeout(kill, 300);
        return;
      }
      upstream.write(d);
    });
  }

  /** Break every open connection now. */
  cutAll(): void {
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
