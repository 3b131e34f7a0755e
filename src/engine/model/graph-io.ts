// The names seq2seq.ts feeds and reads on each graph, as the one list two checks read: seq2seq.ts against the sessions
// it creates, load-check.ts against the names a file declares (`dragoman models list | pack | import`), so the CLI
// cannot call a folder usable that the server refuses. A valid graph of the wrong kind (the decoder copied over the
// encoder) would otherwise load and fail on every request.

export type GraphRole = 'encoder' | 'decoder';

/** The inputs and outputs a graph declares, in its own order. */
export interface GraphIo {
  inputs: readonly string[];
  outputs: readonly string[];
}

/** What each graph must declare: only the names used by name (cache names beyond layer 0 follow from the config). */
export const REQUIRED_IO: Record<GraphRole, GraphIo & { kind: string }> = {
  encoder: { kind: 'a seq2seq encoder', inputs: ['input_ids', 'attention_mask'], outputs: ['last_hidden_state'] },
  decoder: {
    kind: 'a merged decoder with KV cache',
    inputs: ['input_ids', 'encoder_hidden_states', 'use_cache_branch', 'past_key_values.0.decoder.key'],
    outputs: ['logits', 'present.0.decoder.key'],
  },
};

/** Undefined when `io` has every name `role` needs; else the file, what it is not, and the first name it lacks. */
export function graphIoProblem(path: string, role: GraphRole, io: GraphIo): string | undefined {
  const need = REQUIRED_IO[role];
  for (const side of ['inputs', 'outputs'] as const) {
    const missing = need[side].find((name) => !io[side].includes(name));
    if (missing === undefined) continue;
    const one = side === 'inputs' ? 'input' : 'output';
    return `${path}: not ${need.kind} (no ${one} "${missing}"; its ${side} are ${io[side].slice(0, 4).join(', ') || 'none'})`;
  }
  return undefined;
}
