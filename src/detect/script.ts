// Unicode script of a text, from a per-code-point table built once from the regex engine's \p{Script=...}.
// The dominant script decides which catalog varieties are possible at all (Thai text is never `hi`).

/** Writing systems the catalog uses (ISO 15924), plus the Japanese kana that only jpn_Jpan writes. */
export const SCRIPTS = [
  'Latn', 'Cyrl', 'Arab', 'Deva', 'Beng', 'Hani', 'Hira', 'Kana', 'Hang', 'Ethi', 'Hebr', 'Grek', 'Armn', 'Geor',
  'Thai', 'Laoo', 'Khmr', 'Mymr', 'Sinh', 'Taml', 'Telu', 'Knda', 'Mlym', 'Gujr', 'Guru', 'Orya', 'Tibt', 'Tfng',
  'Olck',
] as const;
export type ScriptCode = (typeof SCRIPTS)[number];

const UNICODE_NAME: Record<ScriptCode, string> = {
  Latn: 'Latin', Cyrl: 'Cyrillic', Arab: 'Arabic', Deva: 'Devanagari', Beng: 'Bengali', Hani: 'Han',
  Hira: 'Hiragana', Kana: 'Katakana', Hang: 'Hangul', Ethi: 'Ethiopic', Hebr: 'Hebrew', Grek: 'Greek',
  Armn: 'Armenian', Geor: 'Georgian', Thai: 'Thai', Laoo: 'Lao', Khmr: 'Khmer', Mymr: 'Myanmar', Sinh: 'Sinhala',
  Taml: 'Tamil', Telu: 'Telugu', Knda: 'Kannada', Mlym: 'Malayalam', Gujr: 'Gujarati', Guru: 'Gurmukhi',
  Orya: 'Oriya', Tibt: 'Tibetan', Tfng: 'Tifinagh', Olck: 'Ol_Chiki',
};

/** Character classes in the table: 0 = not a letter, 1 = a letter of a script outside SCRIPTS, 2.. = SCRIPTS[i - 2]. */
export const NOT_LETTER = 0;
export const OTHER_LETTER = 1;
const TABLE_SIZE = 0x30000; // BMP + SMP + SIP (CJK extension B..): everything a real text uses

function buildTable(): Uint8Array {
  const table = new Uint8Array(TABLE_SIZE);
  // One string holding every code point once; cpAt maps its UTF-16 offsets back to code points, so each class is
  // one native regex scan instead of a test per code point.
  const parts: string[] = [];
  const cpAt = new Uint32Array(TABLE_SIZE * 2);
  let offset = 0;
  for (let cp = 0; cp < TABLE_SIZE; cp++) {
    const ch = cp >= 0xd800 && cp <= 0xdfff ? ' ' : String.fromCodePoint(cp);
    parts.push(ch);
    cpAt[offset] = cp;
    offset += ch.length;
  }
  const all = parts.join('');
  // Letters and combining marks (Indic vowel signs are marks) count as letters; apostrophes join words.
  for (const m of all.matchAll(/[\p{L}\p{M}]/gu)) table[cpAt[m.index]!] = OTHER_LETTER;
  SCRIPTS.forEach((s, i) => {
    for (const m of all.matchAll(new RegExp(`\\p{Script=${UNICODE_NAME[s]}}`, 'gu'))) {
      const cp = cpAt[m.index]!;
      if (table[cp]) table[cp] = i + 2;
    }
  });
  // Marks shared by several scripts (Script=Inherited) stay OTHER_LETTER: they join the word without voting.
  return table;
}

let table: Uint8Array | undefined;
/** The per-code-point class table (built on first use, ~0.1 s). */
export function charClasses(): Uint8Array {
  table ??= buildTable();
  return table;
}

export function classOf(cp: number): number {
  const t = charClasses();
  return cp < TABLE_SIZE ? t[cp]! : OTHER_LETTER_IF_LETTER(cp);
}

function OTHER_LETTER_IF_LETTER(cp: number): number {
  return /^[\p{L}\p{M}]$/u.test(String.fromCodePoint(cp)) ? OTHER_LETTER : NOT_LETTER;
}

/** Letters per script in `text` (index = class number); [0] unused, [1] letters of scripts outside SCRIPTS. */
export function scriptCounts(text: string): Uint32Array {
  const t = charClasses();
  const counts = new Uint32Array(SCRIPTS.length + 2);
  const end = text.length;
  for (let i = 0; i < end; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < end) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = ((cp - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    counts[cp < TABLE_SIZE ? t[cp]! : OTHER_LETTER_IF_LETTER(cp)]!++;
  }
  return counts;
}

const idx = (s: ScriptCode): number => SCRIPTS.indexOf(s) + 2;
const HANI = idx('Hani');
const HIRA = idx('Hira');
const KANA = idx('Kana');

const LATN = idx('Latn');
const HANG = idx('Hang');

/**
 * How much one letter of a script weighs when scripts compete in one text. A Han character or a Hangul syllable
 * carries about what a short word does in an alphabet, so it counts 2; a Latin letter counts ½, because Latin
 * is what every other script borrows — brand names, product names, tech words (`הזמנתי iPhone חדש מ-Amazon`,
 * `오늘 team meeting은 cancel됐어요`): counted raw, those borrowings outvoted the text's own script and the answer
 * was some Latin-script language. An English sentence with one foreign word in it still reads as Latin.
 */
function weight(cls: number, count: number): number {
  return cls === LATN ? count / 2 : cls === HANG ? count * 2 : count;
}

/**
 * The catalog scripts (FLORES script subtags) a text can be written in, from its letter counts: the dominant
 * script's (letters weighted, see `weight`), where Han counts together with kana (any real share of kana makes it
 * Japanese; Han alone may be Chinese in either script, Cantonese or kana-less Japanese). Empty when the text has
 * no letters or is mostly in a script no catalog variety uses.
 */
export function possibleScripts(counts: Uint32Array): string[] {
  const kana = counts[HIRA]! + counts[KANA]!;
  const cjk = counts[HANI]! + kana;
  let best = 0;
  let bestClass = 0;
  for (let i = 2; i < counts.length; i++) {
    if (i === HANI || i === HIRA || i === KANA) continue;
    const w = weight(i, counts[i]!);
    if (w > best) {
      best = w;
      bestClass = i;
    }
  }
  if (cjk * 2 > best) {
    if (cjk * 2 < counts[OTHER_LETTER]!) return [];
    return kana > 0 && kana * 10 >= cjk ? ['Jpan'] : ['Hans', 'Hant', 'Jpan'];
  }
  if (best === 0 || best < counts[OTHER_LETTER]!) return [];
  return [SCRIPTS[bestClass - 2]!];
}

/** Scripts whose texts are classified with character 1- and 2-grams too (few letters, many distinct characters). */
export const LOW_ORDER_SCRIPTS: ReadonlySet<string> = new Set(['Hans', 'Hant', 'Jpan', 'Hang']);
