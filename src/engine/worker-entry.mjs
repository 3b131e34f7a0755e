// Worker threads start from this plain ES module: it registers tsx (the code runs from TypeScript sources, as
// `npm start` does) and then loads the real worker.
import { register } from 'tsx/esm/api';

register();
await import(new URL('./worker.ts', import.meta.url).href);
