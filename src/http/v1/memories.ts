// /v1/memories: a key's translation memories. POST makes an empty memory from JSON {"name","source","targets"}, or
// a memory from a file sent as the body itself (TMX as application/x-tmx+xml, application/xml or text/xml; TSV as
// text/tab-separated-values; CSV as text/csv), the other fields in the query string. The file is read as it
// arrives (never held whole) and imported whole or not at all. Memories of other keys are answered 404 like
// unknown ids. Not metered in characters: no translation is made.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { language, type ImportFormat, type Memory, type MemoryBook, type Segment } from '../../memories/index.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';

export function memoryView(m: Memory) {
  return {
    id: m.id, name: m.name, source: m.source, targets: m.targets, segmentCount: m.segmentCount,
    createdAt: new Date(m.createdAt).toISOString(), updatedAt: new Date(m.updatedAt).toISOString(),
  };
}

export function segmentView(s: Segment) {
  return {
    id: s.id, source: s.source, target: s.target, targetLanguage: s.targetLang, status: s.reviewed ? 'reviewed' : 'unreviewed',
    ...(s.sourceMarkup ? { sourceMarkup: s.sourceMarkup } : {}), ...(s.targetMarkup ? { targetMarkup: s.targetMarkup } : {}),
    createdAt: new Date(s.createdAt).toISOString(), updatedAt: new Date(s.updatedAt).toISOString(),
  };
}

const ownerOf = (request: FastifyRequest) => request.metering!.admission!.key.id;

/** Content types read as a memory file, and the format each means. */
export const FILE_TYPES: Record<string, ImportFormat> = {
  'application/x-tmx+xml': 'tmx', 'application/xml': 'tmx', 'text/xml': 'tmx', 'application/octet-stream': 'tmx',
  'text/tab-separated-values': 'tsv', 'text/csv': 'csv',
};

/** The format of a file body: `?format=` or its content type. */
export function fileFormat(request: FastifyRequest): ImportFormat {
  const given = (request.query as Record<string, unknown>).format;
  if (given !== undefined) {
    if (given !== 'tmx' && given !== 'tsv' && given !== 'csv') throw invalidRequest("Query parameter 'format' must be tmx, tsv or csv.");
    return given;
  }
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return FILE_TYPES[type] ?? 'tmx';
}

/** Lets the routes of this plugin take a file body as a stream (each memory route reads it, with its own limits). */
export function streamFileBodies(app: FastifyInstance): void {
  app.addContentTypeParser(Object.keys(FILE_TYPES), (_request, payload, done) => done(null, payload));
}

const isStream = (body: unknown): body is Readable => !!body && typeof (body as Readable).pipe === 'function';

function positiveInt(value: unknown, name: string, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw invalidRequest(`Query parameter '${name}' must be an integer from 0 to ${max}.`);
  return n;
}

export async function memoryRoutes(app: FastifyInstance): Promise<void> {
  const book = app.dragoman.service.deps.memories;
  const need = (): MemoryBook => {
    if (!book) throw new ApiError(501, 'invalid_request', 'This server keeps no translation memories.');
    return book;
  };
  streamFileBodies(app);

  app.post('/memories', async (request, reply) => {
    const b = need();
    const query = (request.query ?? {}) as Record<string, unknown>;
    if (isStream(request.body)) {
      const r = await b.import(ownerOf(request), { format: fileFormat(request), name: query.name, source: query.source, target: query.target }, request.body);
      return reply.code(201).send({ data: { memory: memoryView(r.memory), imported: r.imported, skipped: r.skipped } });
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object {"name", "source", "targets"}, or a TMX, TSV or CSV file.');
    const m = await b.create(ownerOf(request), body.name, body.source, body.targets ?? body.target);
    return reply.code(201).send({ data: { memory: memoryView(m) } });
  });

  app.get('/memories', async (request) => ({ data: { memories: (await need().list(ownerOf(request))).map(memoryView) } }));

  app.get('/memories/:id', async (request) => {
    const { id } = request.params as { id: string };
    return { data: { memory: memoryView(await need().get(ownerOf(request), id)) } };
  });

  app.patch('/memories/:id', async (request) => {
    const { id } = request.params as { id: string };
    const body = (request.body ?? {}) as Record<string, unknown>;
    return { data: { memory: memoryView(await need().rename(ownerOf(request), id, body.name)) } };
  });

  app.delete('/memories/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    await need().delete(ownerOf(request), id);
    return reply.code(204).send();
  });

  app.post('/memories/:id/import', async (request) => {
    const { id } = request.params as { id: string };
    if (!isStream(request.body)) throw invalidRequest('Send the file as the body: TMX (application/x-tmx+xml), TSV (text/tab-separated-values) or CSV (text/csv).');
    const query = (request.query ?? {}) as Record<string, unknown>;
    const r = await need().import(ownerOf(request), { format: fileFormat(request), into: id, source: query.source, target: query.target }, request.body);
    return { data: { memory: memoryView(r.memory), imported: r.imported, skipped: r.skipped } };
  });

  app.get('/memories/:id/export', async (request, reply) => sendTmx(reply, await need().export(ownerOf(request), (request.params as { id: string }).id)));

  app.get('/memories/:id/segments', async (request) => {
    const { id } = request.params as { id: string };
    const q = (request.query ?? {}) as Record<string, unknown>;
    if (q.status !== undefined && q.status !== 'reviewed' && q.status !== 'unreviewed') throw invalidRequest("Query parameter 'status' must be reviewed or unreviewed.");
    if (q.text !== undefined && typeof q.text !== 'string') throw invalidRequest("Query parameter 'text' must be given once.");
    const page = await need().segments(ownerOf(request), id, {
      limit: positiveInt(q.limit, 'limit', 1000) || 100,
      ...(q.after !== undefined ? { after: positiveInt(q.after, 'after', Number.MAX_SAFE_INTEGER)! } : {}),
      ...(q.text ? { text: q.text } : {}),
      ...(q.caseSensitive === 'true' ? { caseSensitive: true } : {}),
      ...(typeof q.target === 'string' && q.target ? { targetLang: languageOf(q.target) } : {}),
      ...(q.status !== undefined ? { reviewed: q.status === 'reviewed' } : {}),
    });
    return { data: { segments: page.segments.map(segmentView), segmentCount: page.total, ...(page.next !== undefined ? { next: String(page.next) } : {}) } };
  });

  app.post('/memories/:id/segments', async (request, reply) => {
    const { id } = request.params as { id: string };
    const body = (request.body ?? {}) as Record<string, unknown>;
    const list = Array.isArray(body.segments) ? (body.segments as Record<string, unknown>[]) : [body];
    if (!list.length || list.length > 1000) throw invalidRequest("'segments' must hold 1 to 1000 segments {\"source\", \"target\", \"targetLanguage\"}.");
    const added = await need().add(ownerOf(request), id, list.map((s) => newSegment(s)));
    return reply.code(201).send({ data: { segments: added.map(segmentView) } });
  });

  app.get('/memories/:id/segments/:segment', async (request) => {
    const { id, segment } = request.params as { id: string; segment: string };
    return { data: { segment: segmentView(await need().segment(ownerOf(request), id, segmentId(segment))) } };
  });

  app.patch('/memories/:id/segments/:segment', async (request) => {
    const { id, segment } = request.params as { id: string; segment: string };
    const body = (request.body ?? {}) as Record<string, unknown>;
    const patch = newSegment(body, true);
    return { data: { segment: segmentView(await need().update(ownerOf(request), id, segmentId(segment), patch)) } };
  });

  app.delete('/memories/:id/segments/:segment', async (request, reply) => {
    const { id, segment } = request.params as { id: string; segment: string };
    await need().deleteSegment(ownerOf(request), id, segmentId(segment));
    return reply.code(204).send();
  });
}

/** A TMX export streamed as it is written. */
export async function sendTmx(reply: FastifyReply, file: { memory: Memory; chunks: AsyncGenerator<string> }): Promise<FastifyReply> {
  const { Readable } = await import('node:stream');
  const name = file.memory.name.replace(/[^\w.-]+/g, '_').slice(0, 100) || 'memory';
  return reply
    .type('application/x-tmx+xml; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.tmx"`)
    .send(Readable.from(file.chunks));
}

function segmentId(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw invalidRequest(`Segment id '${raw.slice(0, 40)}' is not a segment id (a positive integer).`);
  return n;
}

function languageOf(code: string): string {
  return language('target', code);
}

function newSegment(o: Record<string, unknown>, partial = false): { source: string; target: string; targetLang: string; reviewed: boolean } {
  if (!o || typeof o !== 'object') throw invalidRequest('A segment is an object {"source", "target", "targetLanguage"}.');
  const status = o.status;
  if (status !== undefined && status !== 'reviewed' && status !== 'unreviewed') throw invalidRequest("Field 'status' must be reviewed or unreviewed.");
  for (const f of ['source', 'target', 'targetLanguage']) {
    if (o[f] !== undefined && typeof o[f] !== 'string') throw invalidRequest(`Field '${f}' must be a string.`);
    if (!partial && o[f] === undefined) throw invalidRequest(`Missing required field '${f}' of a segment.`);
  }
  return { source: o.source as string, target: o.target as string, targetLang: o.targetLanguage as string, reviewed: status !== 'unreviewed' };
}
