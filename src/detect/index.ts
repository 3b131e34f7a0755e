// Entry point of src/detect: createDetector() loads the committed model (offline, no ../shared) once per process.
import { readFile } from 'node:fs/promises';
import { Classifier } from './classify.ts';
import { Detector } from './detector.ts';
import { LidModel } from './model.ts';
import { charClasses } from './script.ts';
import type { LanguageDetector } from './types.ts';

export type { Detection, LanguageDetector } from './types.ts';

export const MODEL_URL = new URL('./model/lid.bin.gz', import.meta.url);

let classifier: Promise<Classifier> | undefined;

async function loadClassifier(): Promise<Classifier> {
  const model = LidModel.decode(await readFile(MODEL_URL));
  charClasses(); // build the script table now, not on the first request
  return new Classifier(model);
}

/** A detector over the shared, lazily loaded model (~0.5 s the first time). */
export async function createDetector(): Promise<LanguageDetector> {
  classifier ??= loadClassifier().catch((err: unknown) => {
    classifier = undefined;
    throw err;
  });
  return new Detector(await classifier);
}
