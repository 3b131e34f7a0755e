// Glossary entries as clients send them: a JSON list of {source, target}, or text (TSV, DeepL's CSV), checked
// against the limits. Every problem is a 400 naming the line or the entry.
import { invalidRequest } from '../errors/api-error.ts';
import type { GlossaryLimits } from './types.ts';
import { csvCells } from '../text/csv.ts';

export type EntriesFormat = 'tsv' | 'csv';

/** Entries of one dictionary, checked: terms trimmed, not empty, no tab or line break, within the size limit, sources distinct. */
export function parseEntries(value: unknown, format: EntriesFormat, limits: GlossaryLimits, field = 'entries'): [string, string][] {
  let pairs: [unknown, unknown][];
  if (typeof value === 'string') pairs = parseText(value, format, field);
  else if (Array.isArray(value)) {
    pairs = value.map((e, i) => {
      if (!e || typeof e !== 'object' || Array.isArray(e)) throw invalidRequest(`${field}[${i}] must be an object {"source": ..., "target": ...}.`);
      const o = e as Record<string, unknown>;
      return [o.source, o.target];
    });
  } else throw invalidRequest(`Missing or invalid '${field}': a list of {"source", "target"} objects, or tab-separated lines.`);
  const out: [string, string][] = [];
  const seen = new Set<string>();
  pairs.forEach(([s, t], i) => {
    const where = `${field}[${i}]`;
    if (typeof s !== 'string' || typeof t !== 'string') throw invalidRequest(`${where}: source and target must be strings.`);
    const source = s.trim();
    const target = t.trim();
    if (!source || !target) throw invalidRequest(`${where}: source and target must not be empty.`);
    for (const term of [source, target]) {
      if (/[\t\n\r]/.test(term)) throw invalidRequest(`${where}: a term may not contain a tab or a line break.`);
      if ([...term].length > limits.maxTermChars) throw invalidRequest(`${where}: a term may have at most ${limits.maxTermChars} characters (DRAGOMAN_GLOSSARY_MAX_TERM_CHARS).`);
    }
    const key = source.toLowerCase();
    if (seen.has(key)) throw invalidRequest(`${where}: the source term '${source}' is already in this glossary.`);
    seen.add(key);
    out.push([source, target]);
  });
  if (out.length === 0) throw invalidRequest(`'${field}' holds no entry.`);
  return out;
}

function parseText(text: string, format: EntriesFormat, field: string): [string, string][] {
  const lines = text.split(/\r\n|\n|\r/);
  const out: [string, string][] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    // DeepL's CSV may add language columns after the two terms: ignored.
    const cells = format === 'csv' ? csvCells(line) : line.split('\t');
    if (cells.length < 2 || (format === 'tsv' && cells.length > 2)) {
      throw invalidRequest(`${field}, line ${i + 1}: expected a source and a target term separated by ${format === 'csv' ? 'a comma' : 'one tab'}.`);
    }
    out.push([cells[0]!, cells[1]!]);
  });
  return out;
}

/** Entries as DeepL's TSV (what GET .../entries answers). */
export function toTsv(entries: readonly [string, string][]): string {
  return entries.map(([s, t]) => `${s}\t${t}`).join('\n');
}
