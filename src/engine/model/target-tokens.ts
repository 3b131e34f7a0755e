// Multilingual OPUS-MT models (en-ROMANCE, en-mul, en-zh, ...) choose their output language by a `>>xx<<` token
// opening the source, as Python's MarianTokenizer puts it there. Which tokens a vocabulary has, and which one asks
// for each catalog language.
import { resolveLanguage } from '../../languages/catalog.ts';

/** Vocabulary pieces of the form `>>fra<<`: an OPUS-MT model that needs one opening the source to pick its output. */
export function targetTokenPieces(tokenizerJson: Record<string, unknown>): string[] {
  const model = tokenizerJson.model as { vocab?: unknown } | undefined;
  const vocab = model?.vocab;
  const pieces = Array.isArray(vocab)
    ? vocab.map((entry) => String(Array.isArray(entry) ? entry[0] : entry))
    : vocab && typeof vocab === 'object' ? Object.keys(vocab) : [];
  return pieces.filter((p) => /^>>\w+<<$/.test(p));
}

/** Lexicographic order of two equally long number lists. */
function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * FLORES code -> the token asking for it. Several tokens may name one variety (`>>fr<<`, `>>fr_BE<<`; `>>cmn_Hans<<`,
 * `>>zho_Hans<<`): a token naming the variety's script wins, then one whose language is the variety's own code
 * (`fr`, `fra`), then the shortest, then the alphabetically first, so the choice never depends on vocabulary order.
 */
export function targetTokenMap(pieces: string[]): Map<string, string> {
  const best = new Map<string, { token: string; rank: number[] }>();
  for (const token of pieces) {
    const code = token.slice(2, -2);
    const lang = resolveLanguage(code);
    if (!lang) continue; // languages outside the catalog (lzh, wuu, ...) cannot be asked for through the API
    const [base, sub] = code.split('_');
    const rank = [
      sub?.toLowerCase() === lang.script.toLowerCase() ? 0 : 1,
      base === lang.code.split('-')[0] || base === lang.iso639_3 ? 0 : 1,
      token.length,
    ];
    const held = best.get(lang.flores);
    const order = held ? compareRanks(rank, held.rank) || (token < held.token ? -1 : 1) : -1;
    if (order < 0) best.set(lang.flores, { token, rank });
  }
  return new Map([...best].map(([f, { token }]) => [f, token]));
}
