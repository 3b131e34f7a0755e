// /v1/glossaries: a key's glossaries. POST takes {"name","source","target","entries":[{"source","target"}]} or the
// entries as TSV (a string, or the body itself as text/tab-separated-values with the rest in the query string).
// Glossaries of other keys are answered 404 like unknown ids. Not metered in characters: no translation is made.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseEntries, toTsv, type Glossary } from '../../glossaries/index.ts';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';

export function glossaryView(g: Glossary) {
  const d = g.dictionaries[0];
  return {
    id: g.id,
    name: g.name,
    source: d?.source ?? null,
    target: d?.target ?? null,
    entryCount: g.dictionaries.reduce((n, x) => n + x.entries.length, 0),
    createdAt: new Date(g.createdAt).toISOString(),
  };
}

const ownerOf = (request: FastifyRequest) => request.metering!.admission!.key.id;

export async function glossaryRoutes(app: FastifyInstance): Promise<void> {
  const book = app.dragoman.service.deps.glossaries;
  const need = () => {
    if (!book) throw new ApiError(501, 'invalid_request', 'This server keeps no glossaries.');
    return book;
  };
  // TSV bodies: the entries themselves, the other fields in the query string.
  app.addContentTypeParser(['text/tab-separated-values', 'text/plain'], { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post('/glossaries', { schema: { summary: 'Create a glossary (name, source, target, entries)' } }, async (request, reply) => {
    const b = need();
    const query = (request.query ?? {}) as Record<string, unknown>;
    const body = typeof request.body === 'string' ? { ...query, entries: request.body } : (request.body ?? {}) as Record<string, unknown>;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object {"name", "source", "target", "entries"}.');
    const format = body.entries_format ?? 'tsv';
    if (format !== 'tsv' && format !== 'csv') throw invalidRequest(`Field 'entries_format' must be tsv or csv.`);
    const entries = parseEntries(body.entries, format, b.limits);
    const g = await b.create(ownerOf(request), body.name, [{ source: body.source, target: body.target, entries }]);
    return reply.code(201).send({ data: { glossary: glossaryView(g) } });
  });

  app.get('/glossaries', { schema: { summary: "The key's glossaries" } }, async (request) => ({ data: { glossaries: (await need().list(ownerOf(request))).map(glossaryView) } }));

  app.get('/glossaries/:id', { schema: { summary: 'A glossary' } }, async (request) => {
    const { id } = request.params as { id: string };
    return { data: { glossary: glossaryView(await need().get(ownerOf(request), id)) } };
  });

  app.get('/glossaries/:id/entries', { schema: { summary: "A glossary's entries" } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    const g = await need().get(ownerOf(request), id);
    const entries = g.dictionaries.flatMap((d) => d.entries.map(([source, target]) => ({ source, target })));
    if (/text\/tab-separated-values/.test(request.headers.accept ?? '')) {
      return reply.type('text/tab-separated-values; charset=utf-8').send(toTsv(g.dictionaries.flatMap((d) => d.entries)));
    }
    return { data: { entries } };
  });

  app.delete('/glossaries/:id', { schema: { summary: 'Delete a glossary' } }, async (request, reply) => {
    const { id } = request.params as { id: string };
    await need().delete(ownerOf(request), id);
    return reply.code(204).send();
  });
}
