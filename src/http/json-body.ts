// JSON bodies must be UTF-8 (RFC 8259). Node would decode other bytes to U+FFFD and the request would be
// translated — and charged — with characters the client never sent; such a body is a 400 instead.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../service/errors.ts';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export function installJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(new ApiError(400, 'invalid_request', 'The request body is not valid UTF-8: JSON must be sent as UTF-8.'), undefined);
      return;
    }
    parseJson(request, text, done);
  });
}
