// One catalog entry: a FLORES-200 variety with the public code the API uses for it.
export interface Language {
  /** Public API code: ISO 639-1, else ISO 639-3; script subtag only for two-script languages; zh-CN / zh-TW. */
  code: string;
  /** FLORES-200 code (`deu_Latn`): the canonical identity inside Dragoman (engine, detection). */
  flores: string;
  iso639_3: string;
  script: string;
  /** English name (CLDR via Intl.DisplayNames, else the dataset's name). */
  name: string;
  /** NLLB-200 language token (`deu_Latn`; `sat_Beng` for sat_Olck); undefined when NLLB has none. */
  nllb?: string;
  /** Google Translate's code for the variety, when Google has one. */
  google?: string;
}
