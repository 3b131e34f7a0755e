// The 204-variety catalog and code resolution. Data: catalog-data.ts (generated); decisions: decisions.ts.
// Pure data, no I/O: loads the same on a fresh clone as anywhere.
import { CATALOG_ROWS } from './catalog-data.ts';
import { ALIASES } from './decisions.ts';
import type { Language } from './types.ts';

export const LANGUAGES: readonly Language[] = Object.freeze(
  CATALOG_ROWS.map(([code, flores, iso639_3, script, name, nllb, google]) => {
    const lang: Language = { code, flores, iso639_3, script, name };
    if (nllb) lang.nllb = nllb;
    if (google) lang.google = google;
    return Object.freeze(lang);
  }),
);

/** CLDR tag whose Intl.DisplayNames name is the variety's name (zh-Hans for zh-CN, '' for none, else the code). */
const NAME_TAGS = new Map<string, string>(CATALOG_ROWS.map((r) => [r[1], r[7]]));
export function nameTagOf(lang: Language): string {
  return NAME_TAGS.get(lang.flores) ?? lang.code;
}

const byFlores = new Map<string, Language>(LANGUAGES.map((l) => [l.flores, l]));
const byNllb = new Map<string, Language>(LANGUAGES.filter((l) => l.nllb).map((l) => [l.nllb!, l]));

function key(code: string): string {
  return code.trim().replace(/_/g, '-').toLowerCase();
}

// Lookup keys by precedence: a key already taken by a stronger kind is never overwritten, so a public code
// always means its own variety (e.g. `ak` is Akan even though Google also uses it for Twi).
const lookup = new Map<string, Language>();
function add(k: string, lang: Language): void {
  const nk = key(k);
  if (nk && !lookup.has(nk)) lookup.set(nk, lang);
}
for (const l of LANGUAGES) add(l.code, l);
for (const l of LANGUAGES) add(l.flores, l);
for (const [alias, flores] of ALIASES) add(alias, byFlores.get(flores)!);
for (const l of LANGUAGES) if (l.nllb) add(l.nllb, l);
for (const l of LANGUAGES) add(`${l.code.split('-')[0]}-${l.script}`, l);
for (const l of LANGUAGES) add(`${l.iso639_3}-${l.script}`, l);
// Bare ISO 639-3: for a two-script language the variety whose public code is bare wins (added first).
for (const l of [...LANGUAGES].sort((a, b) => Number(a.code.includes('-')) - Number(b.code.includes('-'))))
  add(l.iso639_3, l);
for (const l of LANGUAGES) if (l.google) add(l.google, l);

/**
 * Public code, alias, FLORES code, NLLB token or ISO 639-3 code -> catalog entry. Case-insensitive, `_`/`-`
 * tolerant. Falls back to CLDR: canonicalisation (`ger` -> de, `in` -> id) and likely script (`pt-BR` ->
 * pt-Latn -> pt, `zh-HK` -> zh-Hant); a script no catalog variety has (`sr-Latn`) resolves to nothing.
 */
export function resolveLanguage(code: string): Language | undefined {
  if (typeof code !== 'string') return undefined;
  const direct = lookup.get(key(code));
  if (direct) return direct;
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(Intl.getCanonicalLocales(code.trim().replace(/_/g, '-'))[0]!);
  } catch {
    return undefined;
  }
  // `und` (undetermined) parses as a locale with no language on some ICU versions: it names no catalog entry.
  if (!locale.language || locale.language === 'und') return undefined;
  const canonical = lookup.get(key(locale.baseName));
  if (canonical) return canonical;
  if (locale.script) return lookup.get(key(`${locale.language}-${locale.script}`));
  const script = locale.maximize().script;
  if (script) {
    const withScript = lookup.get(key(`${locale.language}-${script}`));
    if (withScript) return withScript;
  }
  const bare = lookup.get(key(locale.language));
  // A bare language in a script CLDR says it is not written in (rare) is not that variety.
  return bare && (!script || bare.script === script) ? bare : undefined;
}

export function languageByFlores(flores: string): Language | undefined {
  return byFlores.get(flores);
}

export function languageByNllb(token: string): Language | undefined {
  return byNllb.get(token);
}

/** Every string resolveLanguage accepts directly (tests, docs); CLDR fallbacks come on top. */
export function acceptedCodes(): string[] {
  return [...lookup.keys()];
}
