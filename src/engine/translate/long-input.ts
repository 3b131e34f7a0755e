// A sentence longer than the model's position table cannot be encoded in one piece: it is cut at whitespace into
// pieces that fit (rare: the service cuts text into sentences first), translated, and the pieces joined by a space.

/**
 * A text this many times longer (in characters) than the limit (in ids) cannot fit whatever it holds: it is cut into
 * pieces of about CHUNK_FACTOR times the limit first, so each character is encoded about twice, not once per
 * halving (100,000 letters without a space blocked the event loop for 1.6 s).
 */
const PRECUT_FACTOR = 16;
const CHUNK_FACTOR = 4;

function* precut(text: string, size: number): Generator<string> {
  let start = 0;
  while (text.length - start > size) {
    // The last whitespace before the size, else the size itself (on a code point boundary).
    const window = text.slice(start, start + size);
    const space = window.search(/\s\S*$/);
    let end = start + (space > 0 ? space : size);
    if (space <= 0 && /[\udc00-\udfff]/.test(text[end] ?? '')) end--;
    yield text.slice(start, end);
    start = end;
  }
  yield text.slice(start);
}

/** Cuts `text` at whitespace (else anywhere) until every piece encodes to at most `limit` ids. */
export function fitPieces(text: string, encode: (t: string) => number[], limit: number): { text: string; ids: number[] }[] {
  if (text.length > PRECUT_FACTOR * limit) {
    return [...precut(text, CHUNK_FACTOR * limit)].map((t) => t.trim()).filter(Boolean).flatMap((t) => fitPieces(t, encode, limit));
  }
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
