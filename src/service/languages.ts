// The languages this server can translate: catalog entries that some installed model reads or writes.
// `displayLanguage` (Google's `?target=`) localizes the names and sorts by them.
import { invalidRequest } from '../errors/api-error.ts';
import { languageByFlores, resolveLanguage } from '../languages/catalog.ts';
import { localizedName } from '../languages/names.ts';
import type { Language } from '../languages/types.ts';
import type { LanguageEntry, ServiceDeps } from './types.ts';

export function availableLanguages(deps: Pick<ServiceDeps, 'engine'>): Language[] {
  const flores = new Set([...deps.engine.sourceLanguages(), ...deps.engine.targetLanguages()]);
  const out: Language[] = [];
  for (const f of flores) {
    const lang = languageByFlores(f);
    if (lang) out.push(lang);
  }
  return out;
}

export function listLanguages(deps: Pick<ServiceDeps, 'engine'>, displayLanguage?: unknown): LanguageEntry[] {
  const langs = availableLanguages(deps);
  if (displayLanguage === undefined || displayLanguage === '') {
    return langs
      .map((l) => ({ language: l.code, name: l.name, flores: l.flores }))
      .sort((a, b) => a.language.localeCompare(b.language));
  }
  if (typeof displayLanguage !== 'string' || !resolveLanguage(displayLanguage)) {
    throw invalidRequest(
      `Unsupported target language code '${String(displayLanguage).slice(0, 40)}' for localized names. ` +
        `See GET /v1/languages for the supported codes.`,
    );
  }
  const display = resolveLanguage(displayLanguage)!;
  const collator = new Intl.Collator(display.code);
  return langs
    .map((l) => ({ language: l.code, name: localizedName(l, displayLanguage), flores: l.flores }))
    .sort((a, b) => collator.compare(a.name, b.name) || a.language.localeCompare(b.language));
}
