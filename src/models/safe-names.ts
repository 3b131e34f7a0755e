// Archives and hub listings are untrusted: a name must never escape the models directory.

/** A model folder name: one path segment, not hidden (dot folders are our staging areas). */
export function isSafeModelName(name: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.@+-]*$/.test(name) && name.length <= 100 && !name.includes('..');
}

/** A file path inside a model folder: relative, forward slashes, no `.`/`..`/empty segments. */
export function isSafeRelativePath(path: string): boolean {
  if (path.length === 0 || path.length > 240 || path.startsWith('/') || path.includes('\\') || path.includes('\0')) {
    return false;
  }
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}
