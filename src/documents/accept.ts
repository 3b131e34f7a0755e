// Everything a document is checked for before it is accepted (and charged): the languages, the key's quota (none
// left: refused before the file is read), the size, the format (from the content), the file itself (opened and
// planned by its format under the limits, on a document worker), its characters, its source language and a route
// between the two. Each refusal is an ApiError with a message naming the problem.
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import type { Service } from '../service/index.ts';
import { validateLanguage } from '../service/validate.ts';
import { checkChoice, chooseRoute } from '../service/model-choice.ts';
import type { ModelChoice } from '../engine/types.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import type { Language } from '../languages/types.ts';
import type { Admission, Gate } from '../accounts/gate.ts';
import { formatById, type DocumentFormat, type DocumentLimits } from './formats/index.ts';
import type { DocumentWorkers } from './worker/pool.ts';
import type { PlannedDocument } from './worker/tasks.ts';

export interface DocumentSettings {
  maxDocumentBytes: number;
  maxDocumentChars: number;
  maxDocumentUncompressedBytes: number;
  maxZipEntries: number;
  maxCompressionRatio: number;
  maxDocumentUnits: number;
  maxPdfPages: number;
  pdfMemoryMb: number;
  pdfTimeoutMs: number;
}

export function limitsOf(s: DocumentSettings): DocumentLimits {
  return {
    maxCharacters: s.maxDocumentChars,
    maxUnits: s.maxDocumentUnits,
    maxUncompressedBytes: s.maxDocumentUncompressedBytes,
    maxZipEntries: s.maxZipEntries,
    maxCompressionRatio: s.maxCompressionRatio,
    maxPdfPages: s.maxPdfPages,
    pdfMemoryMb: s.pdfMemoryMb,
    pdfTimeoutMs: s.pdfTimeoutMs,
  };
}

/** A glossary of the calling key (its id as the client gave it). */
export interface GlossaryRef {
  owner: string;
  id: string;
}

/** Whose characters the document would be charged to: refused before it is read when none are left. */
export interface QuotaRef {
  gate: Gate;
  admission: Admission;
}

export interface Checked {
  format: DocumentFormat;
  /** Its units' sentences (translating them does not plan them again). */
  planned: PlannedDocument;
  target: Language;
  /** Given by the client, or detected from the document's text (undefined: nothing to detect, nothing to translate). */
  source: Language | undefined;
  detected: string | undefined;
  characters: number;
}

/**
 * A file's format and its units' sentences, planned on a document worker, or a 400/413 that names the problem.
 * `charactersLeft`: the key's characters this month (null: no limit); planning stops as soon as the document has more.
 */
export async function planDocumentFile(
  workers: DocumentWorkers,
  bytes: Uint8Array,
  filename: string,
  settings: DocumentSettings,
  quota?: QuotaRef & { left: number | null },
): Promise<{ format: DocumentFormat; planned: PlannedDocument }> {
  if (bytes.length > settings.maxDocumentBytes) {
    throw new ApiError(413, 'invalid_request', `The file has ${bytes.length} bytes, the maximum is ${settings.maxDocumentBytes} (DRAGOMAN_MAX_DOCUMENT_BYTES).`);
  }
  const planned = await workers.plan(bytes, filename, limitsOf(settings), quota?.left ?? null);
  if ('overQuota' in planned) throw quota!.gate.overQuota(quota!.admission, planned.overQuota, quota!.left ?? 0);
  return { format: formatById(planned.format)!, planned };
}

export async function checkDocument(
  service: Service,
  workers: DocumentWorkers,
  input: {
    bytes: Uint8Array; filename: string; target: unknown; source: unknown; glossary?: GlossaryRef; memory?: GlossaryRef; model?: ModelChoice;
    quota?: QuotaRef;
  },
  settings: DocumentSettings,
): Promise<Checked> {
  const target = validateLanguage('target', input.target, true)!;
  const given = validateLanguage('source', input.source, false);
  if (input.model) checkChoice(service.deps, { model: input.model });
  // A key with no characters left is refused before anything else is done for it.
  const left = input.quota ? await input.quota.gate.charactersLeft(input.quota.admission) : null;
  // An unknown (or another key's) glossary is refused before the file is even opened, as /v1/translate does.
  const glossaries = service.deps.glossaries;
  if (input.glossary && !glossaries) throw invalidRequest('This server keeps no glossaries.');
  if (input.glossary) await glossaries!.get(input.glossary.owner, input.glossary.id);
  // So is an unknown (or another key's) translation memory.
  const memories = service.deps.memories;
  if (input.memory && !memories) throw invalidRequest('This server keeps no translation memories.');
  const memory = input.memory ? await memories!.get(input.memory.owner, input.memory.id) : undefined;
  const { format, planned } = await planDocumentFile(workers, input.bytes, input.filename, settings, input.quota && { ...input.quota, left });
  const characters = planned.characters;
  let source = given;
  let detected: string | undefined;
  if (!given && characters > 0) {
    const [d] = await service.detect({ strings: [planned.sample], single: true, chars: 0 });
    detected = d?.language ?? 'und';
    source = detected === 'und' ? undefined : resolveLanguage(detected);
    if (!source) throw invalidRequest("The document's language could not be detected: pass source.");
  }
  if (source && source.flores !== target.flores && characters > 0) {
    const engine = service.deps.engine;
    if (!engine.models().some((m) => m.status === 'ok')) {
      throw new ApiError(503, 'server_error', 'No translation model is installed: install one with `dragoman models pull opus-mt-en-de` (or, without network, `dragoman models import FILE.tar`), then restart the server.');
    }
    if (!engine.route(source.flores, target.flores)) {
      throw invalidRequest(
        `${detected ? `The document was detected as '${source.code}' (${source.name}); no` : 'No'} installed model translates ${source.name} ('${source.code}') into ${target.name} ('${target.code}'). See GET /v1/languages.`,
      );
    }
    // The model asked for must serve the pair now, or the job would be charged to fail.
    if (input.model) chooseRoute(service.deps, source, target, { model: input.model });
  }
  // The glossary must hold the document's pair, given or detected: a document has one source, and a job accepted
  // (and charged) to run without the terms asked for would be worse than this 400.
  if (input.glossary && source && source.flores !== target.flores) {
    await glossaries!.dictionary(input.glossary.owner, input.glossary.id, source.code, target.code);
  }
  // A memory holds one source language: a document in another would be charged and translated without it.
  if (memory && source && source.flores !== target.flores && memory.source !== source.code) {
    throw invalidRequest(
      `Translation memory '${memory.id}' has source language '${memory.source}'; the document's is '${source.code}'${detected ? ' (detected: pass source if that is wrong)' : ''}.`,
    );
  }
  return { format, planned, target, source, detected, characters };
}
