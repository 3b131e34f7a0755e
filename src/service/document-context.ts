// A document's earlier lines as the context of each of its segments, for an LLM translator that takes context: the
// segments before it, whole, the latest within the character budget (DRAGOMAN_DOCUMENT_CONTEXT_CHARS), a line each.
// The engine keeps the latest lines that fit its prompt's bound; every segment's context differs, so these segments
// are never shared with the cache's other entries, but they still go to the engine in one call and batch together.
import { codePoints } from './validate.ts';
import type { ChosenRoute } from './model-choice.ts';
import type { ServiceDeps, TranslateOptions } from './types.ts';

/** Per segment of `segments` (a group's, in document order), its context; undefined when the route's first model takes none. */
export function documentContexts(
  deps: ServiceDeps, chosen: ChosenRoute, asked: TranslateOptions['documentContext'], segments: readonly string[],
): (string | undefined)[] | undefined {
  if (!asked || asked.chars <= 0 || !chosen.route.length) return undefined;
  const first = deps.engine.models().find((m) => m.name === chosen.route[0]);
  if (!first?.prompt?.context) return undefined;
  const earlier = [...(asked.before ?? [])];
  return segments.map((segment) => {
    const context = latestWithin(earlier, asked.chars);
    earlier.push(segment);
    return context;
  });
}

/** The latest whole segments of `earlier` within `chars` code points (line breaks counted), a line each. */
export function latestWithin(earlier: readonly string[], chars: number): string | undefined {
  const lines: string[] = [];
  let used = 0;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const line = earlier[i]!.replace(/\s+/g, ' ').trim();
    if (!line) continue;
    const cost = codePoints(line) + (lines.length ? 1 : 0);
    if (used + cost > chars) break;
    lines.unshift(line);
    used += cost;
  }
  return lines.length ? lines.join('\n') : undefined;
}
