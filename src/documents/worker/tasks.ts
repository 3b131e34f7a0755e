// What the document worker does, one file at a time: open and plan (the format from the content, its units, each
// unit's sentences as the service's html planner cuts them, the characters they count, a sample to detect the
// language from), and write (the file opened again, each unit's translation put together from its sentences, the
// translated file written). Both run on a worker thread (pool.ts): however large or hostile the file, the event
// loop that answers requests never does this work. Planning is deterministic, so nothing is kept between the two.
import { codePoints } from '../../service/validate.ts';
import { planHtml } from '../../text/html/index.ts';
import { fragmentText } from '../formats/fragment.ts';
import { detectFormat, DocumentError, formatById, type DocumentLimits, type FormatId, type TextUnit } from '../formats/index.ts';
import { tooManyUnits } from '../formats/types.ts';
import { SegmentTableBuilder, SegmentTableReader, type SegmentTable } from '../segment-table.ts';

export interface PlannedDocument {
  format: FormatId;
  /** Code points of the text sent to translation. */
  characters: number;
  /** The first few thousand characters of text, to detect the document's language from. */
  sample: string;
  /** Each unit's sentences. */
  segments: SegmentTable;
}

/** Planning stopped: the document has more characters than the key has left this month (at least `characters`). */
export interface OverQuota {
  overQuota: number;
}

export async function planDocument(
  bytes: Uint8Array,
  filename: string,
  limits: DocumentLimits,
  charactersLeft: number | null,
): Promise<PlannedDocument | OverQuota> {
  const format = detectFormat(bytes, filename);
  const { units } = await format.open(bytes, limits);
  if (units.length > limits.maxUnits) throw tooManyUnits(units.length, limits.maxUnits);
  const table = new SegmentTableBuilder();
  let characters = 0;
  for (const u of units) {
    const { segments } = planHtml(u.html, {});
    for (const s of segments) characters += codePoints(s);
    // Stopped as soon as the count is over: planning the rest would be work for a document that is refused.
    if (characters > limits.maxCharacters) {
      throw new DocumentError(
        `The document has more than ${limits.maxCharacters} characters of text, the maximum is ${limits.maxCharacters} per document (DRAGOMAN_MAX_DOCUMENT_CHARS). Split it into smaller files.`,
      );
    }
    if (charactersLeft !== null && characters > charactersLeft) return { overQuota: characters };
    table.add(segments);
  }
  return { format: format.id, characters, sample: textSample(units), segments: table.build() };
}

/** The translated file: `translations` holds each unit's translated sentences (none: the unit as it was). */
export async function writeDocument(
  bytes: Uint8Array,
  formatId: FormatId,
  limits: DocumentLimits,
  translations: SegmentTable,
  target: string,
): Promise<Uint8Array> {
  const format = formatById(formatId);
  if (!format) throw new Error(`unknown document format ${formatId}`);
  const document = await format.open(bytes, limits);
  const reader = new SegmentTableReader(translations);
  if (reader.units !== document.units.length) throw new Error(`${formatId}: ${document.units.length} units, ${reader.units} translations`);
  const out = document.units.map((u, i) => {
    const sentences = reader.segmentsOf(i);
    return sentences === undefined ? u.html : planHtml(u.html, {}).assemble(sentences);
  });
  return document.write(out, target, translations.notes);
}

/** The document's first few thousand characters of text, to detect its language from. */
export function textSample(units: readonly TextUnit[], chars = 4000): string {
  let out = '';
  for (const u of units) {
    if (out.length >= chars) break;
    out += fragmentText(u.html).replace(/\s+/g, ' ').trim() + '\n';
  }
  return out.slice(0, chars);
}
