// The output is the input with some ranges replaced: every byte outside a replaced text or attribute
// value (tags, comments, doctype, entities, whitespace, skipped elements) is copied from the source.

export interface Replacement {
  /** Source range [start, end); start === end inserts. */
  start: number;
  end: number;
  /** Already escaped for its context. */
  html: string;
}

export function splice(source: string, replacements: readonly Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let cursor = 0;
  for (const r of sorted) {
    if (r.start < cursor) throw new Error('html: overlapping replacements');
    out += source.slice(cursor, r.start) + r.html;
    cursor = r.end;
  }
  return out + source.slice(cursor);
}
