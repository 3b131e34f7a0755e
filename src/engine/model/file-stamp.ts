// Identity of a model file as it was read at start. Workers read the .onnx files again later (a replacement for a
// worker that died, a step model remade for DRAGOMAN_SPINNING=auto); a file replaced in the meantime (`models pull
// --force` into a served folder) is another model, which would run beside the old tokenizer and encoder: refused.
import { statSync } from 'node:fs';

/** Device, inode, size and modification time: the same for as long as nobody rewrites or replaces the file. */
export function fileStamp(path: string): string {
  const st = statSync(path);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
}

/** Throws, naming the file, when it is no longer the one stamped. */
export function assertUnchanged(path: string, stamp: string): void {
  let now: string | undefined;
  try {
    now = fileStamp(path);
  } catch {
    now = undefined;
  }
  if (now !== stamp) {
    throw new Error(`${path}: ${now === undefined ? 'gone' : 'changed'} since the server started; restart it to serve the files now there`);
  }
}
