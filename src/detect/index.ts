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

let classifier: Promise<Classifier> | undefined;
let secondOpinion: Promise<SecondOpinion> | undefined;

async function loadClassifier(): Promise<Classifier> {
  const model = LidModel.decode(await readFile(MODEL_URL));
  charClasses(); // build the script table now, not on the first request
  return new Classifier(model);
}

async function loadSecondOpinion(): Promise<SecondOpinion> {
  const [model, fastText] = await Promise.all([once('classifier'), loadFastText()]);
  return new SecondOpinion(fastText, model.model.header.classes, SHORT_TEXT.features, model.model.header.tau);
}

/** Loads what is shared once per process; a failed load is retried by the next call. */
function once(what: 'classifier'): Promise<Classifier>;
function once(what: 'secondOpinion'): Promise<SecondOpinion>;
function once(what: 'classifier' | 'secondOpinion'): Promise<Classifier | SecondOpinion> {
  if (what === 'classifier') {
    return (classifier ??= loadClassifier().catch((err: unknown) => {
      classifier = undefined;
      throw err;
    }));
  }
  return (secondOpinion ??= loadSecondOpinion().catch((err: unknown) => {
    secondOpinion = undefined;
    throw err;
  }));
}

/** A detector over the shared, lazily loaded models (~0.5 s the first time, +0.2 s and ~20 MB for fastText). */
export async function createDetector(options: DetectorOptions = {}): Promise<LanguageDetector> {
  const [model, opinion] = await Promise.all([
    once('classifier'),
    options.secondOpinion === false ? undefined : once('secondOpinion'),
  ]);
  return new Detector(model, opinion);
}
