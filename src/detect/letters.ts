// Letter inventories: which letters each variety's training text uses at all. A short text with a letter its
// variety never writes is rarely that variety ("Вы забылі свой пароль?" has і, which Russian does not use, and
// came out Russian 0.82 on the popularity prior). The n-gram model sees this only weakly: its features are
// hashed, and a big variety's many buckets often "know" an n-gram it never saw. So each letter of the text that a
// candidate's inventory lacks costs that candidate a fixed penalty — a few nats, decisive on a word or two and
// nothing against the hundreds of nats a sentence of real evidence carries (a quoted foreign name does no harm).
//
// Inventories are built by the trainer from FLORES-200 train lines and stored in the model header. Han, kana and
// Hangul are left out: thousands of characters, and the n-gram model handles them with 1-grams already.

/** Letters left out of inventories (large syllabaries and logographs). */
// Script_Extensions, so the marks kana share (the prolonged sound mark ー is script Common) are left out too.
const SKIPPED = /[\p{Script_Extensions=Han}\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}\p{Script_Extensions=Hangul}]/u;
const LETTER = /[\p{L}\p{M}]/u;

/** The distinct letters (lower-cased, marks included) of `text`, without Han/kana/Hangul. */
export function distinctLetters(text: string): Set<string> {
  const letters = new Set<string>();
  for (const ch of text.toLowerCase()) if (LETTER.test(ch) && !SKIPPED.test(ch)) letters.add(ch);
  return letters;
}

/** A variety's inventory as stored in the model header: its distinct letters, sorted, as one string. */
export function letterInventory(lines: readonly string[]): string {
  const letters = new Set<string>();
  for (const line of lines) for (const ch of distinctLetters(line)) letters.add(ch);
  return [...letters].sort().join('');
}

export class LetterCheck {
  /** Letter -> per class 1 if the class's inventory has it. Letters in no inventory are absent (all zero). */
  private readonly members = new Map<string, Uint8Array>();
  /** Classes that have an inventory (a class without one is never penalised). */
  private readonly known: Uint8Array;

  constructor(classes: readonly string[], inventories: Readonly<Record<string, string>>) {
    this.known = new Uint8Array(classes.length);
    classes.forEach((flores, c) => {
      const inventory = inventories[flores];
      if (inventory === undefined) return;
      this.known[c] = 1;
      for (const ch of inventory) {
        let member = this.members.get(ch);
        if (!member) this.members.set(ch, (member = new Uint8Array(classes.length)));
        member[c] = 1;
      }
    });
  }

  /** missing[c] = how many distinct letters of `text` class c's inventory lacks, for each of `candidates`. */
  count(text: string, candidates: readonly number[], missing: Float64Array): void {
    for (const c of candidates) missing[c] = 0;
    for (const ch of distinctLetters(text)) {
      const member = this.members.get(ch);
      for (const c of candidates) if (this.known[c] && !member?.[c]) missing[c]!++;
    }
  }
}
