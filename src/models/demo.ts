// The demo models: when DRAGOMAN_MODELS_DIR holds no model at all (a fresh clone's `npm start`), the server serves
// the two small English ↔ German models the repository carries for its tests, labelled as a demo everywhere a
// user looks (/health, /v1/languages, the web page), instead of a server that answers 503 to every translation.
// A folder with any model in it (even one that fails to load) is the operator's: it is never replaced by the demo.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** One pair both ways: the smallest set that translates something and shows the language pickers at work. */
export const DEMO_MODELS = ['tiny-marian-en-de', 'tiny-marian-de-en'] as const;

/** Where a clone keeps them (from src/models and from dist/models alike); absent in the container image. */
export const DEMO_MODELS_SOURCE = resolve(import.meta.dirname, '../../test/fixtures/models');

export const DEMO_INSTALL_HINT = 'install real models with "npx dragoman models pull opus-mt-en-de" (or "models import FILE.tar"), then restart';

/** What the server says of its demo (the `demo` field of /health, /v1/languages and /ui/settings). */
export interface DemoInfo {
  models: string[];
  note: string;
}

export const demoInfo = (): DemoInfo => ({
  models: [...DEMO_MODELS],
  note: `Demo models: tiny test models that know simple English and German sentences only; ${DEMO_INSTALL_HINT}.`,
});

/** Whether `dir` holds no model folder (absent, empty, or only files such as its README). */
export async function holdsNoModel(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  return !entries.some((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'));
}

/**
 * The folder to serve the demo models from (links in `$DRAGOMAN_DATA_DIR/demo-models` to the repository's copies),
 * or undefined when there is to be no demo: turned off, the models folder holds a model, or the copies are absent.
 */
export async function demoModelsDir(config: { modelsDir: string; dataDir: string; demoModels: 'auto' | 'off' }): Promise<string | undefined> {
  if (config.demoModels === 'off' || !(await holdsNoModel(config.modelsDir))) return undefined;
  if (!DEMO_MODELS.every((m) => existsSync(join(DEMO_MODELS_SOURCE, m)))) return undefined;
  const dir = join(config.dataDir, 'demo-models');
  // Made afresh each start: links left from another checkout's path would point at nothing.
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const m of DEMO_MODELS) await symlink(join(DEMO_MODELS_SOURCE, m), join(dir, m));
  return dir;
}
