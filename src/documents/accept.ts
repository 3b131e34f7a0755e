// Everything a document is checked for before it is accepted (and charged): the languages, the size, the format
// (from the content), the file itself (opened by its format under the limits), its characters, its source
// language and a route between the two. Each refusal is an ApiError with a message naming the problem.
import { ApiError, invalidRequest } from '../service/errors.ts';
import type { Service } from '../service/index.ts';
import { validateLanguage } from '../service/validate.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import type { Language } from '../languages/types.ts';
import { detectFormat, DocumentError, type DocumentFormat, type DocumentLimits, type OpenedDocument } from './formats/index.ts';
import { planUnits, textSample } from './units.ts';

export interface DocumentSettings {
  maxDocumentBytes: number;
  maxDocumentChars: number;
  maxDocumentUncompressedBytes: number;
  maxZipEntries: number;
  maxCompressionRatio: number;
}

export function limitsOf(s: DocumentSettings): DocumentLimits {
  return {
    maxCharacters: s.maxDocumentChars,
    maxUncompressedBytes: s.maxDocumentUncompressedBytes,
    maxZipEntries: s.maxZipEntries,
    maxCompressionRatio: s.maxCompressionRatio,
  };
}

/** A glossary of the calling key (its id as the client gave it). */
export interface GlossaryRef {
  owner: string;
  id: string;
}

export interface Checked {
  format: DocumentFormat;
  /** Its units carry their plans (units.ts PlannedUnit): translating them does not plan them again. */
  document: OpenedDocument;
  target: Language;
  /** Given by the client, or detected from the document's text (undefined: nothing to detect, nothing to translate). */
  source: Language | undefined;
  detected: string | undefined;
  characters: number;
}

/** A file's format and its units, or a 400 that names the problem. */
export async function openDocument(bytes: Uint8Array, filename: string, settings: DocumentSettings): Promise<{ format: DocumentFormat; document: OpenedDocument }> {
  if (bytes.length > settings.maxDocumentBytes) {
    throw new ApiError(413, 'invalid_request', `The file has ${bytes.length} bytes, the maximum is ${settings.maxDocumentBytes} (DRAGOMAN_MAX_DOCUMENT_BYTES).`);
  }
  try {
    const format = detectFormat(bytes, filename);
    return { format, document: await format.open(bytes, limitsOf(settings)) };
  } catch (err) {
    if (err instanceof DocumentError) throw invalidRequest(err.message);
    if (err instanceof ApiError) throw err;
    // A parser's own exception on a damaged file: the file's problem, said without its content.
    throw invalidRequest('The file could not be read: it is damaged or not what its content first looks like.');
  }
}

export async function checkDocument(
  service: Service,
  input: { bytes: Uint8Array; filename: string; target: unknown; source: unknown; glossary?: GlossaryRef; memory?: GlossaryRef | undefined },
  settings: DocumentSettings,
): Promise<Checked> {
  const target = validateLanguage('target', input.target, true)!;
  const given = validateLanguage('source', input.source, false);
  // An unknown (or another key's) glossary is refused before the file is even opened, as /v1/translate does.
  const glossaries = service.deps.glossaries;
  if (input.glossary && !glossaries) throw invalidRequest('This server keeps no glossaries.');
  if (input.glossary) await glossaries!.get(input.glossary.owner, input.glossary.id);
  // So is an unknown translation memory.
  if (input.memory && !service.deps.memories) throw invalidRequest('This server keeps no translation memories.');
  const memory = input.memory && (await service.deps.memories!.get(input.memory.owner, input.memory.id));
  const { format, document } = await openDocument(input.bytes, input.filename, settings);
  const planned = await planUnits(service, document.units);
  document.units = planned.units;
  const characters = planned.characters;
  if (characters > settings.maxDocumentChars) {
    throw invalidRequest(
      `The document has ${characters} characters of text, the maximum is ${settings.maxDocumentChars} per document (DRAGOMAN_MAX_DOCUMENT_CHARS). Split it into smaller files.`,
    );
  }
  let source = given;
  let detected: string | undefined;
  if (!given && characters > 0) {
    const sample = textSample(document.units);
    const [d] = await service.detect({ strings: [sample], single: true, chars: 0 });
    detected = d?.language ?? 'und';
    source = detected === 'und' ? undefined : resolveLanguage(detected);
    if (!source) throw invalidRequest("The document's language could not be detected: pass source.");
  }
  if (source && source.flores !== target.flores && characters > 0) {
    const engine = service.deps.engine;
    if (!engine.models().some((m) => m.status === 'ok')) {
      throw new ApiError(503, 'server_error', 'No translation model is installed: install one with `dragoman models pull`, then restart the server.');
    }
    if (!engine.route(source.flores, target.flores)) {
      throw invalidRequest(
        `${detected ? `The document was detected as '${source.code}' (${source.name}); no` : 'No'} installed model translates ${source.name} ('${source.code}') into ${target.name} ('${target.code}'). See GET /v1/languages.`,
      );
    }
  }
  // The glossary must hold the document's pair, given or detected: a document has one source, and a job accepted
  // (and charged) to run without the terms asked for would be worse than this 400.
  if (input.glossary && source && source.flores !== target.flores) {
    await glossaries!.dictionary(input.glossary.owner, input.glossary.id, source.code, target.code);
  }
  // A memory holds one source language: a document in another would be charged and then refused.
  if (memory && source && source.code !== memory.source) {
    throw invalidRequest(`Translation memory '${memory.id}' has source language '${memory.source}'; the document's is '${source.code}'.`);
  }
  return { format, document, target, source, detected, characters };
}
