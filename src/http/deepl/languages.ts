// DeepL's language codes over the catalog: DeepL writes codes in upper case with regional targets (EN-GB, EN-US,
// PT-BR, PT-PT) and Chinese scripts (ZH-HANS, ZH-HANT). A region maps to the language (our models have one English
// and one Portuguese); a script to the catalog's variety. Answers use DeepL's casing.
import { resolveLanguage } from '../../languages/catalog.ts';
import type { Language } from '../../languages/types.ts';
import { invalidRequest } from '../../errors/api-error.ts';

/** DeepL codes that are not a catalog code in another case. */
const SPECIAL: Record<string, string> = {
  'EN-GB': 'en', 'EN-US': 'en', 'PT-BR': 'pt', 'PT-PT': 'pt', ZH: 'zh-CN', 'ZH-HANS': 'zh-CN', 'ZH-HANT': 'zh-TW',
  // DeepL's Norwegian is Bokmål.
  NB: 'nb',
};

export function fromDeepL(field: 'source_lang' | 'target_lang', value: unknown): Language | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`Value for '${field}' not supported.`);
  const upper = value.trim().toUpperCase();
  const lang = resolveLanguage(SPECIAL[upper] ?? value.trim());
  if (!lang) throw invalidRequest(`Value for '${field}' not supported.`);
  return lang;
}

/** A source (or detected) language as DeepL names it: the bare language in upper case (ZH for both Chinese scripts). */
export function deeplSourceCode(lang: Language): string {
  if (lang.code === 'zh-CN' || lang.code === 'zh-TW') return 'ZH';
  return lang.code.toUpperCase();
}

/** Target codes DeepL lists for a catalog language: the regional variants where DeepL has them. */
export function deeplTargetCodes(lang: Language): string[] {
  switch (lang.code) {
    case 'en': return ['EN-GB', 'EN-US'];
    case 'pt': return ['PT-BR', 'PT-PT'];
    case 'zh-CN': return ['ZH', 'ZH-HANS'];
    case 'zh-TW': return ['ZH-HANT'];
    default: return [lang.code.toUpperCase()];
  }
}

/** The display name DeepL gives a regional code. */
export function deeplTargetName(code: string, lang: Language): string {
  const names: Record<string, string> = {
    'EN-GB': 'English (British)', 'EN-US': 'English (American)', 'PT-BR': 'Portuguese (Brazilian)', 'PT-PT': 'Portuguese (European)',
    ZH: 'Chinese (simplified)', 'ZH-HANS': 'Chinese (simplified)', 'ZH-HANT': 'Chinese (traditional)',
  };
  return names[code] ?? lang.name;
}

/** A glossary's language as DeepL writes it in glossary answers (lower case, no region). */
export function glossaryCode(code: string): string {
  if (code === 'zh-CN' || code === 'zh-TW') return 'zh';
  return code.toLowerCase();
}
