// The admin page: GET /admin (admin.html), /admin/admin.js, /admin/admin.css, read once from page/ beside this
// module, served under the web page's Content-Security-Policy (nothing inline, nothing from another origin).
// The files hold no data; every figure comes from the token-protected API the script calls.
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { CONTENT_SECURITY_POLICY } from '../ui/index.ts';

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'admin.html', type: 'text/html; charset=utf-8' },
  '/admin.js': { file: 'admin.js', type: 'text/javascript; charset=utf-8' },
  '/admin.css': { file: 'admin.css', type: 'text/css; charset=utf-8' },
};

export async function adminPageRoutes(app: FastifyInstance): Promise<void> {
  for (const [path, { file, type }] of Object.entries(FILES)) {
    const body = readFileSync(new URL(`./page/${file}`, import.meta.url));
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .headers({
          'content-security-policy': CONTENT_SECURITY_POLICY,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'x-frame-options': 'DENY',
          'cache-control': 'no-cache',
        })
        .type(type)
        .send(body),
    );
  }
}
