// /v2/usage and /v2/languages. Usage is the key's month as /v1/usage counts it; an unlimited key answers DeepL's
// largest limit. Languages are what the installed models translate, in DeepL's codes; a target supports formality
// when an LLM translator into it words both registers in its dragoman.json (docs/models.md#the-prompt-dragomanjson).
import type { FastifyInstance } from 'fastify';
import { languageByFlores } from '../../languages/catalog.ts';
import { deeplSourceCode, deeplTargetCodes, deeplTargetName } from './languages.ts';
import { oneOf, requestFields } from './params.ts';

/** What an unlimited key reports as its limit (DeepL's own figure for unlimited plans). */
export const UNLIMITED_CHARACTERS = 1_000_000_000_000;

export async function accountRoutes(app: FastifyInstance): Promise<void> {
  const { accounts, engine } = app.dragoman;
  app.route({
    method: ['GET', 'POST'],
    url: '/usage',
    schema: { summary: "The key's characters this month (DeepL)" },
    handler: async (request) => {
      const usage = await accounts.usage(request.metering!.admission!.key);
      return { character_count: usage.charactersUsed, character_limit: usage.characterLimit ?? UNLIMITED_CHARACTERS };
    },
  });

  app.route({
    method: ['GET', 'POST'],
    url: '/languages',
    schema: { summary: 'Source or target languages (DeepL: type=source|target)' },
    handler: async (request) => {
      const type = oneOf(requestFields(request.query, request.body), 'type', ['source', 'target'] as const) ?? 'source';
      const seen = new Set<string>();
      const out: { language: string; name: string; supports_formality?: boolean }[] = [];
      const flores = type === 'source' ? engine.sourceLanguages() : engine.targetLanguages();
      const formal = new Set(engine.models().filter((m) => m.status === 'ok' && m.prompt?.formality.length === 2).flatMap((m) => m.targets));
      for (const f of flores) {
        const lang = languageByFlores(f);
        if (!lang) continue;
        const codes = type === 'source' ? [deeplSourceCode(lang)] : deeplTargetCodes(lang);
        for (const code of codes) {
          if (seen.has(code)) continue;
          seen.add(code);
          out.push(type === 'source'
            ? { language: code, name: code === 'ZH' ? 'Chinese' : lang.name }
            : { language: code, name: deeplTargetName(code, lang), supports_formality: formal.has(f) });
        }
      }
      return out.sort((a, b) => a.language.localeCompare(b.language));
    },
  });
}
