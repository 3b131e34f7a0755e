// DeepL's document translation (/v2/document: upload, status, result) on the documents job engine: the same
// checks, the same charge at acceptance (what /v1/usage counts), the same jobs and files as /v1/documents. A job
// belongs to the key that made it (another key gets the 404 of an unknown document), and DeepL's document_key is
// derived, not stored: an HMAC of the document id under the uploading key's secret, so only that key's holder
// can present it and every replica can check it. The result is deleted once it has been downloaded whole, as
// DeepL deletes it. Each decision is in docs/deepl.md.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { detectFormat, type JobRecord } from '../../documents/index.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';
import { attachment } from '../download.ts';
import { readUpload, uploadBodyLimit, uploadError, type Upload } from '../upload.ts';
import { deeplKey } from './auth-key.ts';
import { setDeepLErrors } from './errors.ts';
import { fromDeepL } from './languages.ts';
import { formalityOf, glossaryIdOf, memoryOf, requestFields, single, type Fields } from './params.ts';

/** DeepL's document_key for a document: 64 hex digits only the uploading key's holder can compute. */
export function documentKey(secret: string, documentId: string): string {
  return createHmac('sha256', secret).update(`deepl-document:${documentId}`).digest('hex');
}

const documentNotFound = () => new ApiError(404, 'invalid_request', 'Document not found: it does not exist, has expired, was downloaded already, or the document_key is wrong.');

export async function documentRoutes(app: FastifyInstance): Promise<void> {
  const { documents, config, clock } = app.dragoman;
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) =>
    readUpload(String(request.headers['content-type']), body));
  setDeepLErrors(app, (error) => uploadError(error, config));

  const keyIdOf = (request: FastifyRequest) => request.metering!.admission!.key.id;

  /** The caller's document named by the path and the body's document_key (404 for anything else). */
  async function owned(request: FastifyRequest): Promise<JobRecord> {
    const { document_id: id } = request.params as { document_id: string };
    const given = single(requestFields(request.query, request.body), 'document_key');
    if (given === undefined || given === '') throw invalidRequest("Parameter 'document_key' not specified.");
    const job = await documents.find(keyIdOf(request), id).catch((err: unknown) => {
      throw err instanceof ApiError && err.status === 404 ? documentNotFound() : err;
    });
    const expected = Buffer.from(documentKey(deeplKey(request)!, job.id));
    const presented = Buffer.from(given.toLowerCase());
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw documentNotFound();
    return job;
  }

  app.post('/document', { bodyLimit: uploadBodyLimit(config.maxDocumentBytes), schema: { summary: 'Translate a document (DeepL: multipart file, target_lang)' } }, async (request) => {
    const upload = request.body as Upload | undefined;
    if (!upload || typeof upload !== 'object' || !('fields' in upload) || !upload.file) {
      throw invalidRequest('Invalid file data: send the document as multipart/form-data with a file part named "file".');
    }
    const fields: Fields = upload.fields;
    if (fields.target_lang === undefined || fields.target_lang === '') throw invalidRequest("Parameter 'target_lang' not specified.");
    const target = fromDeepL('target_lang', single(fields, 'target_lang'))!;
    const source = fromDeepL('source_lang', single(fields, 'source_lang'));
    if (source && source.flores === target.flores) throw invalidRequest('Source and target language are equal.');
    // Documents take no prompt additions here: a register is refused as for a language without one.
    if (formalityOf(fields)?.required) throw invalidRequest("'formality' is not supported for given 'target_lang'.");
    const memory = memoryOf(fields, keyIdOf(request));
    const glossary = glossaryIdOf(fields, source !== undefined);
    const filename = upload.file.filename || single(fields, 'filename') || 'document';
    checkOutputFormat(single(fields, 'output_format'), upload.file.bytes, filename);
    const job = await documents.submit({
      admission: request.metering!.admission!,
      filename,
      bytes: upload.file.bytes,
      target: target.code,
      source: source?.code,
      glossary,
      ...(memory ? { memory: { id: memory.id, threshold: memory.threshold } } : {}),
    });
    return { document_id: job.id, document_key: documentKey(deeplKey(request)!, job.id) };
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/document/:document_id',
    schema: { summary: "A document's status (DeepL: document_key)" },
    handler: async (request) => {
      const job = await owned(request);
      const remaining = secondsRemaining(job, clock.now());
      return {
        document_id: job.id,
        status: job.status,
        ...(remaining !== undefined ? { seconds_remaining: remaining } : {}),
        ...(job.status === 'done' ? { billed_characters: job.characters } : {}),
        ...(job.status === 'error' ? { error_message: job.error ?? 'The translation failed.' } : {}),
      };
    },
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/document/:document_id/result',
    schema: { summary: 'The translated document (DeepL: document_key)' },
    handler: async (request, reply) => {
      const job = await owned(request);
      if (job.status !== 'done') {
        // DeepL's answer for a document not ready to download: 503 (deepl-node's DocumentNotReadyError).
        throw new ApiError(503, 'server_error', job.status === 'error'
          ? `Document translation failed: ${job.error ?? 'see its status'}`
          : `Document translation is not done (status ${job.status}): ask again once its status is done.`);
      }
      const r = await documents.result(keyIdOf(request), job.id);
      // Deleted once sent whole; a download cut short keeps the document for another try (until it expires).
      reply.raw.once('finish', () => {
        documents.remove(keyIdOf(request), job.id).catch((err: unknown) => request.log.error({ err, document: job.id }, 'document deletion after download failed'));
      });
      return reply.type(r.mediaType).header('content-disposition', attachment(job.filename)).send(createReadStream(r.path));
    },
  });
}

/**
 * `output_format`: this server writes each document in its own format, so the only format it can give is the
 * upload's (named by the format or by the file's extension); any conversion is refused before anything is charged.
 */
function checkOutputFormat(wanted: string | undefined, bytes: Uint8Array, filename: string): void {
  if (!wanted) return;
  const ext = wanted.trim().replace(/^\./, '').toLowerCase();
  let own: string | undefined;
  try {
    own = detectFormat(bytes, filename).extension;
  } catch {
    return; // not a document this server reads: the upload's own check names the problem
  }
  const named = filename.slice(filename.lastIndexOf('.') + 1).toLowerCase();
  if (ext !== own && ext !== named) {
    throw invalidRequest(`Value for 'output_format' not supported: this server gives a document back in its own format ('${own}'), it does not convert to '${ext.slice(0, 20)}'.`);
  }
}

/** While translating: the time left at the rate so far (none before the first batch is done). */
function secondsRemaining(job: JobRecord, now: number): number | undefined {
  if (job.status !== 'translating' || job.progress <= 0) return undefined;
  const elapsed = Math.max(0, now - job.createdAt) / 1000;
  return Math.round((elapsed * (1 - job.progress)) / job.progress);
}
