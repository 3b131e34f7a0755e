// Every code-mapping decision of the catalog that is not mechanical, in one readable place.
// scripts/build-catalog.ts applies the rules below to ../shared/languages/flores200-codes.tsv and writes
// catalog-data.ts; catalog.ts reads ALIASES at run time. docs/languages.md repeats this table.
//
// Public code rule (applied by the build script):
//   1. ISO 639-1 code of the variety (the TSV's iso639_1 column), else its ISO 639-3 code.
//   2. A language FLORES has in two scripts keeps the bare code for the script CLDR's likely subtags give it
//      (which is also the script Google uses) and the other variety gets a script subtag:
//      ar / ar-Latn, ace / ace-Arab, bjn / bjn-Arab, ks / ks-Deva, kr / kr-Arab, min / min-Arab, taq / taq-Tfng.
//      So a bare code always means what CLDR and Google mean by it; `ks-Arab`, `ar-Arab`, ... are accepted too.
//   3. Chinese follows Google: zho_Hans = zh-CN, zho_Hant = zh-TW (CODE_OVERRIDES). Cantonese is yue.

/** Public codes that are not produced by the rule. */
export const CODE_OVERRIDES: Readonly<Record<string, string>> = {
  zho_Hans: 'zh-CN', // Google's code; zh and zh-Hans are aliases
  zho_Hant: 'zh-TW', // Google's code; zh-Hant is an alias
};

/**
 * CLDR tag used for names (Intl.DisplayNames) where the public code would give the wrong name; '' = CLDR has no
 * right name, always use the dataset's English name.
 */
export const NAME_TAG_OVERRIDES: Readonly<Record<string, string>> = {
  zho_Hans: 'zh-Hans', // "Chinese (Simplified)", not "Chinese (China)"
  zho_Hant: 'zh-Hant',
  twi_Latn: '', // CLDR aliases tw to ak ("Akan"), which is aka_Latn's name: keep the dataset's "Twi"
};

/**
 * Extra codes accepted wherever a language code is (source, target, ?target=). Besides these, resolveLanguage
 * accepts: every public code, FLORES code, NLLB token, ISO 639-3 code (a two-script language's bare ISO 639-3
 * code means the default-script variety), `<code>-<Script>` for every variety, every Google code in the TSV
 * that is not another variety's public code, and anything CLDR canonicalises or maximises to one of those
 * (`ger` -> de, `pt-BR` -> pt, `zh-HK` -> zh-Hant -> zh-TW, `in` -> id, `sr-Latn` -> none: no such variety).
 */
export const ALIASES: readonly (readonly [alias: string, flores: string, why: string])[] = [
  ['zh', 'zho_Hans', 'Google: "zh-CN or zh"'],
  ['zh-Hans', 'zho_Hans', 'script tag'],
  ['zh-SG', 'zho_Hans', 'Singapore writes Simplified'],
  ['zh-Hant', 'zho_Hant', 'script tag'],
  ['zh-HK', 'zho_Hant', 'written (not spoken) Chinese of Hong Kong is Traditional; Cantonese is yue'],
  ['zh-MO', 'zho_Hant', 'as zh-HK'],
  ['iw', 'heb_Hebr', "Google's legacy Hebrew code"],
  ['jw', 'jav_Latn', "Google's legacy Javanese code"],
  ['fil', 'tgl_Latn', 'Google: "fil or tl"; CLDR canonical form of tl'],
  ['no', 'nob_Latn', "Google's Norwegian is Bokmål"],
  ['ji', 'ydd_Hebr', 'legacy ISO 639 code of Yiddish'],
  ['ara', 'arb_Arab', 'macrolanguage -> Modern Standard Arabic'],
  ['fas', 'pes_Arab', 'macrolanguage -> Western Persian (Dari is prs / fa-AF)'],
  ['per', 'pes_Arab', 'ISO 639-2/B of fas'],
  ['msa', 'zsm_Latn', 'macrolanguage -> Standard Malay'],
  ['may', 'zsm_Latn', 'ISO 639-2/B of msa'],
  ['aze', 'azj_Latn', 'macrolanguage -> North Azerbaijani'],
  ['kur', 'kmr_Latn', 'macrolanguage -> Northern Kurdish (ku; Central Kurdish is ckb)'],
  ['lav', 'lvs_Latn', 'macrolanguage -> Standard Latvian'],
  ['mon', 'khk_Cyrl', 'macrolanguage -> Halh Mongolian'],
  ['uzb', 'uzn_Latn', 'macrolanguage -> Northern Uzbek'],
  ['orm', 'gaz_Latn', 'macrolanguage -> West Central Oromo'],
  ['mlg', 'plt_Latn', 'macrolanguage -> Plateau Malagasy'],
  ['sqi', 'als_Latn', 'macrolanguage -> Tosk Albanian'],
  ['alb', 'als_Latn', 'ISO 639-2/B of sqi'],
  ['yid', 'ydd_Hebr', 'macrolanguage -> Eastern Yiddish'],
  ['aym', 'ayr_Latn', 'macrolanguage -> Central Aymara'],
  ['kau', 'knc_Latn', 'macrolanguage -> Central Kanuri (Latin)'],
  ['ori', 'ory_Orya', 'macrolanguage -> Odia'],
  ['pus', 'pbt_Arab', 'macrolanguage -> Southern Pashto'],
  ['que', 'quy_Latn', 'macrolanguage -> Ayacucho Quechua'],
  ['ful', 'fuv_Latn', 'macrolanguage -> Nigerian Fulfulde'],
  ['swa', 'swh_Latn', 'macrolanguage -> Swahili'],
  ['nep', 'npi_Deva', 'macrolanguage -> Nepali'],
  ['est', 'est_Latn', 'ISO 639-3 (also the variety code)'],
  ['din', 'dik_Latn', 'macrolanguage Dinka -> Southwestern Dinka; also Google\'s code'],
  ['tmh', 'taq_Latn', 'macrolanguage Tamashek -> Tamasheq (Latin)'],
  ['ber', 'tzm_Tfng', 'Google\'s "Tamazight (Tifinagh)"; approximate'],
  ['fa-AF', 'prs_Arab', "Google's Dari"],
  ['mni-Mtei', 'mni_Beng', "Google's Meiteilon (Google writes Meetei Mayek, FLORES Bengali script)"],
  ['crh-Latn', 'crh_Latn', "Google's Crimean Tatar (Latin)"],
  ['sat_Beng', 'sat_Olck', "NLLB's token for FLORES sat_Olck"],
];
