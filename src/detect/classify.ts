// Text -> posterior over the catalog varieties its script allows, with the model of model.ts.
import { forEachFeature } from './features.ts';
import { HanCheck } from './han.ts';
import { LetterCheck } from './letters.ts';
import { DistinctFeatures, evidenceShare } from './repetition.ts';
import { DEFAULT_SPEAKERS, POPULARITY_EXPONENT, SPEAKERS_MILLIONS } from './popularity.ts';
import { PRIOR_ODDS } from './priors.ts';
import type { LidModel } from './model.ts';
import { LOW_ORDER_SCRIPTS, possibleScripts, scriptProfile } from './script.ts';

export interface Ranking {
  /** Candidate class indices (model.header.classes), best first (at most `limit` of them). */
  classes: number[];
  /** Posterior probability of each, same order (over all candidates, so they may sum to less than 1). */
  probabilities: number[];
  /** Total log-likelihood minus the best one's (0 for the first), same order: for calibration. */
  deltas: number[];
  /** Letters in the text (all of them, even when scoring stopped early). */
  letters: number;
  /** Features scored (fewer than the text has when scoring stopped early): how short the text is to the model. */
  features: number;
  /** Scoring stopped before the end of the text: the runner-up was already below e^-STOP_MARGIN. */
  decided: boolean;
}

/** Scoring stops once the runner-up's posterior is below e^-STOP_MARGIN: more text cannot change the answer. */
const STOP_MARGIN = 12;
const CHECK_EVERY = 32;

/** How the prior changes with length (see ShortTextPrior). */
export interface ShortTextOptions {
  /** Below this many features the popularity prior takes over from the learned biases, linearly. */
  features: number;
  /** Prior odds of two varieties = (speakers ratio) ^ exponent (popularity.ts). */
  exponent: number;
}

// The learned class biases were fitted on whole FLORES sentences, where they only tip close calls; on a word or two
// they decide alone, and they favour small varieties (Bambara, Dyula) the fine-tuning pushed up. So the bias used is
//   (1 - s) * learned + s * log popularity,  s = max(0, 1 - features / SHORT_FEATURES):
// a one-word text (~12 features) is ruled mostly by how widely each variety is written, a FLORES sentence (~250
// features) not at all. 150 and 0.5 were chosen on a small grid (exponent 0 / 0.3 / 0.5 / 0.7 / 1, features 80 /
// 150 / 250) scored on test/detect/short-text.tsv and FLORES train lines cut to 1-5 words: 0.5 is best on the
// major languages; 0.3 costs the small varieties less on cut sentences (src/detect/README.md has the numbers).
export const SHORT_TEXT: ShortTextOptions = { features: 150, exponent: POPULARITY_EXPONENT };

// What one letter of the text that a variety never writes (letters.ts) costs it, in nats of log-probability (the
// calibrated scale of the confidence). 3 and 8 measured the same (phrases 83.2% -> 84.9%, cut dev sentences
// 76.9% -> 77.8% macro, whole sentences unchanged); the smaller one leaves more room for a foreign name.
export const LETTER_PENALTY = 3;

export class Classifier {
  private readonly byScript = new Map<string, number[]>();
  private readonly scores: Float64Array;
  private readonly totals: Float64Array;
  private readonly han: HanCheck | undefined;
  private readonly letterCheck: LetterCheck | undefined;
  /** Per class: letters of the current text its inventory lacks. */
  private readonly missing: Float64Array;
  private readonly taken: Uint8Array;
  private readonly distinct = new DistinctFeatures();
  /** The model's class biases plus the log prior odds, in the model's score units (divided by its tau). */
  private readonly bias: Float64Array;
  /** Log popularity (plus the prior odds), same units: the bias of a text with no features. */
  private readonly popular: Float64Array;
  private readonly hanCandidates: Record<'yue' | 'Hans' | 'Hant', number[]>;

  constructor(
    readonly model: LidModel,
    readonly short: ShortTextOptions = SHORT_TEXT,
  ) {
    this.han = model.header.han ? new HanCheck(model.header.han) : undefined;
    this.letterCheck = model.header.letters ? new LetterCheck(model.header.classes, model.header.letters) : undefined;
    this.missing = new Float64Array(model.classCount);
    this.taken = new Uint8Array(model.classCount);
    this.bias = Float64Array.from(
      model.header.classes,
      (flores, i) => model.header.bias[i]! + Math.log(PRIOR_ODDS[flores] ?? 1) / model.header.tau,
    );
    this.popular = Float64Array.from(
      model.header.classes,
      (flores) =>
        (short.exponent * Math.log(SPEAKERS_MILLIONS[flores] ?? DEFAULT_SPEAKERS) + Math.log(PRIOR_ODDS[flores] ?? 1)) /
        model.header.tau,
    );
    const index = (flores: string): number => model.header.classes.indexOf(flores);
    this.hanCandidates = {
      yue: [index('yue_Hant')],
      Hans: [index('zho_Hans'), index('jpn_Jpan')],
      Hant: [index('zho_Hant'), index('yue_Hant'), index('jpn_Jpan')],
    };
    model.header.classes.forEach((flores, i) => {
      const script = flores.slice(flores.indexOf('_') + 1);
      this.byScript.set(script, [...(this.byScript.get(script) ?? []), i]);
    });
    this.scores = new Float64Array(model.classCount);
    this.totals = new Float64Array(model.classCount);
  }

  /** Class indices of the model that write `script` (a FLORES script subtag). */
  classesOfScript(script: string): readonly number[] {
    return this.byScript.get(script) ?? [];
  }

  /**
   * Ranks the varieties possible for `text` (the best `limit`); undefined when it has no letters of a catalog
   * script. A script only one variety writes is answered without scoring.
   */
  rank(text: string, tau = this.model.header.tau, limit = Infinity): Ranking | undefined {
    const profile = scriptProfile(text);
    const counts = profile.letters;
    const scripts = possibleScripts(profile);
    let candidates = scripts.length === 1 ? this.classesOfScript(scripts[0]!) : scripts.flatMap((s) => this.classesOfScript(s));
    if (scripts.length > 1 && this.han) {
      // Han without kana: simplified-only / traditional-only / Cantonese characters narrow it down.
      const verdict = this.han.verdict(text);
      if (verdict) candidates = this.hanCandidates[verdict].filter((c) => c >= 0);
    }
    if (candidates.length === 0) return undefined;
    let letters = 0;
    for (let i = 1; i < counts.length; i++) letters += counts[i]!;
    if (candidates.length === 1) return { classes: [candidates[0]!], probabilities: [1], deltas: [0], letters, features: 0, decided: true };

    const model = this.model;
    const { unseen } = model.header;
    const { bias, popular } = this;
    const shortFeatures = this.short.features;
    const stopTau = model.header.tau; // the model's own calibration, whatever tau the caller asks for
    const { scores, totals, missing } = this;
    scores.fill(0);
    if (this.letterCheck) this.letterCheck.count(text, candidates, missing);
    else missing.fill(0);
    const letterPenalty = LETTER_PENALTY / stopTau;
    let features = 0;
    const sum = (): number => {
      let best = -Infinity;
      const s = Math.max(0, 1 - features / shortFeatures);
      for (const c of candidates) {
        const t = scores[c]! + features * unseen[c]! + (1 - s) * bias[c]! + s * popular[c]! - letterPenalty * missing[c]!;
        totals[c] = t;
        if (t > best) best = t;
      }
      return best;
    };
    let decided = false;
    const distinct = this.distinct;
    distinct.reset();
    forEachFeature(text, scripts.some((s) => LOW_ORDER_SCRIPTS.has(s)) ? 1 : 3, (hash) => {
      if (!model.addFeature(hash, scores)) return false;
      distinct.add(hash);
      if (++features % CHECK_EVERY !== 0) return false;
      const best = sum();
      let second = -Infinity;
      for (const c of candidates) if (totals[c]! < best && totals[c]! > second) second = totals[c]!;
      decided = stopTau * (best - second) > STOP_MARGIN;
      return decided;
    });
    const best = sum();
    // Repetition adds no evidence (repetition.ts): the ranking stays, the confidence follows the distinct features.
    const scale = tau * evidenceShare(distinct.count, features);
    let norm = 0;
    for (const c of candidates) norm += Math.exp(scale * (totals[c]! - best));
    // Best `limit` candidates by selection (limit is small; candidates up to ~140). `taken` is class-indexed and
    // cleared again below: a Set here cost more than the scoring of a short text.
    const picked: number[] = [];
    const n = Math.min(limit, candidates.length);
    const taken = this.taken;
    for (let k = 0; k < n; k++) {
      let top = -1;
      for (const c of candidates) if (taken[c] === 0 && (top < 0 || totals[c]! > totals[top]!)) top = c;
      taken[top] = 1;
      picked.push(top);
    }
    for (const c of picked) taken[c] = 0;
    const deltas = picked.map((c) => totals[c]! - best);
    return { classes: picked, probabilities: deltas.map((d) => Math.exp(scale * d) / norm), deltas, letters, features, decided };
  }
}
