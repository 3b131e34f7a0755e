// A subtitle cue's lines: its text is translated as one sentence (a sentence broken over two lines would be
// translated as two halves), and the translation is broken again into at most as many lines as the cue had,
// balanced: at spaces, never inside a tag, so that the longest line is as short as it can be.

/** One word of the rendered cue: its text with any tags inside it, and how many characters it shows. */
interface Word {
  text: string;
  width: number;
}

/** Words of `text` split at whitespace outside tags (`<i>`, `<font color="a b">`), tags counting no width. */
function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  let current: Word = { text: '', width: 0 };
  for (const m of text.matchAll(/<[^<>]*>|\s+|[^\s<]+|</g)) {
    const piece = m[0];
    if (/^\s+$/.test(piece)) {
      if (current.text !== '') words.push(current);
      current = { text: '', width: 0 };
    } else {
      current.text += piece;
      if (!(piece.startsWith('<') && piece.endsWith('>') && piece.length > 1)) current.width += [...piece].length;
    }
  }
  if (current.text !== '') words.push(current);
  return words;
}

/**
 * `text` (one line) as at most `lines` lines, split at word boundaries so the longest line is as short as
 * possible; of equally long splits, the one whose lines differ least. Fewer lines only when there are fewer words.
 */
export function balanceLines(text: string, lines: number): string[] {
  const words = wordsOf(text);
  const n = Math.min(Math.max(1, lines), words.length);
  if (n <= 1) return [text.trim()];
  // width(i, j): words i..j-1 on one line, with single spaces between them.
  const prefix = [0];
  for (const w of words) prefix.push(prefix[prefix.length - 1]! + w.width);
  const width = (i: number, j: number) => prefix[j]! - prefix[i]! + (j - i - 1);
  // best[k][j]: the best split of the first j words into k lines, as [longest, spread, previous break].
  const best: [number, number, number][][] = [[[0, 0, 0]]];
  for (let k = 1; k <= n; k++) {
    const row: [number, number, number][] = [];
    for (let j = k; j <= words.length; j++) {
      let choice: [number, number, number] | undefined;
      for (let i = k - 1; i < j; i++) {
        const before = best[k - 1]![i];
        if (!before) continue;
        const w = width(i, j);
        const longest = Math.max(before[0], w);
        const spread = k === 1 ? 0 : before[1] + Math.abs(w - width(before[2], i));
        if (!choice || longest < choice[0] || (longest === choice[0] && spread < choice[1])) choice = [longest, spread, i];
      }
      row[j] = choice!;
    }
    best.push(row);
  }
  const out: string[] = [];
  let j = words.length;
  for (let k = n; k >= 1; k--) {
    const i = best[k]![j]![2];
    out.unshift(words.slice(i, j).map((w) => w.text).join(' '));
    j = i;
  }
  return out;
}

/** Lines that each start a speaker's turn ("- Hi." / "- Hello."): kept line by line, each its own sentence. */
export function isDialogue(lines: readonly string[]): boolean {
  return lines.length > 1 && lines.every((l) => /^\s*(?:<[^<>]*>\s*)*[-‐–—]\s?/.test(l));
}
