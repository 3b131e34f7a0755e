// Entry point of src/detect: createDetector() loads the committed models (offline, no ../shared) once per process —
// the main one and the one for text typed without diacritics — and fastText lid.176 (from its npm package) when the
// second opinion on short text is wanted.
import { readFile } from 'node:fs/promises';
import { Classifier, SHORT_TEXT } from './classify.ts';
import { Detector, type Reader } from './detector.ts';
import { loadFastText } from './external.ts';
import { LidModel } from './model.ts';
import { charClasses } from './script.ts';
import { SecondOpinion } from './second-opinion.ts';
import type { LanguageDetector } from './types.ts';

export type { Detection, LanguageDetector } from './types.ts';

export const MODEL_URL = new URL('./model/lid.bin.gz', import.meta.url);
export const UNACCENTED_MODEL_URL = new URL('./model/lid-unaccented.bin.gz', import.meta.url);

export interface DetectorOptions {
  /** Combine fastText lid.176's answer with the model's on short text (default true; DRAGOMAN_DETECT_SECOND_OPINION). */
  secondOpinion?: boolean;
}

/** Memoises a load once per process; a failed load is retried by the next call. */
function shared<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    }));
}

const classifierOf = (url: URL) =>
  shared(async () => {
    const model = LidModel.decode(await readFile(url));
    charClasses(); // build the script table now, not on the first request
    return new Classifier(model);
  });
const sharedClassifiers = { main: classifierOf(MODEL_URL), unaccented: classifierOf(UNACCENTED_MODEL_URL) };

// One fastText for both models' second opinions.
const sharedFastText = shared(loadFastText);
const secondOpinionOf = (classifier: () => Promise<Classifier>) =>
  shared(async () => {
    const [c, fastText] = await Promise.all([classifier(), sharedFastText()]);
    const { header } = c.model;
    return new SecondOpinion(fastText, header.classes, SHORT_TEXT.features, header.tau);
  });
const sharedSecondOpinions = {
  main: secondOpinionOf(sharedClassifiers.main),
  unaccented: secondOpinionOf(sharedClassifiers.unaccented),
};

async function reader(which: 'main' | 'unaccented', secondOpinion: boolean): Promise<Reader> {
  const [classifier, opinion] = await Promise.all([
    sharedClassifiers[which](),
    secondOpinion ? sharedSecondOpinions[which]() : undefined,
  ]);
  return opinion ? { classifier, secondOpinion: opinion } : { classifier };
}

/**
 * A detector over the shared, lazily loaded models (both of ours: ~0.45 s and ~105 MB the first time; fastText:
 * +0.2 s and ~20 MB).
 */
export async function createDetector(options: DetectorOptions = {}): Promise<LanguageDetector> {
  const withOpinion = options.secondOpinion !== false;
  const [main, unaccented] = await Promise.all([reader('main', withOpinion), reader('unaccented', withOpinion)]);
  return new Detector(main, unaccented);
}
