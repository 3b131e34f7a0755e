// The PDF worker thread starts from this plain ES module. From the TypeScript sources (npm start, tests) it
// registers tsx first; in the compiled dist/ the build rewrites the path to .js and tsx is not needed.
const worker = new URL('./worker.ts', import.meta.url);
if (worker.pathname.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(worker.href);
