// Detection result for one string. `language` is a public catalog code (src/languages) or `und`.
export interface Detection {
  language: string;
  /** 0..1, calibrated: short or ambiguous text gets a low value. */
  confidence: number;
  isReliable: boolean;
  /** Best-first candidates (the first equals language/confidence); at least one entry unless `und`. */
  candidates: { language: string; confidence: number }[];
}

export interface LanguageDetector {
  detect(text: string): Detection;
  /** The public codes it can answer, when it knows them: a language outside them is never detected. */
  languages?(): ReadonlySet<string>;
}
