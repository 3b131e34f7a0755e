// fastText lid.176's distribution as a second opinion on short text. Our model learned from FLORES news sentences,
// which never say "ciao", "tusen takk" or "Kannst du mir helfen?"; lid.176 was trained on Wikipedia, Tatoeba and
// SETimes, everyday sentences included. On a short text the two are pooled log-linearly:
//   log p(c) = (log p_ours(c) + w · log q(c)) / (1 + w) + const,   w = WEIGHT · s,   s = max(0, 1 − features / 150)
// (s is the same shortness that fades in the popularity prior in classify.ts). The division by 1 + w changes no
// ranking; it keeps the confidence honest, since both opinions come from the same few words (without it, reliable
// answers on the phrases were right 97.5% of the time instead of 98.8%). q(c) is fastText's probability of c (its
// labels mapped to catalog varieties, top 20), at least FLOOR; a variety it knows but did not list gets FLOOR; one it
// cannot answer at all (about half the catalog) gets UNKNOWN, milder, so the small varieties it never learned are
// not pushed out by it alone. When none of the text's words or n-grams are in fastText's vocabulary its answer is its
// answer to the empty string (English 0.125 ...): no opinion, ignored. Long text (s = 0) never consults it: there
// our model is the better one (BENCH.md).
//
// Chosen on test/detect/short-text.tsv and FLORES dev sentences cut to 1-5 words (weights 0.3 / 0.5 / 0.7 / 1,
// floors 1e-3 / 1e-2, unknown 1e-3 / 1e-2 / 0.05): 0.3 / 1e-3 / 0.05 is the one point that gains on the phrases
// (84.9% -> 87.4% with the letter check) without costing the cut sentences of all 204 varieties (77.8% -> 77.2%);
// 0.5 gains 1.6 points more on the phrases and loses 2 on the cut sentences. Checked afterwards on
// test/detect/short-text-heldout.tsv, never used to choose: see src/detect/README.md.
//
// Agreement. Pooled this way, a plain short sentence both models read the same can stay unsure ("The cat is
// looking at the dog." → en 0.74: its few words are also Wolof or Danish n-grams to a model of news text). When
// fastText, which learned from other text, names the same variety with at least AGREE_FASTTEXT, our pooled answer
// is at least AGREE_OURS, and our runner-up is a variety fastText could have named instead (or, if it is one
// fastText never learned — the Arabic dialects beside MSA, where its agreeing says nothing — a weak one), the two
// are taken as two witnesses: the best's probability becomes 1 − (1 − p)(1 − q), the rest scaled down to match.
// Chosen on the phrase files (test/detect/short-text*.tsv) over fastText ≥ 0.5 / 0.7 / 0.8 / 0.9, ours ≥ 0.3 / 0.4 /
// 0.5 / 0.6, unknown runner-up < 0 / 0.05 / 0.1 / 0.15 / 0.2: the point that gains most while its reliable answers
// stay right about as often as without the rule (98.70% vs 98.77%). Measured on FLORES dev sentences cut to 5–10 words in
// src/detect/BENCH.md ("Plain short sentences"); FLORES devtest is not in ../shared/lid.
import type { FastTextDetector } from './external.ts';
import type { Ranking } from './classify.ts';

type Label = ReturnType<FastTextDetector['top']>[number];

const WEIGHT = 0.3;
const FLOOR = 1e-3;
const UNKNOWN = 0.05;
const TOP_LABELS = 20;
const AGREE_FASTTEXT = 0.9;
const AGREE_OURS = 0.6;
/** A runner-up fastText never learned blocks the agreement unless its probability is below this. */
const AGREE_UNKNOWN_RUNNER_UP = 0.1;
// lid.176 labels that name a language the catalog splits into varieties: its probability counts for each of them
// (the script check and our model tell them apart). `zh` is Chinese in either script; `sh` is Serbo-Croatian
// (Wikipedia's), written in Latin as Croatian and Bosnian are.
const SHARED_LABELS: Readonly<Record<string, string[]>> = {
  zh: ['zho_Hans', 'zho_Hant'],
  sh: ['hrv_Latn', 'bos_Latn'],
};

export class SecondOpinion {
  /** The catalog varieties (FLORES codes) fastText can answer. */
  private readonly knows = new Set<string>();
  /** fastText label -> the catalog varieties its probability speaks for. */
  private readonly covers = new Map<string, string[]>();
  /** fastText's answer when it recognises nothing (computed from the empty string). */
  private readonly noEvidence: Label[];

  constructor(
    private readonly fastText: FastTextDetector,
    /** Class index -> FLORES code (the model's classes). */
    private readonly classes: readonly string[],
    /** Below this many features a text is short (classify.ts SHORT_TEXT.features). */
    private readonly shortFeatures: number,
    /** The model's calibration (header.tau): log-probabilities divided by it are score units, as Ranking.deltas. */
    private readonly tau: number,
  ) {
    this.noEvidence = fastText.top('', TOP_LABELS);
    for (const label of fastText.labels) {
      const varieties = SHARED_LABELS[label] ?? [fastText.toFlores(label)].filter((f): f is string => f !== null);
      this.covers.set(label, varieties);
      for (const flores of varieties) this.knows.add(flores);
    }
  }

  /** The ranking revised by fastText when the text is short; the same object when it is not. */
  revise(text: string, ranking: Ranking): Ranking {
    const s = Math.max(0, 1 - ranking.features / this.shortFeatures);
    // A decided ranking stopped scoring with the runner-up below e^-12, far beyond what w · log(1 / FLOOR) (~2 nats)
    // can move; and its feature count is where scoring stopped, not the text's length.
    if (s === 0 || ranking.decided || ranking.classes.length < 2) return ranking;
    const opinion = this.fastText.top(text, TOP_LABELS);
    if (sameAnswer(opinion, this.noEvidence)) return ranking;
    const w = WEIGHT * s;
    const q = new Map<string, number>();
    for (const { label, probability } of opinion) {
      for (const flores of this.covers.get(label) ?? []) q.set(flores, (q.get(flores) ?? 0) + probability);
    }
    const scores = ranking.classes.map((c, i) => {
      const flores = this.classes[c]!;
      const p = q.get(flores) ?? (this.knows.has(flores) ? FLOOR : UNKNOWN);
      return (Math.log(Math.max(ranking.probabilities[i]!, Number.MIN_VALUE)) + w * Math.log(Math.max(p, FLOOR))) / (1 + w);
    });
    const order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
    const best = scores[order[0]!]!;
    let norm = 0;
    for (const v of scores) norm += Math.exp(v - best);
    const classes = order.map((i) => ranking.classes[i]!);
    return {
      ...ranking,
      classes,
      probabilities: this.agreed(classes, order.map((i) => Math.exp(scores[i]! - best) / norm), opinion[0]),
      deltas: order.map((i) => (scores[i]! - best) / this.tau),
    };
  }

  /** The probabilities, the best one raised when fastText names it too (see "Agreement" above). */
  private agreed(classes: readonly number[], probabilities: number[], top: Label | undefined): number[] {
    const p = probabilities[0]!;
    const first = this.classes[classes[0]!]!;
    const second = classes[1] === undefined ? undefined : this.classes[classes[1]]!;
    if (!top || top.probability < AGREE_FASTTEXT || p < AGREE_OURS || p >= 1) return probabilities;
    if (!(this.covers.get(top.label) ?? []).includes(first)) return probabilities;
    if (second !== undefined && !this.knows.has(second) && probabilities[1]! >= AGREE_UNKNOWN_RUNNER_UP) return probabilities;
    const raised = 1 - (1 - p) * (1 - top.probability);
    const rest = (1 - raised) / (1 - p);
    return probabilities.map((q, i) => (i === 0 ? raised : q * rest));
  }
}

function sameAnswer(a: readonly Label[], b: readonly Label[]): boolean {
  return a.length === b.length && a.every((x, i) => x.label === b[i]!.label && x.probability === b[i]!.probability);
}
