// LibreTranslate's file translation: POST /translate_file (multipart file, source or auto, target, api_key)
// answers {"translatedFileUrl": ...} once the file is translated (synchronous, as LibreTranslate is), and
// GET /download_file/<token>-<name> serves it without a key, as LibreTranslate does. The token is a random secret
// of its own, made for this job only (its SHA-256 is kept in the job's record): the URL never holds the job id, and
// no other job (one of /v1/documents or DeepL's) can be downloaded this way.
import { createHash, randomBytes } from 'node:crypto';
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
    const token = randomBytes(32).toString('hex');
    const job = await documents.submit({
      admission: request.metering!.admission!,
      downloadToken: tokenHash(token),
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
    return { translatedFileUrl: `${request.protocol}://${host}${LIBRETRANSLATE_PREFIX}/download_file/${token}-${encodeURIComponent(r.filename)}` };
  });

  app.get('/download_file/:name', { config: { keyless: true }, schema: { summary: 'Download a translated file (LibreTranslate)' } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    const token = TOKEN.exec(name)?.[1];
    if (!token) throw fileNotFound();
    const job = await documents.byDownloadToken(tokenHash(token)).catch((err: unknown) => {
      throw err instanceof ApiError && err.status === 404 ? fileNotFound() : err;
    });
    const r = documents.resultOf(job);
    return reply.type(r.mediaType).header('content-disposition', attachment(r.filename)).send(createReadStream(r.path));
  });
}

/** A download name: the token (64 hex digits), a hyphen, the file's name. */
const TOKEN = /^([0-9a-f]{64})-/;

const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

const fileNotFound = () => new ApiError(404, 'invalid_request', 'No such file: the link is wrong, or the file has expired.');
