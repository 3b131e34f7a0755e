// Worker threads start from this plain ES module: a pool worker (worker.ts), or with workerData.entry 'prepare'
// a thread preparing a decoder's graphs (runtime/prepare-thread.ts). From the TypeScript sources (npm start, tests) it
// registers tsx first; in the compiled dist/ the build rewrites the paths to .js and tsx is not needed.
import { workerData } from 'node:worker_threads';

const worker =
  workerData?.entry === 'prepare' ? new URL('../runtime/prepare-thread.ts', import.meta.url) : new URL('./worker.ts', import.meta.url);
if (worker.pathname.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(worker.href);
