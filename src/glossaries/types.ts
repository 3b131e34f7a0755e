// A glossary: a key's named set of term pairs, for one language pair (the /v1 and DeepL v2 shape) or several
// (DeepL v3's multilingual glossaries: one dictionary per pair). Languages are the catalog's public codes.

export interface Dictionary {
  source: string;
  target: string;
  /** [source term, target term], in the order given; source terms distinct (case-insensitively) within a dictionary. */
  entries: [string, string][];
}

export interface Glossary {
  id: string;
  /** The API key that made it: only that key sees, uses or deletes it. */
  owner: string;
  name: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  dictionaries: Dictionary[];
}

export interface GlossaryLimits {
  maxEntries: number;
  maxTermChars: number;
  perKey: number;
}
