// A sentence longer than the model's position table cannot be encoded in one piece: it is cut at whitespace into
// pieces that fit (rare: the service cuts text into sentences first), translated, and the pieces joined by a space.

/** Cuts `text` at whitespace (else anywhere) until every piece encodes to at most `limit` ids. */
export function fitPieces(text: string, encode: (t: string) => number[], limit: number): { text: string; ids: number[] }[] {
  const ids = encode(text);
  // Last resort for an unbreakable run: keep the first ids and the closing </s>.
  const clip = () => [{ text, ids: ids.length <= limit ? ids : [...ids.slice(0, limit - 1), ids[ids.length - 1]!] }];
  if (ids.length <= limit || text.length < 2) return clip();
  const middle = Math.floor(text.length / 2);
  const spaces = [...text.matchAll(/\s+/g)].map((m) => m.index!).filter((i) => i > 0);
  const cut = spaces.length ? spaces.reduce((a, b) => (Math.abs(b - middle) < Math.abs(a - middle) ? b : a)) : middle;
  const left = text.slice(0, cut).trim();
  const right = text.slice(cut).trim();
  if (!left || !right) return clip();
  return [...fitPieces(left, encode, limit), ...fitPieces(right, encode, limit)];
}
