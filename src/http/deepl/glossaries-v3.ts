// DeepL's v3 (multilingual) glossaries, as deepl-node's DeepLClient calls them: one glossary, one dictionary per
// language pair. Form fields name dictionaries `dictionaries[i].source_lang` (and .target_lang, .entries,
// .entries_format); a JSON body gives `dictionaries` as a list. Same store and limits as every other surface.
import type { FastifyInstance } from 'fastify';
import { parseEntries, toTsv, type Glossary, type GlossaryBook, type NewDictionary } from '../../glossaries/index.ts';
import { invalidRequest } from '../../errors/api-error.ts';
import { fromDeepL, glossaryCode } from './languages.ts';
import { oneOf, requestFields, single, type Fields } from './params.ts';
import { bookOf, ownerOf } from './glossaries-v2.ts';

function v3Info(g: Glossary) {
  return {
    glossary_id: g.id,
    name: g.name,
    dictionaries: g.dictionaries.map((d) => ({ source_lang: glossaryCode(d.source), target_lang: glossaryCode(d.target), entry_count: d.entries.length })),
    creation_time: new Date(g.createdAt).toISOString(),
  };
}

/** The dictionaries of a request: a JSON list, or the indexed form fields. */
function dictionariesOf(f: Fields, book: GlossaryBook): NewDictionary[] {
  let raw: Fields[] = [];
  if (Array.isArray(f.dictionaries)) raw = f.dictionaries as Fields[];
  else {
    const byIndex = new Map<number, Fields>();
    for (const [name, value] of Object.entries(f)) {
      const m = /^dictionaries\[(\d+)\]\.(\w+)$/.exec(name);
      if (!m) continue;
      const i = Number(m[1]);
      if (i > 1000) throw invalidRequest('Too many dictionaries.');
      const d = byIndex.get(i) ?? {};
      d[m[2]!] = value;
      byIndex.set(i, d);
    }
    raw = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, d]) => d);
  }
  return raw.map((d, i) => dictionaryOf(d, book, `dictionaries[${i}]`));
}

function dictionaryOf(d: Fields, book: GlossaryBook, where: string): NewDictionary {
  if (!d || typeof d !== 'object') throw invalidRequest(`${where} must be an object.`);
  const format = oneOf(d, 'entries_format', ['tsv', 'csv'] as const) ?? 'tsv';
  const source = fromDeepL('source_lang', single(d, 'source_lang'));
  const target = fromDeepL('target_lang', single(d, 'target_lang'));
  if (!source || !target) throw invalidRequest(`${where}: source_lang and target_lang are required.`);
  return { source: source.code, target: target.code, entries: parseEntries(single(d, 'entries'), format, book.limits, `${where}.entries`) };
}

export async function glossaryV3Routes(app: FastifyInstance): Promise<void> {
  app.post('/glossaries', { schema: { summary: 'Create a multilingual glossary (DeepL v3: name, dictionaries)' } }, async (request, reply) => {
    const book = bookOf(app);
    const f = requestFields(request.query, request.body);
    const dictionaries = dictionariesOf(f, book);
    if (!dictionaries.length) throw invalidRequest("Parameter 'dictionaries' not specified.");
    return reply.code(201).send(v3Info(await book.create(ownerOf(request), single(f, 'name'), dictionaries)));
  });

  app.get('/glossaries', { schema: { summary: "The key's glossaries (DeepL v3)" } }, async (request) => ({ glossaries: (await bookOf(app).list(ownerOf(request))).map(v3Info) }));

  app.get('/glossaries/:id', { schema: { summary: 'A glossary (DeepL v3)' } }, async (request) => v3Info(await bookOf(app).get(ownerOf(request), (request.params as { id: string }).id)));

  app.get('/glossaries/:id/entries', { schema: { summary: "A dictionary's entries (DeepL v3: source_lang, target_lang)" } }, async (request) => {
    const g = await bookOf(app).get(ownerOf(request), (request.params as { id: string }).id);
    const f = requestFields(request.query, undefined);
    const source = fromDeepL('source_lang', single(f, 'source_lang'));
    const target = fromDeepL('target_lang', single(f, 'target_lang'));
    const list = g.dictionaries.filter((d) => (!source || d.source === source.code) && (!target || d.target === target.code));
    return {
      dictionaries: list.map((d) => ({ source_lang: glossaryCode(d.source), target_lang: glossaryCode(d.target), entries: toTsv(d.entries), entries_format: 'tsv' })),
    };
  });

  app.patch('/glossaries/:id', { schema: { summary: 'Rename a glossary or replace a dictionary (DeepL v3)' } }, async (request) => {
    const book = bookOf(app);
    const f = requestFields(request.query, request.body);
    const name = single(f, 'name');
    const g = await book.update(ownerOf(request), (request.params as { id: string }).id, {
      ...(name !== undefined ? { name } : {}), dictionaries: dictionariesOf(f, book), merge: true,
    });
    return v3Info(g);
  });

  app.put('/glossaries/:id/dictionaries', { schema: { summary: 'Replace or add a dictionary (DeepL v3)' } }, async (request) => {
    const book = bookOf(app);
    const d = dictionaryOf(requestFields(request.query, request.body), book, 'dictionary');
    const g = await book.update(ownerOf(request), (request.params as { id: string }).id, { dictionaries: [d] });
    const kept = g.dictionaries.find((x) => x.source === d.source && x.target === d.target)!;
    return { source_lang: glossaryCode(kept.source), target_lang: glossaryCode(kept.target), entry_count: kept.entries.length };
  });

  app.delete('/glossaries/:id/dictionaries', { schema: { summary: 'Delete a dictionary (DeepL v3: source_lang, target_lang)' } }, async (request, reply) => {
    const f = requestFields(request.query, undefined);
    const source = fromDeepL('source_lang', single(f, 'source_lang'));
    const target = fromDeepL('target_lang', single(f, 'target_lang'));
    if (!source || !target) throw invalidRequest('source_lang and target_lang are required.');
    await bookOf(app).removeDictionary(ownerOf(request), (request.params as { id: string }).id, source.code, target.code);
    return reply.code(204).send();
  });

  app.delete('/glossaries/:id', { schema: { summary: 'Delete a glossary (DeepL v3)' } }, async (request, reply) => {
    await bookOf(app).delete(ownerOf(request), (request.params as { id: string }).id);
    return reply.code(204).send();
  });
}
