// What a segment's translation must contain, for the engine's constrained search: spans kept as they are
// (placeholders, URLs, e-mail addresses: src/text/kept-spans.ts) and the glossary's target terms for the terms it
// holds (src/text/terms.ts). A term inside a kept span is not a term. A segment with neither gets no constraint,
// so it is translated exactly as without a glossary. A term's source, as the segment has it, goes with it: an LLM
// translator that declares a terminology wording reads the pair in its prompt.
import type { SegmentConstraint } from '../engine/types.ts';
import { keptSpans } from '../text/kept-spans.ts';
import type { TermMatcher } from '../text/terms.ts';

export function segmentConstraints(segment: string, matcher: TermMatcher | undefined, keep: boolean, html = false): SegmentConstraint[] | undefined {
  const spans = keep ? keptSpans(segment, html) : [];
  const out: SegmentConstraint[] = spans.map((s) => ({ target: segment.slice(s.start, s.end), keep: { start: s.start, end: s.end } }));
  for (const t of matcher?.find(segment) ?? []) {
    if (spans.some((s) => t.start < s.end && s.start < t.end)) continue;
    out.push({ target: t.target, source: segment.slice(t.start, t.end) });
  }
  return out.length ? out : undefined;
}
