// Bidirectional embeddings, overrides and isolates come in pairs: LRE/RLE/LRO/RLO … PDF, LRI/RLI/FSI … PDI. A model
// keeps or drops the controls inside a sentence as it likes, and one that drops a PDF leaves its RLO reordering
// everything after it: the next sentence, the rest of the page. So each translated sentence is repaired to open
// and close exactly what its source sentence did: pairs inside it are both kept or both dropped, and a control
// whose partner lies in another sentence (the source's own span across sentences) stays, once.

const EMBEDDINGS = new Set(['\u202a', '\u202b', '\u202d', '\u202e']); // LRE RLE LRO RLO
const ISOLATES = new Set(['\u2066', '\u2067', '\u2068']); // LRI RLI FSI
const PDF = '\u202c';
const PDI = '\u2069';
const CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
const ANY_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

interface Unpaired {
  /** Closers with no opener before them in the text, in order: they close what an earlier text opened. */
  closers: { at: number; char: string }[];
  /** Openers with no closer after them, in order: a later text closes them. */
  openers: { at: number; char: string }[];
}

/** The controls of `text` that have no partner inside it (as the Unicode bidi algorithm pairs them). */
function unpaired(text: string): Unpaired {
  const closers: Unpaired['closers'] = [];
  const stack: { at: number; char: string }[] = [];
  for (const m of text.matchAll(CONTROLS)) {
    const char = m[0];
    const at = m.index;
    if (EMBEDDINGS.has(char) || ISOLATES.has(char)) stack.push({ at, char });
    else if (char === PDF) {
      // A PDF closes the innermost embedding, never across an isolate.
      if (stack.length > 0 && EMBEDDINGS.has(stack[stack.length - 1]!.char)) stack.pop();
      else closers.push({ at, char });
    } else {
      // A PDI closes the innermost isolate and every embedding opened inside it.
      let i = stack.length - 1;
      while (i >= 0 && !ISOLATES.has(stack[i]!.char)) i--;
      if (i >= 0) stack.length = i;
      else closers.push({ at, char });
    }
  }
  return { closers, openers: stack };
}

const same = (a: { char: string }[], b: { char: string }[]) => a.length === b.length && a.every((x, i) => x.char === b[i]!.char);

/**
 * `translation` with its bidi controls repaired to pair as `source`'s do. Unchanged when they already do. Else
 * the translation's unpaired controls are dropped, the source's missing closers go at its end and its missing
 * openers at its start (so an override the model lost the end of still covers its sentence, and no further),
 * or the other way round when the source has both (then they cannot pair with each other).
 */
export function balanceBidi(source: string, translation: string): string {
  if (!ANY_CONTROL.test(source) && !ANY_CONTROL.test(translation)) return translation;
  const want = unpaired(source);
  const have = unpaired(translation);
  if (same(want.closers, have.closers) && same(want.openers, have.openers)) return translation;
  const drop = new Set([...have.closers, ...have.openers].map((c) => c.at));
  let body = '';
  for (let i = 0; i < translation.length; i++) if (!drop.has(i)) body += translation[i];
  const closers = want.closers.map((c) => c.char).join('');
  const openers = want.openers.map((c) => c.char).join('');
  return want.closers.length > 0 && want.openers.length > 0 ? closers + body + openers : openers + body + closers;
}
