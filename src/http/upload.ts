// A document upload: a multipart/form-data body (read whole under the route's body limit) with one file part
// and text fields. The file's bytes are kept as they came; only its name is taken from the part's header.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Busboy } from '@fastify/busboy';
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import { toApiError } from './errors.ts';

export interface Upload {
  fields: Record<string, string>;
  file?: { field: string; filename: string; bytes: Buffer };
}

const MAX_FIELDS = 32;
const MAX_FILES = 4;

export function readUpload(contentType: string, body: Buffer, fileField = 'file'): Promise<Upload> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    let file: Upload['file'];
    const malformed = (err: unknown) =>
      reject(invalidRequest(`Malformed multipart/form-data body: ${String(err instanceof Error ? err.message : err).replace(/^Multipart: |\.$/g, '')}.`));
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        // A document upload has a file and a handful of fields: thousands of parts are refused at the first one
        // past these bounds, before any key is checked (LibreTranslate's key is a field of this body).
        limits: { fieldSize: body.length + 1, fileSize: body.length + 1, fields: MAX_FIELDS, files: MAX_FILES, parts: MAX_FIELDS + MAX_FILES },
        isPartAFile: (_name, _type, filename) => filename !== undefined,
      });
    } catch (err) {
      malformed(err);
      return;
    }
    parser.on('field', (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('file', (name, stream, filename) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', () => {});
      stream.on('end', () => {
        if (name === fileField && !file) file = { field: name, filename: filename ?? '', bytes: Buffer.concat(chunks) };
      });
    });
    const tooMany = () => reject(invalidRequest(`A document upload has one file and at most ${MAX_FIELDS} other fields.`));
    parser.on('fieldsLimit', tooMany);
    parser.on('filesLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', malformed);
    parser.on('finish', () => resolve({ fields, ...(file ? { file } : {}) }));
    void feed(parser, body);
  });
}

/** Bytes parsed before the event loop gets a turn: a 30 MB upload is parsed in slices, not in one stall. */
const SLICE_BYTES = 1 << 20;

async function feed(parser: ReturnType<typeof Busboy>, body: Buffer): Promise<void> {
  for (let at = 0; at < body.length; at += SLICE_BYTES) {
    if (at > 0) await nextTurn();
    if (parser.destroyed) return;
    parser.write(body.subarray(at, at + SLICE_BYTES));
  }
  parser.end();
}

/** The route body limit for a document upload: the file plus room for the other fields and the part headers. */
export const uploadBodyLimit = (maxDocumentBytes: number): number => maxDocumentBytes + 1024 * 1024;

/** A framework error on a document upload route: a body too large names the document limit, not the text one. */
export function uploadError(error: unknown, limits: { maxDocumentBytes: number; maxBodyBytes: number }): ApiError {
  if ((error as { code?: string } | null)?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new ApiError(413, 'invalid_request', `The upload is too large: a document may have at most ${limits.maxDocumentBytes} bytes (DRAGOMAN_MAX_DOCUMENT_BYTES).`);
  }
  return toApiError(error, limits.maxBodyBytes);
}
