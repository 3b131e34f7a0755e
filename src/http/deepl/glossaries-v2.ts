// DeepL's v2 glossaries over the shared store: one language pair each. A v3 glossary with several dictionaries is
// not listed here (v2 cannot describe it) but can be read, used and deleted by id, showing its first dictionary.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { languageByFlores } from '../../languages/catalog.ts';
import { parseEntries, toTsv, type Glossary } from '../../glossaries/index.ts';
import { ApiError } from '../../errors/api-error.ts';
import { glossaryCode } from './languages.ts';
import { oneOf, requestFields, single } from './params.ts';

export function v2Info(g: Glossary) {
  const d = g.dictionaries[0];
  return {
    glossary_id: g.id,
    name: g.name,
    ready: true,
    source_lang: d ? glossaryCode(d.source) : '',
    target_lang: d ? glossaryCode(d.target) : '',
    creation_time: new Date(g.createdAt).toISOString(),
    entry_count: d?.entries.length ?? 0,
  };
}

export const ownerOf = (request: FastifyRequest) => request.metering!.admission!.key.id;

export function bookOf(app: FastifyInstance) {
  const book = app.dragoman.service.deps.glossaries;
  if (!book) throw new ApiError(503, 'server_error', 'This server keeps no glossaries.');
  return book;
}

export async function glossaryV2Routes(app: FastifyInstance): Promise<void> {
  app.post('/glossaries', { schema: { summary: 'Create a glossary (DeepL v2: name, source_lang, target_lang, entries, entries_format)' } }, async (request, reply) => {
    const book = bookOf(app);
    const f = requestFields(request.query, request.body);
    const format = oneOf(f, 'entries_format', ['tsv', 'csv'] as const) ?? 'tsv';
    const entries = parseEntries(single(f, 'entries'), format, book.limits);
    const g = await book.create(ownerOf(request), single(f, 'name'), [{ source: single(f, 'source_lang'), target: single(f, 'target_lang'), entries }]);
    return reply.code(201).send(v2Info(g));
  });

  app.get('/glossaries', { schema: { summary: "The key's glossaries (DeepL v2)" } }, async (request) => ({
    glossaries: (await bookOf(app).list(ownerOf(request))).filter((g) => g.dictionaries.length === 1).map(v2Info),
  }));

  app.get('/glossaries/:id', { schema: { summary: 'A glossary (DeepL v2)' } }, async (request) => v2Info(await bookOf(app).get(ownerOf(request), (request.params as { id: string }).id)));

  app.get('/glossaries/:id/entries', { schema: { summary: "A glossary's entries as TSV (DeepL v2)" } }, async (request, reply) => {
    const g = await bookOf(app).get(ownerOf(request), (request.params as { id: string }).id);
    return reply.type('text/tab-separated-values; charset=utf-8').send(toTsv(g.dictionaries[0]?.entries ?? []));
  });

  app.delete('/glossaries/:id', { schema: { summary: 'Delete a glossary (DeepL v2)' } }, async (request, reply) => {
    await bookOf(app).delete(ownerOf(request), (request.params as { id: string }).id);
    return reply.code(204).send();
  });
}

/** GET /v2/glossary-language-pairs: every pair the installed models translate (glossaries need a route). */
export async function glossaryPairRoutes(app: FastifyInstance): Promise<void> {
  app.get('/glossary-language-pairs', { schema: { summary: 'Language pairs a glossary may have (DeepL)' } }, async () => {
    const { engine } = app.dragoman;
    const seen = new Set<string>();
    const pairs: { source_lang: string; target_lang: string }[] = [];
    for (const s of engine.sourceLanguages()) {
      for (const t of engine.targetLanguages(s)) {
        const a = languageByFlores(s);
        const b = languageByFlores(t);
        if (!a || !b || a.code === b.code) continue;
        const pair = { source_lang: glossaryCode(a.code), target_lang: glossaryCode(b.code) };
        const key = `${pair.source_lang}>${pair.target_lang}`;
        if (!seen.has(key)) {
          seen.add(key);
          pairs.push(pair);
        }
      }
    }
    return { supported_languages: pairs };
  });
}
