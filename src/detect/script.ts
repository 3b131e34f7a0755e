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

const idx = (s: ScriptCode): number => SCRIPTS.indexOf(s) + 2;
const HANI = idx('Hani');
const HIRA = idx('Hira');
const KANA = idx('Kana');

/** Character classes in the table: 0 = not a letter, 1 = a letter of a script outside SCRIPTS, 2.. = SCRIPTS[i - 2]. */
export const NOT_LETTER = 0;
export const OTHER_LETTER = 1;
const TABLE_SIZE = 0x30000; // BMP + SMP + SIP (CJK extension B..): everything a real text uses

/** Combining marks shared by scripts (Script=Inherited: U+0300 acute…): they belong to the letter before them. */
let inherited: Uint8Array | undefined;

function buildTable(): Uint8Array {
  const table = new Uint8Array(TABLE_SIZE);
  inherited = new Uint8Array(TABLE_SIZE);
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
  // Marks shared by several scripts (Script=Inherited) stay OTHER_LETTER in the table (features see a letter); the
  // script count gives them to the letter they follow (a decomposed "ọ́" is Latin, not a vote for another script).
  for (const m of all.matchAll(/(?=\p{M})\p{Script=Inherited}/gu)) inherited[cpAt[m.index]!] = 1;
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

/**
 * Per script (index = class number; [0] unused, [1] = scripts outside SCRIPTS): how many letters `text` has in it,
 * and how many words — runs of its letters, Han and kana together (a run of text without spaces counts once here;
 * `possibleScripts` estimates its words from its letters).
 */
export interface ScriptProfile {
  letters: Uint32Array;
  words: Uint32Array;
}

export function scriptProfile(text: string): ScriptProfile {
  const t = charClasses();
  const marks = inherited!;
  const letters = new Uint32Array(SCRIPTS.length + 2);
  const words = new Uint32Array(SCRIPTS.length + 2);
  let run = NOT_LETTER; // the class of the word being read (Han for Han and kana)
  let last = NOT_LETTER; // the class of the letter before, for the marks after it
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
    let c = cp < TABLE_SIZE ? t[cp]! : OTHER_LETTER_IF_LETTER(cp);
    if (c === NOT_LETTER) {
      run = last = NOT_LETTER;
      continue;
    }
    if (cp < TABLE_SIZE && marks[cp] === 1 && last !== NOT_LETTER) c = last;
    letters[c]!++;
    last = c;
    const group = c === HIRA || c === KANA ? HANI : c;
    if (group !== run) {
      words[group]!++;
      run = group;
    }
  }
  return { letters, words };
}

const LATN = idx('Latn');
const HANG = idx('Hang');
/** Scripts written without spaces between words, and about how many letters a word has in each. */
const LETTERS_PER_WORD: ReadonlyMap<number, number> = new Map([
  [HANI, 1.7],
  ...(['Thai', 'Laoo', 'Khmr', 'Mymr', 'Tibt'] as const).map((s): [number, number] => [idx(s), 4]),
]);

/** Whether `a` comes before `b` in order of their first differing element, larger first (words, non-Latin, letters). */
function ranksAbove(a: readonly number[], b: readonly number[]): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! > b[k]!;
  return false;
}

/**
 * The catalog scripts (FLORES script subtags) a text can be written in: the script most of its words are in.
 * Code-mixed text is common both ways — a sentence borrowing brand names (`הזמנתי iPhone חדש מ-Amazon`,
 * `AmazonでNintendo Switchを注文した`) and a sentence with a foreign name in it (`Hi Αλέξανδρος, see you soon`) —
 * and its own language writes most of the words (the grammar), while the borrowed ones are long; counted by letters,
 * the borrowings won. Scripts without spaces count letters / LETTERS_PER_WORD words. A tie goes to the non-Latin
 * script (Latin is what the others borrow), then to more letters (Han and Hangul counting double: a syllable or a
 * character holds what several letters do). Han with a real share of kana is Japanese; Han alone may be Chinese in
 * either script, Cantonese or kana-less Japanese. Empty when the text has no letters or is mostly in a script no
 * catalog variety uses.
 */
export function possibleScripts(profile: ScriptProfile): string[] {
  const { letters, words } = profile;
  const kana = letters[HIRA]! + letters[KANA]!;
  const cjk = letters[HANI]! + kana;
  let bestClass = 0;
  let best = [0, 0, 0];
  for (let i = 2; i < letters.length; i++) {
    if (i === HIRA || i === KANA) continue;
    const n = i === HANI ? cjk : letters[i]!;
    if (n === 0) continue;
    const perWord = LETTERS_PER_WORD.get(i);
    const score = [perWord === undefined ? words[i]! : n / perWord, i === LATN ? 0 : 1, i === HANI || i === HANG ? 2 * n : n];
    if (ranksAbove(score, best)) {
      best = score;
      bestClass = i;
    }
  }
  if (bestClass === 0) return [];
  const own = bestClass === HANI ? cjk : letters[bestClass]!;
  if (own < letters[OTHER_LETTER]!) return [];
  if (bestClass === HANI) return kana > 0 && kana * 10 >= cjk ? ['Jpan'] : ['Hans', 'Hant', 'Jpan'];
  return [SCRIPTS[bestClass - 2]!];
}

/** Scripts whose texts are classified with character 1- and 2-grams too (few letters, many distinct characters). */
export const LOW_ORDER_SCRIPTS: ReadonlySet<string> = new Set(['Hans', 'Hant', 'Jpan', 'Hang']);
