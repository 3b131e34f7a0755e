// Segments as glossaries take their entries: one pair a line, source and target separated by a tab (TSV) or a
// comma (CSV, RFC 4180 quotes, further columns ignored). Read as a stream, a batch per chunk; a bad line is a
// MemoryFileError naming it.
import { csvCells } from '../text/csv.ts';
import { MemoryFileError, type TmxUnit } from './tmx-read.ts';

export async function* readDelimited(
  input: AsyncIterable<Uint8Array>,
  format: 'tsv' | 'csv',
  langs: { source: string; target: string },
  limits: { maxSegmentChars: number; maxFileBytes: number },
): AsyncGenerator<TmxUnit[]> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rest = '';
  let line = 0;
  let bytes = 0;
  const parse = (text: string): TmxUnit => {
    line++;
    const cells = format === 'csv' ? csvCells(text) : text.split('\t');
    if (cells.length < 2 || (format === 'tsv' && cells.length > 2)) {
      throw new MemoryFileError(line, `expected a source and a target segment separated by ${format === 'csv' ? 'a comma' : 'one tab'}.`);
    }
    const [source, target] = [cells[0]!.trim(), cells[1]!.trim()];
    if (source.length > limits.maxSegmentChars || target.length > limits.maxSegmentChars) {
      throw new MemoryFileError(line, `a segment has more than ${limits.maxSegmentChars} characters (DRAGOMAN_MEMORY_MAX_SEGMENT_CHARS).`);
    }
    return { line, reviewed: true, source: { lang: langs.source, text: source }, targets: [{ lang: langs.target, text: target }] };
  };
  for await (const chunk of input) {
    bytes += chunk.length;
    if (bytes > limits.maxFileBytes) throw new MemoryFileError(undefined, `the file is larger than ${limits.maxFileBytes} bytes (DRAGOMAN_MEMORY_MAX_FILE_BYTES).`);
    try {
      rest += decoder.decode(chunk, { stream: true });
    } catch {
      throw new MemoryFileError(line + 1, 'the file is not valid UTF-8.');
    }
    const lines = rest.split(/\r\n|\n|\r(?!$)/);
    rest = lines.pop()!;
    if (rest.length > limits.maxSegmentChars * 2 + 16) throw new MemoryFileError(line + 1, `a line has more than ${limits.maxSegmentChars * 2} characters (DRAGOMAN_MEMORY_MAX_SEGMENT_CHARS).`);
    const batch: TmxUnit[] = [];
    for (const l of lines) {
      if (l.trim()) batch.push(parse(l));
      else line++;
    }
    if (batch.length) yield batch;
  }
  rest += decoder.decode();
  if (rest.trim()) yield [parse(rest.replace(/\r$/, ''))];
}
