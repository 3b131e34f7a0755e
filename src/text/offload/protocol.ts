// Messages between the main thread and the text worker. The worker keeps no state between messages: an
// assembly carries the text again and is planned anew (planning is deterministic), so nothing is left behind
// in the worker when a request fails or its client goes away between planning and assembly.
export type TextFormat = 'text' | 'html';

export type TextJob =
  | { op: 'plan'; format: TextFormat; text: string }
  | { op: 'assemble'; format: TextFormat; text: string; translations: string[] };

export type ToTextWorker = TextJob & { id: number };

export type FromTextWorker = { id: number; segments: string[] } | { id: number; output: string } | { id: number; error: string };
