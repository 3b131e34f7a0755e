// Text as typed without diacritics: what many users send ("Dnes je krasne pocasi", "Bugun hava cok guzel"). The
// trainer makes stripped copies of training lines with it (scripts/train-lid.ts, the unaccented model), the
// benchmark its stripped-text table (scripts/bench-detect.ts), and the detector asks whether its input has a
// diacritic at all (isUnaccentedLatin); it never rewrites the detector's input.
//
// NFD, then every combining mark U+0300-U+036F removed (acute, grave, caron, cedilla, ogonek, breve, ring, dot
// above, horn, tone marks, ...), then the letters whose mark is part of the glyph mapped to what an ASCII keyboard
// types: ł→l, ø→o, đ→d, ħ→h, ı→i, ß→ss (and capitals). Letters that are letters of their own, not a base letter
// with a mark, are kept: æ, œ, ð, þ, ə, ŋ, ɛ, ɔ, ɓ, ɗ, ƙ, ... (a Dane types æ on a Danish keyboard; an Ewe writer
// has no ASCII stand-in for ɔ that everyone agrees on).
const STROKED: Readonly<Record<string, string>> = {
  ł: 'l', Ł: 'L', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ħ: 'h', Ħ: 'H', ı: 'i', ß: 'ss', ẞ: 'SS',
};
const STROKED_RE = /[łŁøØđĐħĦıßẞ]/g;

export function stripDiacritics(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(STROKED_RE, (ch) => STROKED[ch]!)
    .normalize('NFC');
}

const LATIN_LETTER = /\p{Script=Latin}/u;

/** Latin-script text in which no letter carries a diacritic that stripDiacritics() would remove. */
export function isUnaccentedLatin(text: string): boolean {
  return LATIN_LETTER.test(text) && stripDiacritics(text) === text.normalize('NFC');
}
