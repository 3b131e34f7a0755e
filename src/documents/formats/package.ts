// What every zip format shares: unpack under the limits, let the format pick its XML parts and the
// translatable units in them, and on write replace only those units' ranges (plus language tags) in those
// parts; every other entry goes back with its own content, in its own place.
import { DocumentError, type DocumentLimits, type OpenedDocument } from './types.ts';
import { checkXml, decodeXml, parseXml, Rewriter, type XmlPart } from './xml.ts';
import { readZip, writeZip, type ZipEntry } from './zip.ts';

/** A part's source between two offsets, with the translated ranges inside already replaced. */
export type Render = (start: number, end: number) => string;

/** One translatable range of a part and how its translation is written there. */
export interface PartUnit {
  html: string;
  /** Code points of text sent to translation. */
  chars: number;
  start: number;
  end: number;
  /** `render` gives the objects inside the range (a text box in a paragraph) with their own translations. */
  build(translation: string, target: string, render: Render): string;
}

export interface PartPlan {
  units: PartUnit[];
  /** Language tags and other small changes that do not come from a unit. */
  edits?(target: string): { start: number; end: number; text: string }[];
}

export interface Entries {
  entries: ZipEntry[];
  get(name: string): ZipEntry | undefined;
  /** A part parsed as XML (throws DocumentError for a missing part, DOCTYPE or malformed XML). */
  xml(name: string, options?: { xhtml?: boolean }): XmlPart;
}

export type Planner = (zip: Entries) => Map<string, PartPlan> | Promise<Map<string, PartPlan>>;

/**
 * Tags the XML parts read may hold together, per unit a document may have (DRAGOMAN_MAX_DOCUMENT_UNITS): a part's
 * tree costs memory by its elements, so they are counted (as `<`, cheaply) before a part is parsed. Formatted
 * paragraphs have a few dozen tags; a part of a million one-tag units (shared strings) is refused unparsed.
 */
const TAGS_PER_UNIT = 12;

/** The number of `<` in `text`. */
function tagCount(text: string): number {
  let n = 0;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) n++;
  return n;
}

export async function openZipDocument(bytes: Uint8Array, limits: DocumentLimits, kind: string, plan: Planner): Promise<OpenedDocument> {
  const entries = await readZip(bytes, limits, kind);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const parsed = new Map<string, XmlPart>();
  const maxTags = limits.maxUnits * TAGS_PER_UNIT;
  let tags = 0;
  const zip: Entries = {
    entries,
    get: (name) => byName.get(name),
    xml(name, options) {
      let part = parsed.get(name);
      if (part) return part;
      const entry = byName.get(name);
      if (entry === undefined) throw new DocumentError(`The ${kind} file has no part "${name}".`);
      const text = decodeXml(entry.data, `The part "${name}" of the ${kind} file`);
      tags += tagCount(text);
      if (tags > maxTags) {
        throw new DocumentError(
          `The ${kind} file's XML has more than ${maxTags} tags (${TAGS_PER_UNIT} for each of the ${limits.maxUnits} pieces of text a document may have, DRAGOMAN_MAX_DOCUMENT_UNITS). Split it into smaller files.`,
        );
      }
      part = parseXml(text, `The part "${name}" of the ${kind} file`, options);
      parsed.set(name, part);
      return part;
    },
  };
  const plans = await plan(zip);
  const units = [...plans.values()].flatMap((p) => p.units);
  const chars = units.reduce((n, u) => n + u.chars, 0);
  if (chars > limits.maxCharacters) {
    throw new DocumentError(`The ${kind} file has ${chars} characters of text; at most ${limits.maxCharacters} are accepted per document.`);
  }
  return {
    units: units.map((u) => ({ html: u.html })),
    async write(translations, target) {
      if (translations.length !== units.length) throw new Error(`${kind}: expected ${units.length} translations, got ${translations.length}`);
      let k = 0;
      const rewritten = new Map<string, Buffer>();
      for (const [name, p] of plans) {
        const source = zip.xml(name).text;
        const rewriter = new Rewriter(source);
        const render: Render = (a, b) => rewriter.render(a, b);
        for (const unit of p.units) {
          const translation = translations[k++]!;
          rewriter.add({ start: unit.start, end: unit.end, text: () => unit.build(translation, target, render) });
        }
        for (const e of p.edits?.(target) ?? []) rewriter.add({ start: e.start, end: e.end, text: () => e.text });
        if (rewriter.size === 0) continue;
        const text = rewriter.render();
        // A part we could not write well-formed is our fault, never the user's: fail loudly rather than hand back a broken file.
        try {
          checkXml(text, name, { xhtml: true });
        } catch (err) {
          throw new Error(`${kind}: the translated part "${name}" is not well-formed (${(err as Error).message})`);
        }
        rewritten.set(name, Buffer.from(text, 'utf8'));
      }
      return writeZip(entries.map((e) => (rewritten.has(e.name) ? { ...e, data: rewritten.get(e.name)! } : e)));
    },
  };
}
