// The two off-the-shelf WebAssembly detectors (cld3-asm, fastText lid.176 via fasttext.wasm.js), their labels
// mapped to FLORES varieties as ../shared/lid/measure-baselines.mjs does: through the catalog's code resolution,
// with the exceptions below. The benchmark (scripts/bench-detect.ts) compares them with Dragoman's model; fastText's
// distribution is also the detector's second opinion on short text (second-opinion.ts). Both load from files inside
// their npm packages (lid.176.ftz ships in fasttext.wasm.js): nothing is fetched.
import { resolveLanguage } from '../languages/catalog.ts';

export interface ExternalDetector {
  name: string;
  /** Every label the detector can answer. */
  labels: string[];
  /** Raw top-1 label, and whether the detector itself calls it reliable. */
  detect(text: string): { label: string; reliable: boolean };
  /** Label -> FLORES code, or null for labels that name no catalog variety. */
  toFlores(label: string): string | null;
}

const EXCEPTIONS: Record<string, Record<string, string | null>> = {
  // cld3's romanised labels are not the catalog's varieties.
  cld3: { 'zh-Latn': null, 'ja-Latn': null, 'ru-Latn': null, 'bg-Latn': null, 'el-Latn': null, 'hi-Latn': null },
  // lid.176 uses Wikipedia codes: als = Alemannic, sh = Serbo-Croatian, bh = Bhojpuri.
  fasttext: { als: null, sh: null, bh: 'bho_Deva' },
};

function mapper(name: string): (label: string) => string | null {
  const exceptions = EXCEPTIONS[name] ?? {};
  return (label) => (label in exceptions ? exceptions[label]! : (resolveLanguage(label)?.flores ?? null));
}

export async function loadCld3(): Promise<ExternalDetector> {
  const cld = await import('cld3-asm');
  const factory = await cld.loadModule();
  const identifier = factory.create(0, 1000);
  const codes = (cld as unknown as { LanguageCode: Record<string, string> }).LanguageCode;
  return {
    name: 'cld3',
    labels: Object.values(codes).filter((c) => c !== 'und'),
    detect: (text) => {
      const r = identifier.findLanguage(text);
      return { label: r.language, reliable: r.is_reliable };
    },
    toFlores: mapper('cld3'),
  };
}

export interface FastTextDetector extends ExternalDetector {
  /** The `k` most probable labels with their probabilities, best first. */
  top(text: string, k: number): { label: string; probability: number }[];
}

export async function loadFastText(): Promise<FastTextDetector> {
  const ft = await import('fasttext.wasm.js');
  const lid = await ft.getLIDModel();
  const model = await lid.load();
  const labelVector = model.getLabels()[0] as unknown as { size(): number; get(i: number): string };
  const labels: string[] = [];
  for (let i = 0; i < labelVector.size(); i++) labels.push(labelVector.get(i).replace('__label__', ''));
  const top = (text: string, k: number): { label: string; probability: number }[] => {
    // fastText reads one line: a newline would end the input early.
    const found = model.predict(text.replace(/\n/g, ' '), k, 0) as unknown as {
      size(): number;
      get(i: number): [number, string];
      delete(): void;
    };
    try {
      const out: { label: string; probability: number }[] = [];
      for (let i = 0; i < found.size(); i++) {
        const [probability, label] = found.get(i);
        out.push({ label: label.replace('__label__', ''), probability });
      }
      return out;
    } finally {
      // A C++ vector in the WebAssembly heap: not freed by JS garbage collection (~1 KB leaked per call without).
      found.delete();
    }
  };
  return {
    name: 'fasttext',
    labels,
    detect: (text) => {
      const best = top(text, 1)[0];
      if (!best) return { label: 'und', reliable: false };
      // lid.176 has no reliability flag; its probability is used with the same 0.5 as fastText's examples.
      return { label: best.label, reliable: best.probability >= 0.5 };
    },
    top,
    toFlores: mapper('fasttext'),
  };
}
