// The translation memory the text is translated with: a list of the key's memories (GET /v1/memories, read when
// asked: one of the key's requests), "None" by default. A memory belongs to a key, so another key empties the list.
import { callApi } from './api.ts';
import { ui } from './dom.ts';
import { run } from './feedback.ts';
import { keyForRequest } from './key-field.ts';
import { formatCount } from './messages.ts';

interface MemoriesResponse {
  data: { memories: { id: string; name: string; source: string; targets: string[]; segmentCount: number }[] };
}

/** What /v1/translate says a memory did for one string. */
export interface MemoryOutcome {
  segments: number;
  exact: number;
  characters: number;
}

/** The chosen memory's id, or undefined for none. */
export function chosenMemory(): string | undefined {
  return ui.memory.value || undefined;
}

function reset(note: string): void {
  ui.memory.replaceChildren(new Option('None', ''));
  ui.memoryStatus.textContent = note;
}

export async function listMemories(): Promise<void> {
  const key = keyForRequest();
  if (key === undefined) return;
  await run('Reading the key’s memories…', async () => {
    const answer = await callApi<MemoriesResponse>('/v1/memories', key);
    const chosen = ui.memory.value;
    const list = answer.body.data.memories;
    reset(list.length ? '' : 'This key has no translation memory yet (POST /v1/memories, or dragoman memories import).');
    for (const m of list) {
      const option = new Option(`${m.name} (${m.source} → ${m.targets.join(', ')}, ${formatCount(m.segmentCount)} segments)`, m.id);
      ui.memory.append(option);
    }
    if (list.some((m) => m.id === chosen)) ui.memory.value = chosen;
  });
}

/** After a translation: how many of its sentences the memory gave, or nothing without a memory. */
export function showMemoryOutcome(outcome: MemoryOutcome | undefined): void {
  ui.memoryStatus.textContent = outcome
    ? `${formatCount(outcome.exact)} of ${formatCount(outcome.segments)} ${outcome.segments === 1 ? 'sentence' : 'sentences'} from the memory, as stored.`
    : '';
}

export function setupMemoryChoice(onKeyChange: (f: () => void) => void): void {
  ui.memoriesRefresh.addEventListener('click', () => void listMemories());
  ui.memory.addEventListener('change', () => (ui.memoryStatus.textContent = ''));
  onKeyChange(() => reset(''));
}
