// Dragoman's language detector: script check + the naive-Bayes model, with calibrated confidence.
import { languageByFlores } from '../languages/catalog.ts';
import type { Classifier } from './classify.ts';
import { isUnaccentedLatin } from './diacritics.ts';
import type { SecondOpinion } from './second-opinion.ts';
import { plainLetters } from './styled-letters.ts';
import type { Detection, LanguageDetector } from './types.ts';

/** Longer texts are classified on their beginning: accuracy is flat long before this, cost is not. */
export const MAX_DETECT_CHARS = 2000;
const MAX_CANDIDATES = 5;
/** Candidates the second opinion may reorder (its pick is rarely below our tenth; the rest carry ~0 probability). */
const REVISED_CANDIDATES = 24;
/** isReliable rule: the calibrated confidence of the best variety is at least this. */
export const RELIABLE_CONFIDENCE = 0.8;

const UND: Detection = Object.freeze({ language: 'und', confidence: 0, isReliable: false, candidates: [] }) as Detection;

const round = (p: number): number => Math.round(p * 10_000) / 10_000;

/**
 * Latin, Greek or Cyrillic written decomposed (e + U+0301…, as macOS file names and some keyboards send it) as the
 * composed letters the training text has. Only then: NFC also rewrites Indic nukta letters (U+0958…, composition
 * exclusions) that the training text keeps precomposed (measured: kas_Deva 91 → 84 % with NFC on everything).
 */
function composed(text: string): string {
  return /[\u0300-\u036f]/.test(text) ? text.normalize('NFC') : text;
}

/** One model and, optionally, fastText's opinion on short text over the same classes. */
export interface Reader {
  classifier: Classifier;
  /** fastText's opinion on short text (second-opinion.ts); without it the model alone decides. */
  secondOpinion?: SecondOpinion;
}

export class Detector implements LanguageDetector {
  private readonly codes: string[];

  constructor(
    private readonly main: Reader,
    /**
     * Read Latin-script text that carries no diacritic at all with this model instead (trained with stripped copies
     * of its Latin lines, diacritics.ts): "Dnes je krasne pocasi" is how many people type Czech. Text with even one
     * accented letter keeps the main model, which that letter is evidence for.
     */
    private readonly unaccented?: Reader,
  ) {
    const classes = main.classifier.model.header.classes;
    if (unaccented && unaccented.classifier.model.header.classes.join() !== classes.join()) {
      throw new Error('the unaccented LID model has other classes than the main one');
    }
    this.codes = classes.map((flores) => {
      const lang = languageByFlores(flores);
      if (!lang) throw new Error(`LID model class ${flores} is not in the catalog`);
      return lang.code;
    });
  }

  languages(): ReadonlySet<string> {
    return (this.known ??= new Set(this.codes));
  }

  private known?: ReadonlySet<string>;

  detect(text: string): Detection {
    const input = plainLetters(composed(text.length > MAX_DETECT_CHARS ? text.slice(0, MAX_DETECT_CHARS) : text));
    const { classifier, secondOpinion } = this.unaccented && isUnaccentedLatin(input) ? this.unaccented : this.main;
    let ranking = classifier.rank(input, undefined, secondOpinion ? REVISED_CANDIDATES : MAX_CANDIDATES);
    if (!ranking) return { ...UND, candidates: [] };
    if (secondOpinion) ranking = secondOpinion.revise(input, ranking);
    let probabilities = ranking.probabilities;
    if (ranking.classes.length === 1) {
      // Only one catalog variety writes this script: certain for real text, less so for a letter or two
      // (which may be a symbol, a name, or a language outside the catalog).
      probabilities = [1 - 2 ** (-ranking.letters / 2)];
    }
    const candidates: Detection['candidates'] = [];
    for (let i = 0; i < ranking.classes.length && candidates.length < MAX_CANDIDATES; i++) {
      const confidence = round(probabilities[i]!);
      if (i > 0 && confidence === 0) break;
      candidates.push({ language: this.codes[ranking.classes[i]!]!, confidence });
    }
    const best = candidates[0]!;
    return {
      language: best.language,
      confidence: best.confidence,
      isReliable: best.confidence >= RELIABLE_CONFIDENCE,
      candidates,
    };
  }
}
