// Entry point of src/detect: createDetector() loads the committed model (offline, no ../shared) once per process,
// and fastText lid.176 (from its npm package) when the second opinion on short text is wanted.
import { readFile } from 'node:fs/promises';
import { Classifier, SHORT_TEXT } from './classify.ts';
import { Detector } from './detector.ts';
import { loadFastText } from './external.ts';
import { LidModel } from './model.ts';
import { charClasses } from './script.ts';
import { SecondOpinion } from './second-opinion.ts';
import type { LanguageDetector } from './types.ts';

export type { Detection, LanguageDetector } from './types.ts';

export const MODEL_URL = new URL('./model/lid.bin.gz', import.meta.url);

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

const sharedClassifier = shared(async () => {
  const model = LidModel.decode(await readFile(MODEL_URL));
  charClasses(); // build the script table now, not on the first request
  return new Classifier(model);
});

const sharedSecondOpinion = shared(async () => {
  const [classifier, fastText] = await Promise.all([sharedClassifier(), loadFastText()]);
  const { header } = classifier.model;
  return new SecondOpinion(fastText, header.classes, SHORT_TEXT.features, header.tau);
});

/** A detector over the shared, lazily loaded models (~0.5 s the first time, +0.2 s and ~20 MB for fastText). */
export async function createDetector(options: DetectorOptions = {}): Promise<LanguageDetector> {
  const [classifier, opinion] = await Promise.all([
    sharedClassifier(),
    options.secondOpinion === false ? undefined : sharedSecondOpinion(),
  ]);
  return new Detector(classifier, opinion);
}
