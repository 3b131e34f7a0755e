// Language names localized into a display language (Google's `?target=`), from CLDR via Intl.DisplayNames.
import { nameTagOf, resolveLanguage } from './catalog.ts';
import type { Language } from './types.ts';

const displayNames = new Map<string, Intl.DisplayNames | null>();

function namesIn(locale: string, languageDisplay: 'standard' | 'dialect' = 'standard'): Intl.DisplayNames | null {
  const cacheKey = `${languageDisplay}:${locale}`;
  let names = displayNames.get(cacheKey);
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames(locale, { type: 'language', fallback: 'none', languageDisplay });
    } catch {
      names = null;
    }
    displayNames.set(cacheKey, names);
  }
  return names;
}

/**
 * CLDR's name of `tag` in `locale`, undefined when it has none. Standard names ("Chinese (Simplified)"), except for
 * a bare language code that CLDR aliases to a regional variant — `prs` is read as `fa-AF`, "Persian (Afghanistan)" —
 * which keeps the name of the language it is: "Dari" (the dialect name).
 */
export function cldrName(locale: string, tag: string): string | undefined {
  const standard = namesIn(locale)?.of(tag);
  if (standard === undefined || tag.includes('-')) return standard;
  const dialect = namesIn(locale, 'dialect')?.of(tag);
  return dialect !== undefined && dialect !== standard && /[(（]/.test(standard) ? dialect : standard;
}

/** A bracketed part holding a colon: a CLDR translator's note that reached the data (ks: "(translation hint: …)"). */
const TRANSLATOR_NOTE = /\s*[(\[\ufd3e\ufd3f][^()[\]\ufd3e\ufd3f]*[:：][^()[\]\ufd3e\ufd3f]*[)\]\ufd3e\ufd3f]/g;

/**
 * A CLDR name as a listing shows it: without translator notes, the first of names joined by ";" (ko: crh), no
 * trailing colon (sa); undefined if nothing is left.
 */
export function cleanName(name: string): string | undefined {
  let clean = name;
  for (let before = ''; before !== clean; ) {
    before = clean;
    clean = clean.replace(TRANSLATOR_NOTE, '');
  }
  clean = clean.split(/[;；]/)[0]!.replace(/[\s:：]+$/u, '').trim();
  return clean || undefined;
}

/** `lang`'s name in `displayLocale` (a catalog code/alias or any BCP 47 tag); the English name when CLDR has none. */
export function localizedName(lang: Language, displayLocale: string): string {
  const target = resolveLanguage(displayLocale);
  const locale = (target && nameTagOf(target)) || displayLocale;
  const tag = nameTagOf(lang);
  if (!tag) return lang.name;
  let name: string | undefined;
  try {
    const cldr = cldrName(locale, tag);
    name = cldr === undefined ? undefined : cleanName(cldr);
  } catch {
    name = undefined;
  }
  return name ?? lang.name;
}

/** Whether `code` names a catalog language, i.e. is usable as a display language (`?target=`). */
export function isDisplayLocale(code: string): boolean {
  return resolveLanguage(code) !== undefined;
}
