// A document job as stored and as the API shows it. A job is charged once, when it is accepted; `chargeState`
// records where that charge stands so that a restart never charges or refunds it twice.
import { formatById } from './formats/index.ts';
import type { FormatId } from './formats/types.ts';

export type JobStatus = 'queued' | 'translating' | 'done' | 'error';

/**
 * pending: the job was written and its charge was being made (a crash here leaves it unknown, so it is never
 * refunded); charged: the key paid for it; refunded: it failed and was paid back.
 */
export type ChargeState = 'pending' | 'charged' | 'refunded';

export interface JobRecord {
  id: string;
  keyId: string;
  status: JobStatus;
  filename: string;
  format: FormatId;
  /** The source the client gave (public code), or undefined when it was detected. */
  source: string | undefined;
  /** The detected source (public code) when none was given. */
  detectedSource: string | undefined;
  target: string;
  /** The id of the key's glossary the job applies (kept so a job taken over after a restart still applies it). */
  glossary: string | undefined;
  characters: number;
  progress: number;
  createdAt: number;
  expiresAt: number;
  /** When it became done or failed (the service clock), undefined while it runs. */
  finishedAt?: number | undefined;
  error: string | undefined;
  chargeState: ChargeState;
  /** The charge as the account store made it (JSON): what a refund gives back. */
  charge: string;
  /** Until when (wall clock ms) a server works on it; a job past its lease and not finished is taken over. */
  leaseUntil: number;
  /**
   * The bytes the job keeps, as its key's storage limit counts them: its upload and, until its result is written,
   * room for a result as large as the upload; then the upload and the result as written.
   */
  storedBytes: number;
  /**
   * A LibreTranslate translate_file job: the SHA-256 (hex) of the token its download URL carries. Only such jobs
   * can be downloaded without a key, and only by that token.
   */
  downloadToken: string | undefined;
  /** The key's translation memory the job translates with (kept so a job taken over after a restart uses it). */
  memory?: JobMemory | undefined;
  /** The model it asked for: "quality", "speed" or a model's name (docs/models.md#quality-or-speed); absent: the usual route. */
  model?: string | undefined;
}

/** A document's memory: its id, the least similarity of a reported match, whether its translations are learned. */
export interface JobMemory {
  id: string;
  threshold: number;
  update: boolean;
}

/** The document object of the API. */
export interface DocumentView {
  id: string;
  status: JobStatus;
  filename: string;
  /** The name the result downloads under (`report.de.docx`). */
  resultFilename: string;
  format: FormatId;
  source?: string;
  detectedSourceLanguage?: string;
  target: string;
  glossary?: string;
  memory?: string;
  memoryThreshold?: number;
  model?: string;
  characters: number;
  /** 0 to 1. */
  progress: number;
  createdAt: string;
  /** When it became done or failed. */
  finishedAt?: string;
  expiresAt: string;
  error?: { message: string };
}

export function viewOf(job: JobRecord): DocumentView {
  return {
    id: job.id,
    status: job.status,
    filename: job.filename,
    resultFilename: resultFilenameOf(job),
    format: job.format,
    ...(job.source ? { source: job.source } : { detectedSourceLanguage: job.detectedSource ?? 'und' }),
    target: job.target,
    ...(job.glossary ? { glossary: job.glossary } : {}),
    ...(job.memory ? { memory: job.memory.id, memoryThreshold: job.memory.threshold } : {}),
    ...(job.model ? { model: job.model } : {}),
    characters: job.characters,
    progress: Math.round(job.progress * 1000) / 1000,
    createdAt: new Date(job.createdAt).toISOString(),
    ...(job.finishedAt !== undefined ? { finishedAt: new Date(job.finishedAt).toISOString() } : {}),
    expiresAt: new Date(job.expiresAt).toISOString(),
    ...(job.status === 'error' ? { error: { message: job.error ?? 'The translation failed.' } } : {}),
  };
}

/** The result's download name: the name without its extension, the target, the format's extension. */
export function resultFilenameOf(job: Pick<JobRecord, 'filename' | 'target' | 'format'>): string {
  return resultName(job.filename, job.target, formatById(job.format)?.extension ?? job.filename.split('.').pop() ?? 'txt');
}

/** `<name>.<target>.<ext>`: the name without its extension, the target, the format's extension. */
export function resultName(filename: string, target: string, extension: string): string {
  const dot = filename.lastIndexOf('.');
  const stem = dot > 0 ? filename.slice(0, dot) : filename;
  return `${stem}.${target}.${extension}`;
}
