// DeepL's translation memories (/v3/translation_memories), as deepl-node's DeepLClient calls them, over the shared
// memory book. DeepL's job model: an import is declared (POST .../import), its TMX is PUT to the job's upload URL,
// and the job is polled; an export job's file is fetched from its download URL. Both URLs point at this server and
// carry a random token in their query, the capability deepl-node relies on (it sends no key to them, as to DeepL's
// pre-signed storage URLs); an upload that does send the key must send the job's owner's. The file is imported
// while it is PUT, so the job is finished when the upload is answered.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import type { Memory, MemoryBook, MemoryJob, Segment } from '../../memories/index.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';
import { sendTmx, streamFileBodies } from '../v1/memories.ts';
import { glossaryCode } from './languages.ts';
import { requestFields, single, type Fields } from './params.ts';

const ownerOf = (request: FastifyRequest) => request.metering!.admission!.key.id;

function bookOf(app: FastifyInstance): MemoryBook {
  const book = app.dragoman.service.deps.memories;
  if (!book) throw new ApiError(503, 'server_error', 'This server keeps no translation memories.');
  return book;
}

export function memoryInfo(m: Memory) {
  return {
    translation_memory_id: m.id,
    name: m.name,
    source_language: glossaryCode(m.source),
    target_languages: m.targets.map(glossaryCode),
    segment_count: m.segmentCount,
    creation_time: new Date(m.createdAt).toISOString(),
    updated_time: new Date(m.updatedAt).toISOString(),
  };
}

function segmentInfo(s: Segment) {
  const created = new Date(s.createdAt).toISOString();
  const updated = new Date(s.updatedAt).toISOString();
  return {
    source_segment_id: String(s.id),
    source_text: s.source,
    creation_time: created,
    updated_time: updated,
    targets: [{ target_segment_id: String(s.id), target_language: glossaryCode(s.targetLang), target_text: s.target, creation_time: created, updated_time: updated }],
  };
}

/** The URL of this server a job's file goes to or comes from (as the client reached it). */
function fileUrl(request: FastifyRequest, kind: 'uploads' | 'downloads', job: MemoryJob): string {
  return `${request.protocol}://${request.host}/v3/translation_memories/${kind}/${job.id}?token=${encodeURIComponent(job.token)}`;
}

function jobInfo(request: FastifyRequest, job: MemoryJob) {
  const result: Record<string, unknown> = { status: job.status, skipped_segment_count: job.skipped };
  if (job.memoryId) result.translation_memory_id = job.memoryId;
  if (job.status === 'awaiting_input') result.status_metadata = { required_action: 'upload_file' };
  if (job.kind === 'export' && job.status === 'completed') result.download_url = fileUrl(request, 'downloads', job);
  if (job.error) result.error = { message: job.error };
  return {
    job_id: job.id,
    operation: job.kind,
    product: 'translation_memory',
    results: [result],
    creation_time: new Date(job.createdAt).toISOString(),
    updated_time: new Date(job.updatedAt).toISOString(),
    parameters: { ...(job.memoryId ? { translation_memory_id: job.memoryId } : {}), ...(job.displayName ? { display_name: job.displayName } : {}) },
    ...(job.kind === 'import' ? { source_file: { file_name: job.fileName, content_type: job.contentType ?? 'application/xml', content_length: job.contentLength } } : {}),
  };
}

function intField(f: Fields, name: string, min: number, max: number): number | undefined {
  const v = single(f, name);
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw invalidRequest(`Value for '${name}' not supported: an integer from ${min} to ${max}.`);
  return n;
}

export async function memoryV3Routes(app: FastifyInstance): Promise<void> {
  streamFileBodies(app);
  const token = (request: FastifyRequest) => {
    const t = (request.query as Record<string, unknown>).token;
    return typeof t === 'string' ? t : '';
  };

  app.get('/translation_memories', async (request) => {
    const f = requestFields(request.query, undefined);
    const page = intField(f, 'page', 0, 1_000_000) ?? 0;
    const size = intField(f, 'page_size', 1, 25) ?? 25;
    const all = await bookOf(app).list(ownerOf(request));
    return { translation_memories: all.slice(page * size, page * size + size).map(memoryInfo) };
  });

  app.get('/translation_memories/:id', async (request) => memoryInfo(await bookOf(app).get(ownerOf(request), (request.params as { id: string }).id)));

  app.delete('/translation_memories/:id', async (request, reply) => {
    await bookOf(app).delete(ownerOf(request), (request.params as { id: string }).id);
    return reply.code(204).send();
  });

  app.get('/translation_memories/:id/segments', async (request) => {
    const f = requestFields(request.query, undefined);
    const size = intField(f, 'page_size', 1, 100) ?? 50;
    const cursor = single(f, 'page_cursor');
    let after: number | undefined;
    if (cursor) {
      after = Number(Buffer.from(cursor, 'base64url').toString());
      if (!Number.isSafeInteger(after) || after < 0) throw invalidRequest("Value for 'page_cursor' not supported.");
    }
    const text = single(f, 'filter_text');
    if (text !== undefined && text.length < 2) throw invalidRequest("Value for 'filter_text' not supported: at least 2 characters.");
    const page = await bookOf(app).segments(ownerOf(request), (request.params as { id: string }).id, {
      limit: size, ...(after !== undefined ? { after } : {}), ...(text ? { text } : {}),
      caseSensitive: single(f, 'filter_case_sensitive') === 'true',
    });
    return {
      segments: page.segments.map(segmentInfo),
      segment_count: page.total,
      ...(page.next !== undefined ? { next_page_cursor: Buffer.from(String(page.next)).toString('base64url') } : {}),
    };
  });

  app.post('/translation_memories/import', async (request, reply) => {
    const f = requestFields(request.query, request.body);
    const file = f.source_file as Fields | undefined;
    if (!file || typeof file !== 'object') throw invalidRequest("Parameter 'source_file' not specified.");
    const fileName = single(file, 'file_name');
    if (!fileName) throw invalidRequest("Parameter 'source_file.file_name' not specified.");
    const contentLength = intField(file, 'content_length', 1, bookOf(app).limits.maxFileBytes);
    if (contentLength === undefined) throw invalidRequest("Parameter 'source_file.content_length' not specified.");
    const params = (f.parameters ?? {}) as Fields;
    const displayName = single(params, 'display_name');
    const contentType = single(file, 'content_type');
    const job = await bookOf(app).createImportJob(ownerOf(request), {
      fileName, contentLength, ...(contentType ? { contentType } : {}), ...(displayName ? { displayName } : {}),
    });
    return reply.code(201).send({ job_id: job.id, upload_url: fileUrl(request, 'uploads', job), expires_at: new Date(job.createdAt + 3_600_000).toISOString() });
  });

  app.put('/translation_memories/uploads/:job', { config: { public: true } }, async (request) => {
    const { job } = request.params as { job: string };
    const body = request.body;
    if (!body || typeof (body as Readable).pipe !== 'function') throw invalidRequest('Send the TMX file as the body (Content-Type: application/xml).');
    const key = request.metering?.admission?.key.id;
    if (key !== undefined && (await bookOf(app).job(key, job).catch(() => undefined)) === undefined) throw new ApiError(404, 'invalid_request', `Translation memory job '${job.slice(0, 100)}' not found.`);
    await bookOf(app).upload(job, token(request), body as Readable);
    return {};
  });

  app.post('/translation_memories/:id/export', async (request, reply) => {
    const job = await bookOf(app).createExportJob(ownerOf(request), (request.params as { id: string }).id);
    return reply.code(202).send({ job_id: job.id, parameters: { translation_memory_id: job.memoryId } });
  });

  app.get('/translation_memories/jobs/:job', async (request) => jobInfo(request, await bookOf(app).job(ownerOf(request), (request.params as { job: string }).job)));

  app.get('/translation_memories/downloads/:job', { config: { public: true } }, async (request, reply) =>
    sendTmx(reply, await bookOf(app).download((request.params as { job: string }).job, token(request))));
}
