// LibreTranslate's file translation: POST /translate_file (multipart file, source or auto, target, api_key)
// answers {"translatedFileUrl": ...} once the file is translated (synchronous, as LibreTranslate is), and
// GET /download_file/<name> serves it without a key, as LibreTranslate does (the name holds the job's random id).
import { createReadStream } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { viewOf } from '../../documents/index.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';
import { attachment } from '../download.ts';
import { uploadBodyLimit, type Upload } from '../upload.ts';
import { LIBRETRANSLATE_PREFIX } from './errors.ts';
import { libreBody, libreCode, libreSource } from './params.ts';

export async function fileRoutes(app: FastifyInstance): Promise<void> {
  const { documents, config } = app.dragoman;

  app.post('/translate_file', { bodyLimit: uploadBodyLimit(config.maxDocumentBytes), schema: { summary: 'Translate a file (LibreTranslate)', hide: false } }, async (request) => {
    const body = libreBody(request.body);
    const file = body.file as Upload['file'] | undefined;
    if (!file) throw invalidRequest('Invalid request: missing file parameter');
    if (body.target === undefined || body.target === '') throw invalidRequest('Invalid request: missing target parameter');
    const job = await documents.submit({
      admission: request.metering!.admission!,
      filename: file.filename,
      bytes: file.bytes,
      target: libreCode(body.target),
      source: libreSource(body.source),
    });
    const settled = await documents.settled(job.id);
    if (settled.status !== 'done') {
      throw new ApiError(500, 'server_error', viewOf(settled).error?.message ?? 'The file could not be translated.');
    }
    const r = await documents.result(settled.keyId, settled.id);
    const host = request.headers.host ?? `${request.hostname}`;
    return { translatedFileUrl: `${request.protocol}://${host}${LIBRETRANSLATE_PREFIX}/download_file/${settled.id}-${encodeURIComponent(r.filename)}` };
  });

  app.get('/download_file/:name', { config: { keyless: true }, schema: { summary: 'Download a translated file (LibreTranslate)' } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const r = await documents.result(undefined, name.slice(0, 32));
    return reply.type(r.mediaType).header('content-disposition', attachment(r.filename)).send(createReadStream(r.path));
  });
}
