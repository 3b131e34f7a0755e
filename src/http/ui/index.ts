// The web page at `/` (DRAGOMAN_UI): static files only, same origin as the /v1 API it calls, under a strict
// Content-Security-Policy: nothing inline, nothing from another origin, so the page works air-gapped and an
// injected string can never run as script.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { languageByFlores } from '../../languages/catalog.ts';
import type { Service } from '../../service/index.ts';
import { invalidRequest } from '../../errors/api-error.ts';
import { type Asset, loadAssets, SCRIPT_PATH, scriptAsset } from './assets.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Small files that change with each release: always revalidate (cheap with the ETag) rather than go stale.
  'cache-control': 'no-cache',
};

/** The page's own copy of GET /v1/languages, without a key (see uiRoutes). */
export const UI_LANGUAGES_PATH = '/ui/languages';
/** What the page needs to know of the server before the first request: whether it may translate without a key. */
export const UI_SETTINGS_PATH = '/ui/settings';

/**
 * /v1/languages' entries, each with `google` where Google's code differs from ours: a browser set to `fa-AF`
 * means Dari (`prs`, which the API also reads `fa-AF` as), not the `fa` the tag's base would pick. And what the
 * installed models reach, so the page never offers a target they cannot reach (an en→de server translating
 * English "into English" gives the text back): `writes` on a language some model writes, and `reach` on one
 * some model reads, the index in `targetSets` of the languages reachable from it (directly or through English;
 * a set also holds the language itself when it is a target, so that one set serves many-to-many models' 200).
 */
function uiLanguagesBody(service: Service, target: string | undefined) {
  const { engine } = service.deps;
  const writable = new Set(engine.targetLanguages());
  const readable = new Set(engine.sourceLanguages());
  const targetSets: string[][] = [];
  const setIndex = new Map<string, number>();
  const codeOf = (flores: string) => languageByFlores(flores)?.code;
  const languages = service.languages(target).map(({ language, name, flores }) => {
    const google = languageByFlores(flores)?.google;
    const entry: { language: string; name: string; google?: string; writes?: true; reach?: number } =
      google && google !== language ? { language, name, google } : { language, name };
    if (writable.has(flores)) entry.writes = true;
    if (readable.has(flores)) {
      const reach = [...engine.targetLanguages(flores), ...(writable.has(flores) ? [flores] : [])]
        .map(codeOf)
        .filter((c): c is string => c !== undefined)
        .sort();
      const id = reach.join(' ');
      let index = setIndex.get(id);
      if (index === undefined) {
        index = targetSets.push(reach) - 1;
        setIndex.set(id, index);
      }
      entry.reach = index;
    }
    return entry;
  });
  // The pairs an LLM translator and an encoder-decoder route both serve, each with the kind the usual route takes:
  // where the page offers "Quality / Speed".
  const models = engine.models().filter((m) => m.status === 'ok');
  const llms = new Set(models.filter((m) => m.prompt).map((m) => m.name));
  const modelChoices: Record<string, 'quality' | 'speed'> = {};
  for (const m of models.filter((x) => x.prompt)) {
    const pairs = m.pairs ?? m.sources.flatMap((s) => m.targets.filter((t) => t !== s).map((t): [string, string] => [s, t]));
    for (const [s, t] of pairs) {
      const [from, to] = [codeOf(s), codeOf(t)];
      if (!from || !to || !engine.route(s, t, { kind: 'speed', strict: true })) continue;
      modelChoices[`${from}>${to}`] = engine.route(s, t)?.some((n) => llms.has(n)) ? 'quality' : 'speed';
    }
  }
  return { data: { languages, targetSets, modelChoices } };
}

export async function uiRoutes(app: FastifyInstance): Promise<void> {
  // The pickers are the page's own data, not an API call: fetched without a key they cost the key nothing, so a
  // 1-request-a-minute key still gets its first translation. What the server translates is no secret (/health
  // names the installed models to anyone).
  app.get(UI_LANGUAGES_PATH, async (request, reply) => {
    // No key to count it against: counted per client address (DRAGOMAN_KEYLESS_RPM).
    app.dragoman.gate.admitKeyless(request.ip);
    const { target } = request.query as { target?: unknown };
    if (target !== undefined && typeof target !== 'string') throw invalidRequest(`Query parameter 'target' must be one language code.`);
    reply.headers(SECURITY_HEADERS);
    return uiLanguagesBody(app.dragoman.service, target);
  });
  // DRAGOMAN_UI_KEY: whose quota the page's requests without a key use, so the page can say so (and whether
  // typing may translate: not on 10 requests a minute or fewer). Names the key as `dragoman keys list` does.
  app.get(UI_SETTINGS_PATH, async (request, reply) => {
    app.dragoman.gate.admitKeyless(request.ip);
    reply.headers(SECURITY_HEADERS);
    return { data: { sharedKey: await sharedKeyInfo(app), ...(app.dragoman.demo && { demo: app.dragoman.demo }) } };
  });
  const serve = (file: Asset, request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(SECURITY_HEADERS).header('etag', file.etag);
    if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
    return reply.type(file.type).send(file.body);
  };
  for (const [path, file] of await loadAssets()) app.get(path, async (request, reply) => serve(file, request, reply));
  app.get(SCRIPT_PATH, async (request, reply) => serve(await scriptAsset(), request, reply));
}

/** The shared key's public facts, or null when there is none (off, or the id names no working key). */
async function sharedKeyInfo(app: FastifyInstance) {
  const id = app.dragoman.config.uiKey;
  if (!id) return null;
  const key = await app.dragoman.accounts.store.getKey(id);
  if (!key || key.revokedAt !== null) return null;
  const limits = await app.dragoman.accounts.limits(id);
  return { id: key.id, name: key.name, plan: key.plan, requestsPerMinute: limits.rpm, characterLimit: limits.monthlyChars };
}
