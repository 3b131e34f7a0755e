// Lexically constrained beam search with dynamic beam allocation (Post & Vilar 2018): every hypothesis carries its
// progress through its row's phrases (constraints.ts); each step's candidates are every hypothesis' best tokens
// plus every token that advances a phrase; the next beam is filled in turns from the banks of equal progress, the
// bank with the most progress first, so that hypotheses which placed their phrases are not pushed out by ones that
// did not. A hypothesis may end (EOS) only once every phrase is out, and the rule forces progress while the room
// left is what the phrases still need: every output contains every phrase, by construction.
//
// Only rows with constraints come here (the worker sends the others to beam.ts / greedy.ts unchanged), and it reads
// the decoder's full logits each step: the top-candidates and Loop shortcuts assume rules that only ban.
import type { GenerationRules } from '../model/family.ts';
import { applyRules, rowContext, rulesAt, type LogitsProcessor } from './logits-processors.ts';
import type { GenerationRow } from './types.ts';
import type { BeamSearch } from './beam.ts';
import { Hypotheses } from './hypotheses.ts';
import { logSoftmax } from './scores.ts';
import { DROP_FINISHED_SHARE, LOGITS_ONLY, type SearchDecoder } from '../runtime/search-decoder.ts';
import { advance, allMet, extraRoom, initialState, progress, ruleFor, satisfies, type ConstraintState, type RowConstraints } from './constraints.ts';

/** The worker's usual search (beam.ts or greedy.ts, as the job's beams say) over some rows. */
export type PlainSearch = (rows: readonly GenerationRow[]) => Promise<number[][][]>;

/**
 * Rows with constraints: first the usual search, whose best output stands where it already meets the constraints
 * (the model placed every phrase itself: the same translation as without them); the others are searched again with
 * the constraints enforced.
 */
export async function searchWithConstraints(
  plain: PlainSearch, decoder: SearchDecoder, rules: GenerationRules, processors: readonly LogitsProcessor[],
  rows: readonly GenerationRow[], beams: number, nBest: number,
): Promise<number[][][]> {
  // The usual search sees each row as it would without constraints (its own length limit included, less where the
  // phrases' room met the model's limit; never below one token).
  const first = await plain(rows.map(({ constraints, ...row }) => {
    const maxNewTokens = Math.max(1, row.maxNewTokens - extraRoom(constraints?.phrases ?? []));
    return { ...row, maxNewTokens, minNewTokens: Math.min(row.minNewTokens, maxNewTokens) };
  }));
  const again = rows.map((_, i) => i).filter((i) => {
    const best = first[i]![0];
    return !best || !satisfies(rows[i]!.constraints ?? { phrases: [], joiners: [] }, best);
  });
  if (again.length === 0) return first;
  const second = await constrainedBeamSearch(decoder, rules, processors, again.map((i) => rows[i]!), beams, nBest);
  again.forEach((i, k) => (first[i] = second[k]!));
  return first;
}

/** Fewest beams a constrained row is searched with: the banks need room beside the unconstrained best. */
export const MIN_CONSTRAINED_BEAMS = 4;

interface Live {
  score: number;
  tokens: number[];
  state: ConstraintState;
}

interface Candidate extends Live {
  from: number;
  bank: number;
}

export const constrainedBeamSearch: BeamSearch = async (decoder, rules, processors, rows, beams, nBest) => {
  const B = Math.max(beams, MIN_CONSTRAINED_BEAMS);
  const constraints: RowConstraints[] = rows.map((r) => r.constraints ?? { phrases: [], joiners: [] });
  const state = await decoder.begin(rows.map((r) => r.ids), B);
  // Finished hypotheses scored as beam.ts scores them; a row is done once none that is live can beat the worst.
  const finished = rows.map(() => new Hypotheses(B, rules.lengthPenalty, false));
  const done = rows.map(() => false);
  // Row r's beams are state rows r*B .. r*B+B-1; only the first is live at the start.
  let live: (Live | undefined)[] = rows.flatMap((_, r) => Array.from({ length: B }, (_, k) => (k === 0 ? { score: 0, tokens: [], state: initialState(constraints[r]!) } : undefined)));
  let tokens = new Array<number>(rows.length * B).fill(rules.decoderStartId);
  /** State group p (state rows p*B .. p*B+B-1) holds rows[active[p]]. */
  let active = rows.map((_, r) => r);
  const limit = Math.max(...rows.map((r) => r.maxNewTokens));
  let lp = new Float32Array(1);

  for (let step = 0; step < limit && active.some((r) => !done[r]); step++) {
    const logits = await (await decoder.step(state, tokens, LOGITS_ONLY)).logits();
    const vocab = logits.length / (active.length * B);
    if (lp.length !== vocab) lp = new Float32Array(vocab);
    const from: number[] = [];
    const next: (Live | undefined)[] = [];
    active.forEach((r, p) => {
      const row = rows[r]!;
      const park = () => {
        for (let k = 0; k < B; k++) {
          from.push(p * B);
          next.push(undefined);
        }
      };
      if (done[r]) return park();
      const c = constraints[r]!;
      const ctx = rowContext(row, step);
      const forcedByRules = rulesAt(processors, ctx).forced;
      const candidates: Candidate[] = [];
      for (let k = 0; k < B; k++) {
        const g = p * B + k;
        const h = live[g];
        if (!h) continue;
        logSoftmax(logits.subarray(g * vocab, (g + 1) * vocab), lp);
        applyRules(lp, processors, ctx);
        if (forcedByRules === undefined) {
          // Room: tokens left before the last one (which the model's rules force to EOS).
          const rule = ruleFor(c, h.state, h.tokens, row.maxNewTokens - 1 - step, rules.stopIds);
          if (rule.only) {
            const keep = rule.only.map((v) => lp[v]!);
            lp.fill(-Infinity);
            rule.only.forEach((v, i) => (lp[v] = keep[i]!));
          }
          for (const v of rule.ban) lp[v] = -Infinity;
        }
        const offer = (v: number) => {
          const sc = h.score + lp[v]!;
          if (!(sc > -Infinity)) return;
          const st = advance(c, h.state, v);
          candidates.push({ score: sc, tokens: [...h.tokens, v], state: st, from: g, bank: progress(c, st) });
        };
        const picked = new Set(bestTokens(lp, B));
        // Every token that would advance a phrase, whatever its rank (Post & Vilar's "constraint" candidates).
        for (const v of advancing(c, h.state)) picked.add(v);
        for (const v of picked) offer(v);
      }
      candidates.sort((a, b) => b.score - a.score || a.from - b.from || a.tokens[a.tokens.length - 1]! - b.tokens[b.tokens.length - 1]!);
      // EOS: a finished hypothesis when it ranks among the best B (as beam.ts takes it); allowed only once all is out.
      const growing: Candidate[] = [];
      candidates.forEach((cand, rank) => {
        if (rules.stopIds.includes(cand.tokens[cand.tokens.length - 1]!)) {
          if (rank < B && allMet(live[cand.from]!.state)) finished[r]!.add(cand.score, cand.tokens, cand.tokens.length);
        } else growing.push(cand);
      });
      const chosen = allocate(growing, B);
      chosen.forEach((cand) => {
        from.push(cand.from);
        next.push(cand);
      });
      for (let k = chosen.length; k < B; k++) {
        from.push(p * B);
        next.push(undefined);
      }
      const curLen = step + 1;
      if (chosen.length === 0 || finished[r]!.isDone(chosen[0]!.score, curLen)) done[r] = true;
      else if (curLen >= row.maxNewTokens) {
        // Out of length: the live hypotheses that hold every phrase compete as they are (beam.ts does the same).
        for (const cand of chosen) if (allMet(cand.state)) finished[r]!.add(cand.score, cand.tokens, cand.tokens.length);
        done[r] = true;
      }
    });
    decoder.reorder(state, from);
    live = next;
    tokens = next.map((h) => (h ? h.tokens[h.tokens.length - 1]! : rules.padId));
    // Finished rows leave the batch once a quarter of it has finished (beam.ts does the same): they stop costing steps.
    const finishedNow = active.filter((r) => done[r]).length;
    if (finishedNow > 0 && finishedNow * DROP_FINISHED_SHARE >= active.length && finishedNow < active.length) {
      const groups = active.map((_, p) => p).filter((p) => !done[active[p]!]);
      const keep = groups.flatMap((p) => Array.from({ length: B }, (_, k) => p * B + k));
      decoder.select(state, keep);
      active = groups.map((p) => active[p]!);
      live = keep.map((g) => live[g]);
      tokens = keep.map((g) => tokens[g]!);
    }
  }
  return finished.map((f) => f.ranked().slice(0, nBest));
};

/** The `n` best token ids of a row of scores (ties to the lower id). */
function bestTokens(scores: Float32Array, n: number): number[] {
  const top: number[] = [];
  for (let v = 0; v < scores.length; v++) {
    const s = scores[v]!;
    if (!(s > -Infinity)) continue;
    if (top.length === n && !(s > scores[top[n - 1]!]!)) continue;
    let i = Math.min(top.length, n - 1);
    top[i] = v;
    while (i > 0 && s > scores[top[i - 1]!]!) {
      [top[i], top[i - 1]] = [top[i - 1]!, top[i]!];
      i--;
    }
  }
  return top;
}

/** The tokens that would advance a phrase from this state: the open phrase's next, else any unmet phrase's first. */
function advancing(c: RowConstraints, s: ConstraintState): number[] {
  if (s.open) return s.open.phrases.map((p) => c.phrases[p]![s.open!.pos]!);
  return c.phrases.filter((_, i) => !s.met[i]).map((p) => p[0]!);
}

/**
 * Dynamic beam allocation: `size` candidates (best first in, best first out), taken in turns from the banks of equal
 * progress, the most advanced bank first, each bank giving its best not yet taken; a bank that runs out gives its
 * turns to the others. Candidates with the same tokens from the same hypothesis are one.
 */
function allocate(sorted: readonly Candidate[], size: number): Candidate[] {
  const banks = new Map<number, Candidate[]>();
  const seen = new Set<string>();
  for (const cand of sorted) {
    const key = `${cand.from}:${cand.tokens[cand.tokens.length - 1]}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const bank = banks.get(cand.bank) ?? [];
    bank.push(cand);
    banks.set(cand.bank, bank);
  }
  const order = [...banks.keys()].sort((a, b) => b - a);
  const chosen: Candidate[] = [];
  for (let turn = 0; chosen.length < size; turn++) {
    let any = false;
    for (const b of order) {
      const cand = banks.get(b)![turn];
      if (!cand) continue;
      any = true;
      chosen.push(cand);
      if (chosen.length === size) break;
    }
    if (!any) break;
  }
  return chosen.sort((a, b) => b.score - a.score);
}
