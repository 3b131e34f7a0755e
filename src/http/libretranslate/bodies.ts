// Form bodies as LibreTranslate reads them (Flask's request.values): urlencoded and multipart/form-data (a
// browser's FormData). A repeated `q` is a batch; a repeated key is one key if it is the same (keys.ts); any other
// repeated field counts with its first value, as request.values.get() does. Multipart files are not fields (there
// is no /translate_file): their content is skipped. Both bodies are read whole under Fastify's bodyLimit
// (DRAGOMAN_MAX_BODY_BYTES → 413), then parsed field by field into a FormCollector, which refuses the body
// as soon as it passes the request limits (form-body.ts): the multipart parser is fed in slices and stops there.
import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidRequest } from '../../errors/api-error.ts';
import { EXTRA_FORM_FIELDS, FormCollector, formLimits, registerFormParser, type FormLimits } from '../form-body.ts';
import { readUpload } from '../upload.ts';

/**
 * Fields whose repetitions are kept: `q`, a batch of strings, and the key fields, so that one key sent twice is
 * one key and two different keys are refused (keys.ts) rather than the first one charged.
 */
const REPEATABLE = new Set(['q', 'api_key', 'apiKey']);

/** A collector of LibreTranslate's fields. */
export function libreFormCollector(limits: FormLimits): FormCollector {
  return new FormCollector(limits, (name) => REPEATABLE.has(name));
}

const REPLACEMENT_CHARACTER = Buffer.from('\ufffd');
/** Bytes handed to the multipart parser at a time, so a refusal stops it within one slice. */
const SLICE_BYTES = 16 * 1024;

const malformed = (err: unknown) =>
  invalidRequest(
    `Malformed multipart/form-data body: ${String(err instanceof Error ? err.message : err).replace(/^Multipart: |\.$/g, '')}. ` +
      `Send the fields as a browser's FormData does.`,
  );

/** The text fields of a complete multipart/form-data body, added to `fields` in order. */
export async function readMultipart(contentType: string, body: Buffer, fields: FormCollector, limits: FormLimits): Promise<void> {
  let failed: unknown;
  const fail = (err: unknown) => {
    failed ??= err;
  };
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({
      headers: { 'content-type': contentType },
      // Fields and files alike count against the request's field limit; a field larger than a request may
      // be is refused (busboy alone would cut it silently at its limit).
      limits: { fieldSize: 8 * limits.maxChars + 1, parts: limits.maxStrings + EXTRA_FORM_FIELDS + 1 },
      // As Werkzeug (request.values): a part is a file only when it has a filename, whatever its type.
      isPartAFile: (_name, _type, filename) => filename !== undefined,
    });
  } catch (err) {
    throw malformed(err);
  }
  let sawReplacement = false;
  const add = (name: string, value: string) => {
    if (failed) return;
    try {
      fields.add(name, value);
    } catch (err) {
      fail(err);
    }
  };
  parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
    if (valueTruncated) fail(invalidRequest(`Form field '${name.slice(0, 40)}' is longer than the maximum of ${limits.maxChars} characters per request.`));
    if (value.includes('\ufffd')) sawReplacement = true;
    add(name, value);
  });
  parser.on('file', (name, stream) => {
    stream.on('error', () => {}); // a truncated body is reported once, by the parser below
    stream.resume();
    add(name, ''); // counted, not kept: a file is no field of this surface
  });
  parser.on('partsLimit', () => fail(fieldsRefused(limits)));
  const finished = new Promise<void>((resolve) => {
    parser.on('error', (err) => {
      fail(malformed(err));
      resolve();
    });
    parser.on('finish', resolve);
  });
  // Slice by slice, each written once the previous one is parsed: a refusal stops the parsing there.
  for (let at = 0; at < body.length && !failed; at += SLICE_BYTES) {
    await new Promise<void>((resolve) => parser.write(body.subarray(at, at + SLICE_BYTES), () => resolve()));
  }
  if (failed) {
    parser.destroy();
    throw failed;
  }
  parser.end();
  await finished;
  if (failed) throw failed;
  // busboy turns bytes that are not UTF-8 into U+FFFD; a U+FFFD the client really sent is in the body as EF BF BD.
  if (sawReplacement && !body.includes(REPLACEMENT_CHARACTER)) {
    throw invalidRequest('A multipart/form-data field is not valid UTF-8: send the fields as UTF-8.');
  }
}

function fieldsRefused(limits: FormLimits) {
  return invalidRequest(
    `The form has more than ${limits.maxStrings + EXTRA_FORM_FIELDS} parts: at most ${limits.maxStrings} strings in 'q' ` +
      `and a few other fields. Split the strings over several requests.`,
  );
}

/** Registers both form parsers on the surface's (encapsulated) instance; JSON stays Fastify's own. */
export async function registerFormParsers(app: FastifyInstance): Promise<void> {
  const limits = formLimits(app.dragoman.config);
  registerFormParser(app, () => libreFormCollector(limits));
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) => {
    const contentType = String(request.headers['content-type']);
    // /translate_file: the file part is the document (its route's body limit is the document limit).
    if (request.routeOptions.url?.endsWith('/translate_file')) {
      const upload = await readUpload(contentType, body);
      return { ...upload.fields, ...(upload.file ? { file: upload.file } : {}) };
    }
    const fields = libreFormCollector(limits);
    await readMultipart(contentType, body, fields, limits);
    return fields.result();
  });
}
