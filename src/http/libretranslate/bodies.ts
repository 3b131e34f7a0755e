// Form bodies as LibreTranslate reads them (Flask's request.values): urlencoded and multipart/form-data (a
// browser's FormData). A repeated `q` is a batch; any other repeated field counts with its first value, as
// request.values.get() does (`-d api_key=K -d api_key=K` is one key). Multipart files are not fields (there
// is no /translate_file): their content is skipped. Both bodies are read whole under Fastify's bodyLimit
// (DRAGOMAN_MAX_BODY_BYTES → 413) before they are parsed, so no field can be larger than the body.
import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../service/errors.ts';
import { registerFormParser } from '../form-body.ts';
import { readUpload } from '../upload.ts';
import type { LibreBody } from './params.ts';

/** The one field whose repetitions are kept: a batch of strings. */
const REPEATABLE = 'q';

/** Fields in arrival order → LibreTranslate's fields (own properties only, so `__proto__` is just a name). */
export function formFields(entries: Iterable<[string, string]>): LibreBody {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of entries) {
    const seen = fields.get(name);
    if (seen === undefined) fields.set(name, value);
    else if (name === REPEATABLE) fields.set(name, [seen, value].flat());
  }
  return Object.fromEntries(fields);
}

const REPLACEMENT_CHARACTER = Buffer.from('\ufffd');

const malformed = (err: unknown) =>
  invalidRequest(
    `Malformed multipart/form-data body: ${String(err instanceof Error ? err.message : err).replace(/^Multipart: |\.$/g, '')}. ` +
      `Send the fields as a browser's FormData does.`,
  );

/** The text fields of a complete multipart/form-data body, in order. */
export function multipartEntries(contentType: string, body: Buffer): Promise<[string, string][]> {
  return new Promise((resolve, reject) => {
    const entries: [string, string][] = [];
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        // The whole body is already within the body limit; busboy's own 1 MiB default would cut a field
        // silently instead.
        limits: { fieldSize: body.length + 1 },
        // As Werkzeug (request.values): a part is a file only when it has a filename, whatever its type.
        isPartAFile: (_name, _type, filename) => filename !== undefined,
      });
    } catch (err) {
      reject(malformed(err));
      return;
    }
    parser.on('field', (name, value) => entries.push([name, value]));
    parser.on('file', (_name, stream) => {
      stream.on('error', () => {}); // a truncated body is reported once, by the parser below
      stream.resume();
    });
    parser.on('error', (err) => reject(malformed(err)));
    parser.on('finish', () => {
      // busboy turns bytes that are not UTF-8 into U+FFFD; a U+FFFD the client really sent is in the body as EF BF BD.
      if (entries.some(([, value]) => value.includes('\ufffd')) && !body.includes(REPLACEMENT_CHARACTER)) {
        reject(invalidRequest('A multipart/form-data field is not valid UTF-8: send the fields as UTF-8.'));
        return;
      }
      resolve(entries);
    });
    parser.end(body);
  });
}

/** Registers both form parsers on the surface's (encapsulated) instance; JSON stays Fastify's own. */
export async function registerFormParsers(app: FastifyInstance): Promise<void> {
  registerFormParser(app, formFields);
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    const contentType = String(request.headers['content-type']);
    // /translate_file: the file part is the document (its route's body limit is the document limit).
    if (request.routeOptions.url?.endsWith('/translate_file')) {
      const upload = await readUpload(contentType, body);
      return { ...upload.fields, ...(upload.file ? { file: upload.file } : {}) };
    }
    return formFields(await multipartEntries(contentType, body));
  });
}
