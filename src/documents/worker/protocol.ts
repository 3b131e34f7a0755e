// Messages between the main thread and a document worker. A worker keeps nothing between jobs: a write carries
// the file again (see tasks.ts).
import type { DocumentLimits, FormatId } from '../formats/index.ts';
import type { SegmentTable } from '../segment-table.ts';
import type { OverQuota, PlannedDocument } from './tasks.ts';

export type DocumentTask =
  | { op: 'plan'; bytes: Uint8Array; filename: string; limits: DocumentLimits; charactersLeft: number | null }
  | { op: 'write'; bytes: Uint8Array; format: FormatId; limits: DocumentLimits; translations: SegmentTable; target: string };

export type ToDocumentWorker = DocumentTask & { id: number };

export type FromDocumentWorker =
  /** Sent once, when the worker has loaded its modules (its time limit starts with its first job after this). */
  | { ready: true }
  | { id: number; planned: PlannedDocument | OverQuota }
  | { id: number; written: Uint8Array }
  /** `refusal`: the file's problem (a DocumentError's message); otherwise a fault of ours. */
  | { id: number; error: string; refusal: boolean };
