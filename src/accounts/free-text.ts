// Text that callers type about a key (its name, a contact email) is stored and later printed in an operator's
// terminal (`dragoman keys list`). Control characters would act there: ESC starts a terminal sequence (retitle
// the window, move the cursor, rewrite a row), BEL rings, a newline forges a row of the listing, and the
// bidirectional controls (U+202E...) reorder what is shown. None has a place in a name, so each is refused where
// a key is made (POST /v1/signup, `dragoman keys create`), and the CLI escapes them in rows stored before.
import { InvalidFreeText } from './errors.ts';

/**
 * C0 controls (newline, tab, ESC, BEL, NUL...), DEL, C1 controls (U+009B is a one-byte CSI to some terminals),
 * the line and paragraph separators, and the bidirectional marks, embeddings, overrides and isolates.
 */
export const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `\uXXXX` for a character, as JSON writes an escape. */
export function escapeOf(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The first unsafe character of `value` as U+XXXX, or undefined when it has none. */
export function unsafeCharacter(value: string): string | undefined {
  const m = new RegExp(UNSAFE_CHARACTERS.source).exec(value);
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}

/** Throws InvalidFreeText (a 400 on every surface) when a caller's free text holds an unsafe character. */
export function checkFreeText(field: string, value: string | null | undefined): void {
  const found = value == null ? undefined : unsafeCharacter(value);
  if (found === undefined) return;
  throw new InvalidFreeText(
    `Field '${field}' contains the control character ${found}: a ${field} may hold no control characters ` +
      `(C0, DEL, C1), line breaks or bidirectional controls.`,
  );
}
