// A short-lived thread making the step model's bytes (step-model.ts) and handing them over.
import { parentPort, workerData } from 'node:worker_threads';
import { stepModelBytes, type StepModelRecipe } from './step-model.ts';

const { recipe } = workerData as { recipe: StepModelRecipe };
try {
  const bytes = stepModelBytes(recipe);
  parentPort!.postMessage({ bytes }, [bytes.buffer as ArrayBuffer]);
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
