// Messages between the main thread and the text worker. The worker keeps no state between messages: an
// assembly carries the text again and is planned anew (planning is deterministic), so nothing is left behind
// in the worker when a request fails or its client goes away between planning and assembly.
export type TextFormat = 'text' | 'html';

/** Options of the HTML planner (elements kept untranslated, as translate="no"). */
export interface PlanOptions {
  ignoreTags?: readonly string[];
}

export type TextJob =
  | { op: 'plan'; format: TextFormat; text: string; options?: PlanOptions }
  | { op: 'assemble'; format: TextFormat; text: string; options?: PlanOptions; translations: string[] };

export type ToTextWorker = TextJob & { id: number };

export type FromTextWorker = { id: number; segments: string[] } | { id: number; output: string } | { id: number; error: string };
