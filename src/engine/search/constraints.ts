// Lexical constraints as a rule of search (Post & Vilar 2018; Sockeye's lexical_constraints.py): each hypothesis
// carries which phrases (token sequences that must appear in its output) it has produced, and the rule says, per
// hypothesis and step, which tokens are forced or banned. Unlike Sockeye, a phrase once begun is finished (its next
// token is the only one allowed): a phrase then always comes out whole and contiguous, and the number of tokens
// still owed is exact, which is what lets the rule force progress early enough to finish every phrase before the
// length limit. The beam search that uses it is constrained-beam.ts.

/** What a row must contain: phrases (token ids, each to appear once per listing) and the tokens that glue to a word. */
export interface RowConstraints {
  /** Each phrase must appear once in the output for each time it is listed here, contiguous, never more. */
  phrases: number[][];
  /**
   * Tokens that continue the word before them (a SentencePiece piece without its word-start mark that begins with a
   * letter, digit or joining sign such as a hyphen): never allowed right after a phrase, so a phrase is not glued to
   * the next word.
   */
  joiners: readonly number[];
}

/** A hypothesis' progress through its row's phrases. Immutable: each step makes a new one. */
export interface ConstraintState {
  /** Per phrase, whether it has been produced. */
  readonly met: readonly boolean[];
  /** The phrases consistent with the tokens of a phrase begun and not finished, and how many tokens of them are out. */
  readonly open: { readonly phrases: readonly number[]; readonly pos: number } | undefined;
  /** The last token finished a phrase (the next one may not glue to it). */
  readonly justMet: boolean;
}

/** Tokens a constrained row may generate beyond the usual limit: every phrase besides what the model writes, and EOS. */
export function extraRoom(phrases: readonly (readonly number[])[]): number {
  return phrases.reduce((n, p) => n + p.length, 0) + 1;
}

export function initialState(c: RowConstraints): ConstraintState {
  return { met: c.phrases.map(() => false), open: undefined, justMet: false };
}

/** Tokens of every phrase produced, plus those out of the open one: the bank of Post & Vilar's beam allocation. */
export function progress(c: RowConstraints, s: ConstraintState): number {
  let n = s.open?.pos ?? 0;
  s.met.forEach((m, i) => {
    if (m) n += c.phrases[i]!.length;
  });
  return n;
}

export function allMet(s: ConstraintState): boolean {
  return s.open === undefined && s.met.every(Boolean);
}

/** Tokens still owed: the rest of the open phrase (its shortest candidate) and every phrase not begun. */
export function owed(c: RowConstraints, s: ConstraintState): number {
  let n = 0;
  const inOpen = new Set(s.open?.phrases ?? []);
  if (s.open) n += Math.min(...s.open.phrases.map((p) => c.phrases[p]!.length)) - s.open.pos;
  // Phrases sharing the open one's tokens so far: only one of them is being produced, the others are still owed.
  let openCounted = false;
  s.met.forEach((m, i) => {
    if (m) return;
    if (inOpen.has(i) && !openCounted) {
      openCounted = true;
      return;
    }
    n += c.phrases[i]!.length;
  });
  return n;
}

/** The state after `token`. */
export function advance(c: RowConstraints, s: ConstraintState, token: number): ConstraintState {
  if (s.open) {
    const pos = s.open.pos;
    const still = s.open.phrases.filter((p) => c.phrases[p]![pos] === token);
    // The rule allows only continuing tokens; anything else (a forced EOS of the model's rules) abandons the phrase.
    if (still.length === 0) return { met: s.met, open: undefined, justMet: false };
    const done = still.find((p) => c.phrases[p]!.length === pos + 1);
    if (done !== undefined) return { met: s.met.map((m, i) => m || i === done), open: undefined, justMet: true };
    return { met: s.met, open: { phrases: still, pos: pos + 1 }, justMet: false };
  }
  const starting: number[] = [];
  const seen = new Set<string>();
  s.met.forEach((m, i) => {
    const p = c.phrases[i]!;
    const key = p.join(',');
    // One phrase listed twice: the first one not yet met is the one being produced.
    if (!m && p[0] === token && !seen.has(key)) {
      seen.add(key);
      starting.push(i);
    }
  });
  if (starting.length === 0) return { met: s.met, open: undefined, justMet: false };
  const done = starting.find((p) => c.phrases[p]!.length === 1);
  if (done !== undefined) return { met: s.met.map((m, i) => m || i === done), open: undefined, justMet: true };
  return { met: s.met, open: { phrases: starting, pos: 1 }, justMet: false };
}

/**
 * What the rule does to a hypothesis at a step where `room` tokens are left before the one that must be EOS: within
 * an open phrase, only its next tokens; when the tokens owed fill the room, only the first token of a phrase not
 * begun; EOS banned while anything is owed; after a phrase, no joiner; the last token of a phrase already produced as
 * often as listed banned where the hypothesis ends with the rest of it (no duplicate).
 */
export function ruleFor(
  c: RowConstraints, s: ConstraintState, tail: readonly number[], room: number, stopIds: readonly number[],
): { only?: number[]; ban: number[] } {
  if (s.open) {
    const pos = s.open.pos;
    return { only: [...new Set(s.open.phrases.map((p) => c.phrases[p]![pos]!))], ban: [] };
  }
  const due = owed(c, s);
  if (due > 0 && due >= room) {
    return { only: [...new Set(c.phrases.filter((_, i) => !s.met[i]).map((p) => p[0]!))], ban: [] };
  }
  const ban: number[] = [];
  if (due > 0) ban.push(...stopIds);
  if (s.justMet) ban.push(...c.joiners);
  c.phrases.forEach((p, i) => {
    if (!s.met[i]) return;
    // Listed again and not yet met: that copy is owed, not a duplicate.
    if (c.phrases.some((q, j) => j !== i && !s.met[j] && q.join(',') === p.join(','))) return;
    const rest = p.length - 1;
    if (rest <= tail.length && p.slice(0, rest).every((t, k) => tail[tail.length - rest + k] === t)) ban.push(p[rest]!);
  });
  return { ban };
}

/**
 * Whether a finished output already meets its constraints: each phrase exactly as often as listed (occurrences
 * counted without overlap), none followed by a joiner. Such an output is what the constrained search guarantees,
 * so the model's own translation can stand (constrained-beam.ts tries it first).
 */
export function satisfies(c: RowConstraints, tokens: readonly number[]): boolean {
  const joiners = new Set(c.joiners);
  const listed = new Map<string, { phrase: number[]; times: number }>();
  for (const p of c.phrases) {
    const key = p.join(',');
    const seen = listed.get(key);
    if (seen) seen.times++;
    else listed.set(key, { phrase: p, times: 1 });
  }
  for (const { phrase, times } of listed.values()) {
    let found = 0;
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      if (!phrase.every((t, k) => tokens[i + k] === t)) continue;
      if (joiners.has(tokens[i + phrase.length]!)) return false;
      found++;
      i += phrase.length - 1;
    }
    if (found !== times) return false;
  }
  return true;
}
