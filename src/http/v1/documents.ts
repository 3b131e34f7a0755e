// /v1/documents: upload (202 with the job), the key's list (newest first, paged), status, result download and deletion. The key that made a job is the
// only one that sees it; any other gets the 404 of an unknown id.
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { viewOf } from '../../documents/index.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';
import { errorBody, logServerFailure } from '../errors.ts';
import { readUpload, uploadBodyLimit, uploadError, type Upload } from '../upload.ts';
import { attachment } from '../download.ts';
import { DOCUMENT_PAGE_DEFAULT, DOCUMENT_PAGE_MAX, documentListSchema } from './schemas.ts';

export async function documentsRoutes(app: FastifyInstance): Promise<void> {
  const { documents, config } = app.dragoman;
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, async (request: FastifyRequest, body: Buffer) =>
    readUpload(String(request.headers['content-type']), body));
  app.setErrorHandler(async (error, request, reply) => {
    const api = uploadError(error, config);
    logServerFailure(request.log, api, error);
    return reply.code(api.status).headers(api.headers).type('application/json; charset=utf-8').send(errorBody(api));
  });

  const keyId = (request: { metering: { admission?: { key: { id: string } } } | null }) => request.metering!.admission!.key.id;

  app.post('/documents', { bodyLimit: uploadBodyLimit(config.maxDocumentBytes), schema: { summary: 'Translate a document (multipart: file, target, source, glossary, memory, memoryThreshold, memoryUpdate, model)' } }, async (request, reply) => {
    const upload = request.body as Upload | undefined;
    if (!upload || typeof upload !== 'object' || !('fields' in upload)) {
      throw new ApiError(415, 'invalid_request', 'Send the document as multipart/form-data with a file field and a target field.');
    }
    if (!upload.file) throw invalidRequest("Missing required field 'file': the document to translate, as a file part of the multipart body.");
    const job = await documents.submit({
      admission: request.metering!.admission!,
      filename: upload.file.filename,
      bytes: upload.file.bytes,
      target: upload.fields.target,
      source: upload.fields.source,
      glossary: upload.fields.glossary,
      memory: { id: upload.fields.memory, threshold: upload.fields.memoryThreshold, update: upload.fields.memoryUpdate },
      model: upload.fields.model,
    });
    return reply.code(202).send({ data: { document: viewOf(job) } });
  });

  app.get('/documents', { schema: documentListSchema }, async (request) => {
    // Each a single string (the schema refuses a repeated one).
    const query = request.query as { limit?: string; cursor?: string };
    const limit = query.limit === undefined ? DOCUMENT_PAGE_DEFAULT : /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!(limit >= 1 && limit <= DOCUMENT_PAGE_MAX)) {
      throw invalidRequest(`Query parameter 'limit' must be a whole number from 1 to ${DOCUMENT_PAGE_MAX} (default ${DOCUMENT_PAGE_DEFAULT}).`);
    }
    const page = await documents.list(keyId(request), limit, query.cursor === '' ? undefined : query.cursor);
    return { data: { documents: page.jobs.map(viewOf), nextCursor: page.next ?? null } };
  });

  app.get('/documents/:id', { schema: { summary: 'A document job' } }, async (request) => {
    const { id } = request.params as { id: string };
    return { data: { document: viewOf(await documents.find(keyId(request), id)) } };
  });

  app.get('/documents/:id/result', { schema: { summary: 'The translated document' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const r = await documents.result(keyId(request), id);
    return reply.type(r.mediaType).header('content-disposition', attachment(r.filename)).send(createReadStream(r.path));
  });

  app.delete('/documents/:id', { schema: { summary: 'Delete a document job and its files' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    await documents.remove(keyId(request), id);
    return reply.code(204).send();
  });
}
