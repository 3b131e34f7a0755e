// Han text: which of zho_Hans, zho_Hant, yue_Hant are possible. A finer script check than script.ts can make,
// because Unicode gives simplified and traditional characters the same script (Han).
// - Characters seen only in simplified training text, or only in traditional, decide Hans vs Hant when the text
//   has some of one kind and none of the other (sets computed by the trainer from FLORES, stored in the model).
// - Colloquial Cantonese characters (FLORES's yue_Hant is formal written Chinese and has none of them) make a
//   text Cantonese: they are not used in Mandarin writing.
import { charClasses, SCRIPTS } from './script.ts';

const HANI = SCRIPTS.indexOf('Hani') + 2;

/** Written-Cantonese characters with no Mandarin use; two or more make a Han text yue. */
export const CANTONESE_MARKERS = new Set([...'佢哋唔喺嘅咗嚟啲冇嘢乜嗰咩噉嘥攞揾搵瞓啱諗冚嬲睇咁畀']);
const MIN_CANTONESE_MARKERS = 2;

export interface HanSets {
  /** Han characters seen (at least twice) in zho_Hans training text and never in zho_Hant or yue_Hant. */
  Hans: string;
  /** ... in zho_Hant or yue_Hant and never in zho_Hans. */
  Hant: string;
}

/** Builds HanSets from the training lines of the simplified and the traditional varieties. */
export function hanSets(simplified: readonly string[], traditional: readonly string[]): HanSets {
  const count = (lines: readonly string[]): Map<string, number> => {
    const table = charClasses();
    const counts = new Map<string, number>();
    for (const line of lines) for (const ch of line) if (table[ch.codePointAt(0)!] === HANI) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    return counts;
  };
  const s = count(simplified);
  const t = count(traditional);
  const only = (a: Map<string, number>, b: Map<string, number>): string =>
    [...a].filter(([ch, n]) => n >= 2 && !b.has(ch)).map(([ch]) => ch).sort().join('');
  return { Hans: only(s, t), Hant: only(t, s) };
}

export type HanVerdict = 'yue' | 'Hans' | 'Hant' | undefined;

export class HanCheck {
  private readonly hans: Set<string>;
  private readonly hant: Set<string>;

  constructor(sets: HanSets) {
    this.hans = new Set(sets.Hans);
    this.hant = new Set(sets.Hant);
  }

  /** What the characters alone say about a Han text; undefined when they do not decide. */
  verdict(text: string): HanVerdict {
    let markers = 0;
    let simplified = 0;
    let traditional = 0;
    for (const ch of text) {
      if (CANTONESE_MARKERS.has(ch)) markers++;
      if (this.hans.has(ch)) simplified++;
      else if (this.hant.has(ch)) traditional++;
    }
    if (markers >= MIN_CANTONESE_MARKERS && simplified === 0) return 'yue';
    if (simplified > 0 && traditional === 0) return 'Hans';
    if (traditional > 0 && simplified === 0) return 'Hant';
    return undefined;
  }
}
