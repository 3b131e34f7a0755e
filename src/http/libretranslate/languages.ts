// GET /languages and GET /frontend/settings: what LibreTranslate clients read before translating. Keyless,
// as LibreTranslate's (Mastodon and the npm client call them without a key); limited per address instead.
import type { FastifyInstance } from 'fastify';
import { FILE_EXTENSIONS } from '../../documents/index.ts';
import { languageByFlores } from '../../languages/catalog.ts';
import { routeDoc } from './schemas.ts';

export interface LibreLanguage {
  code: string;
  name: string;
  targets: string[];
}

export async function languagesRoutes(app: FastifyInstance): Promise<void> {
  const { service, engine, config } = app.dragoman;

  // The installed models are fixed for the life of the process, and this list (every language × every
  // target, a route lookup each) is asked for before each call of the npm client: computed once.
  let cached: LibreLanguage[] | undefined;
  function languages(): LibreLanguage[] {
    return (cached ??= computeLanguages());
  }

  function computeLanguages(): LibreLanguage[] {
    return service.languages().map(({ language, name, flores }) => ({
      code: language,
      name,
      targets: engine
        .targetLanguages(flores)
        .map((t) => languageByFlores(t)?.code)
        .filter((c): c is string => c !== undefined)
        .sort(),
    }));
  }

  app.get(
    '/languages',
    { schema: routeDoc('Languages and their targets (LibreTranslate)'), config: { keyless: true } },
    async () => languages(),
  );

  app.get(
    '/frontend/settings',
    { schema: routeDoc('Settings LibreTranslate clients read'), config: { keyless: true } },
    async () => {
      const list = languages();
      const target = list.find((l) => l.code === 'en') ?? list[0] ?? { code: 'en', name: 'English' };
      return {
        apiKeys: true,
        keyRequired: true,
        charLimit: config.maxChars,
        frontendTimeout: 500,
        suggestions: false,
        filesTranslation: true,
        supportedFilesFormat: FILE_EXTENSIONS,
        language: {
          source: { code: 'auto', name: 'Auto Detect' },
          target: { code: target.code, name: target.name },
        },
      };
    },
  );
}
