// Walks the parse5 tree (with source locations) and turns it into units: runs of inline text (one per
// block) and translatable attribute values. Each unit yields segments and, given their translations,
// the source replacements that put them back.
import { parse, parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';
import { BLOCK_ELEMENTS, SKIPPED_BLOCKS, SKIPPED_ELEMENTS, SKIPPED_READ_AS_WORDS, TRANSLATED_ATTRIBUTES, ownTranslateMode } from './elements.ts';
import { escapeHtmlAttribute, escapeHtmlText, nbspStyleOf, type NbspStyle } from './escape.ts';
import { planRun, type RunBoundary } from './run.ts';
import { readTextSource, treeTokenOffsets } from './source-text.ts';
import type { Replacement } from './splice.ts';

export interface Unit {
  segments: string[];
  /**
   * `keepTextNodes`: the fallback when the first assembly changed how the parser builds the tree (it re-opens
   * misnested formatting elements only where text follows): every slot keeps its kind (no text, whitespace,
   * words), so the parser sees text nodes exactly where it saw them in the input.
   */
  replacements(translations: readonly string[], keepTextNodes: boolean): Replacement[];
}

// A whole document starts (after an optional BOM, whitespace and comments) with a doctype, <html>, <head> or <body>.
const DOCUMENT_START = /^\uFEFF?[ \t\n\f\r]*(?:<!--[\s\S]*?-->[ \t\n\f\r]*)*<(?:!doctype|html|head|body)[ \t\n\f\r/>]/i;

const VOID_ELEMENTS = new Set([
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr',
  'keygen', 'basefont', 'bgsound', 'frame', 'image',
]);

export function isHtmlDocument(html: string): boolean {
  return DOCUMENT_START.test(html);
}

/** `locations`: nodes carry their source offsets (planning splices by them; a structure check needs none). */
export function parseHtml(html: string, locations = true): T.ParentNode {
  const options = { sourceCodeLocationInfo: locations } as const;
  return isHtmlDocument(html) ? parse(html, options) : parseFragment(html, options);
}

/** `ignoreTags`: elements treated as translate="no" (DeepL's ignore_tags). */
export function collectUnits(html: string, root: T.ParentNode, ignoreTags: ReadonlySet<string> = NONE): Unit[] {
  const walker = new Walker(html, treeTokenOffsets(root), untranslatedWithParts(root, ignoreTags), ignoreTags);
  walker.walk(root);
  return walker.units;
}

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';
const NONE: ReadonlySet<string> = new Set();

/** An element's own translation switch, with the caller's ignored tags as translate="no". */
function translateMode(el: T.Element, ignoreTags: ReadonlySet<string>): boolean | undefined {
  return ignoreTags.has(el.tagName) ? false : ownTranslateMode(el.attrs);
}

/** Whether the walk looks inside an element at all: not into skipped content (code, script, svg...). */
function contentSkipped(el: T.Element): boolean {
  return SKIPPED_ELEMENTS.has(el.tagName) || el.namespaceURI !== HTML_NAMESPACE;
}

/**
 * The untranslated elements (translate="no" or notranslate, own or inherited) that hold a translated part
 * (an element with translate="yes"): the walk looks inside those instead of keeping them as one token.
 */
function untranslatedWithParts(root: T.ParentNode, ignoreTags: ReadonlySet<string>): Set<T.ParentNode> {
  const holders = new Set<T.ParentNode>();
  const stack: [T.ChildNode, boolean][] = root.childNodes.map((c) => [c, true]);
  while (stack.length > 0) {
    const [node, parentTranslated] = stack.pop()!;
    if (!('tagName' in node)) continue;
    const el = node as T.Element;
    const translated = translateMode(el, ignoreTags) ?? parentTranslated;
    if (translated && !parentTranslated) {
      for (let p = el.parentNode; p !== null && !holders.has(p); p = 'parentNode' in p ? p.parentNode : null) holders.add(p);
    }
    if (!contentSkipped(el)) for (const child of el.childNodes) stack.push([child, translated]);
  }
  return holders;
}

interface Range {
  start: number;
  end: number;
}

/**
 * Work for the walk: a node to visit with its inherited translation mode (HTML's `translate`), or what an
 * element does once its children are done.
 */
type Step = { node: T.ChildNode; translated: boolean } | (() => void);

class Walker {
  readonly units: Unit[] = [];
  /** Start-tag offsets already seen: parse5 re-opens formatting elements as clones sharing the source tag. */
  private readonly seenTags = new Set<number>();
  private slots: string[] = [''];
  private slotRanges: (Range | undefined)[] = [undefined];
  private boundaries: RunBoundary[] = [];
  private boundaryRanges: (Partial<Range> | undefined)[] = [];
  private openStack: number[] = [];
  /**
   * The walk keeps its own stack instead of recursing: the parser accepts any depth (5000 nested <b> are
   * a valid string), and the JavaScript call stack would overflow long before the request size limit.
   */
  private readonly steps: Step[] = [];
  private readonly nbsp: NbspStyle;

  constructor(
    private readonly html: string,
    /** Offsets of the source tags, comments and doctypes the tree was built from. */
    private readonly inTree: ReadonlySet<number>,
    /** Untranslated elements with translated parts inside. */
    private readonly withParts: ReadonlySet<T.ParentNode>,
    private readonly ignoreTags: ReadonlySet<string> = NONE,
  ) {
    this.nbsp = nbspStyleOf(html);
  }

  walk(root: T.ParentNode): void {
    this.children(root, true);
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      if (typeof step === 'function') step();
      else this.visit(step.node, step.translated);
    }
    this.flush();
  }

  /** Visit the children of `parent` next, in order, then run `after` (if any). */
  private children(parent: T.ParentNode, translated: boolean, after?: () => void): void {
    if (after !== undefined) this.steps.push(after);
    for (let i = parent.childNodes.length - 1; i >= 0; i--) this.steps.push({ node: parent.childNodes[i]!, translated });
  }

  private visit(node: T.ChildNode, translated: boolean): void {
    if (node.nodeName !== '#documentType' && !('tagName' in node) && !translated) return; // untranslated text, comment
    if (node.nodeName === '#text') return this.text(node as T.TextNode);
    if (node.nodeName === '#comment') {
      const loc = (node as T.CommentNode).sourceCodeLocation;
      this.boundary({ kind: 'opaque', partner: -1 }, loc ? { start: loc.startOffset, end: loc.endOffset } : undefined);
      return;
    }
    if (node.nodeName === '#documentType') return this.flush();
    this.element(node as T.Element, translated);
  }

  private element(el: T.Element, parentTranslated: boolean): void {
    const loc = el.sourceCodeLocation;
    const startTag = loc?.startTag;
    const name = el.tagName;
    const translated = translateMode(el, this.ignoreTags) ?? parentTranslated;
    if (!translated && this.withParts.has(el)) {
      // translate="no" holding translate="yes" parts: its own text stays, each part is translated on its own.
      if (startTag !== undefined) this.seenTags.add(startTag.startOffset);
      this.flush();
      this.children(el, false, () => this.flush());
      return;
    }
    if (translated && !parentTranslated) {
      // A translate="yes" part inside translate="no": a run of its own, never joined across the kept text around it.
      this.flush();
      this.steps.push(() => this.flush());
    }
    const skipped = contentSkipped(el) || !translated;
    if (startTag === undefined || this.seenTags.has(startTag.startOffset)) {
      // Implied (html, tbody...) or re-opened by the parser: no source tag of its own to keep in a sentence.
      this.flush();
      if (!skipped) this.children(el, translated, () => this.flush());
      return;
    }
    this.seenTags.add(startTag.startOffset);

    if (skipped) {
      const block = SKIPPED_BLOCKS.has(name) || BLOCK_ELEMENTS.has(name);
      if (block) this.flush();
      // Its content is never translated; its own title/alt/placeholder/aria-label are, unless translate="no".
      if (translated) this.attributes(el);
      if (block) return;
      // Opaque inline token: its bytes stay as they are, wherever the sentence puts it.
      const end = loc!.endTag?.endOffset ?? (VOID_ELEMENTS.has(name) || el.childNodes.length === 0 ? startTag.endOffset : undefined);
      const words = (SKIPPED_READ_AS_WORDS.has(name) || !SKIPPED_ELEMENTS.has(name)) && hasWords(el);
      this.boundary({ kind: 'opaque', partner: -1, words }, { start: startTag.startOffset, end });
      return;
    }

    this.attributes(el);
    if (BLOCK_ELEMENTS.has(name)) {
      this.flush();
      this.children(el, true, () => this.flush());
      return;
    }
    if (VOID_ELEMENTS.has(name)) {
      this.boundary({ kind: 'opaque', partner: -1 }, { start: startTag.startOffset, end: startTag.endOffset });
      return;
    }
    const open = this.boundary({ kind: 'open', partner: -1 }, { start: startTag.startOffset, end: startTag.endOffset });
    const depth = this.openStack.push(open);
    this.children(el, true, () => {
      // A block inside flushed the run: the open tag is in an earlier run and this close has no partner here.
      const stillOpen = this.openStack.length >= depth && this.openStack[depth - 1] === open;
      this.openStack.length = Math.min(this.openStack.length, depth - 1);
      const endTag = loc!.endTag;
      const close = this.boundary({ kind: 'close', partner: stillOpen ? open : -1 }, endTag ? { start: endTag.startOffset, end: endTag.endOffset } : undefined);
      if (stillOpen) this.boundaries[open]!.partner = close;
    });
  }

  private text(node: T.TextNode): void {
    const loc = node.sourceCodeLocation;
    const rcdata = node.parentNode !== null && 'tagName' in node.parentNode && node.parentNode.tagName === 'title';
    const source = loc ? readTextSource(this.html, { start: loc.startOffset, end: loc.endOffset }, node.value, this.inTree, rcdata) : undefined;
    if (source === undefined) {
      // Text the parser moved or merged (foster parenting): its source is not this text alone. Leave it.
      this.flush();
      return;
    }
    // Two text nodes in one slot (text on both sides of an implied element): start a new run.
    if (this.slotRanges[this.slotRanges.length - 1] !== undefined) this.flush();
    source.pieces.forEach((piece, i) => {
      // A tag the parser ignored between words: an opaque token, its bytes kept.
      if (i > 0) this.boundary({ kind: 'opaque', partner: -1 }, source.ignored[i - 1]);
      this.slots[this.slots.length - 1] = piece.value;
      this.slotRanges[this.slotRanges.length - 1] = { start: piece.start, end: piece.end };
    });
  }

  private boundary(boundary: RunBoundary, range: Partial<Range> | undefined): number {
    this.boundaries.push(boundary);
    this.boundaryRanges.push(range);
    this.slots.push('');
    this.slotRanges.push(undefined);
    return this.boundaries.length - 1;
  }

  /** End the current run: make it a unit if it has text to translate. */
  private flush(): void {
    const slots = this.slots;
    const slotRanges = this.slotRanges;
    const boundaries = this.boundaries;
    const boundaryRanges = this.boundaryRanges;
    this.slots = [''];
    this.slotRanges = [undefined];
    this.boundaries = [];
    this.boundaryRanges = [];
    this.openStack = [];
    if (!slots.some((s) => /[^ \t\n\f\r]/.test(s))) return;

    // Where new text for an empty slot goes: right after the tag before it, else right before the next one.
    const targets: (Range | undefined)[] = slots.map((_, i) => {
      if (slotRanges[i] !== undefined) return slotRanges[i];
      const after = i > 0 ? boundaryRanges[i - 1]?.end : undefined;
      const before = i < boundaries.length ? boundaryRanges[i]?.start : undefined;
      const at = after ?? before;
      return at === undefined ? undefined : { start: at, end: at };
    });
    // Source order must follow tree order for splicing; otherwise (a repaired, reordered tree) leave it be.
    let last = 0;
    for (let i = 0; i < slots.length; i++) {
      const t = targets[i];
      if (t !== undefined) {
        if (t.start < last) return;
        last = t.end;
      }
      const b = boundaryRanges[i];
      if (b?.start !== undefined) {
        if (b.start < last) return;
        last = b.end ?? b.start;
      }
    }

    const plan = planRun({ slots, boundaries });
    this.units.push({
      segments: plan.segments,
      replacements: (translations, keepTextNodes) => {
        const next = plan.assemble(translations);
        if (keepTextNodes) keepSlotKinds(next, slots);
        // A slot with nowhere to go hands its text to the nearest slot that has a place.
        for (let i = 0; i < next.length; i++) {
          if (targets[i] !== undefined || next[i] === '') continue;
          const j = nearest(targets, i);
          if (j === undefined) continue;
          next[j] = j < i ? next[j] + next[i] : next[i] + next[j];
          next[i] = '';
        }
        const out: Replacement[] = [];
        next.forEach((text, i) => {
          const target = targets[i];
          if (target === undefined || text === slots[i]) return;
          out.push({ ...target, html: escapeHtmlText(text, this.nbsp) });
        });
        return out;
      },
    });
  }

  private attributes(el: T.Element): void {
    const attrLocations = el.sourceCodeLocation?.attrs;
    if (attrLocations === undefined) return;
    for (const name of TRANSLATED_ATTRIBUTES) {
      const attr = el.attrs.find((a) => a.name === name && a.namespace === undefined);
      const loc = attrLocations[name];
      if (attr === undefined || loc === undefined || !/[^ \t\n\f\r]/.test(attr.value)) continue;
      const source = this.html.slice(loc.startOffset, loc.endOffset);
      const m = /^([^ \t\n\f\r=]+[ \t\n\f\r]*=[ \t\n\f\r]*)("|'|)/.exec(source);
      if (m === null) continue;
      const valueStart = loc.startOffset + m[0].length;
      const valueEnd = m[2] === '' ? loc.endOffset : loc.endOffset - 1;
      const quote: '"' | "'" = m[2] === "'" ? "'" : '"';
      const plan = planRun({ slots: [attr.value], boundaries: [] });
      this.units.push({
        segments: plan.segments,
        replacements: (translations) => {
          const value = plan.assemble(translations)[0]!;
          if (value === attr.value) return [];
          const escaped = escapeHtmlAttribute(value, quote, this.nbsp);
          // An unquoted value gets quotes: the translation may contain spaces.
          return [{ start: valueStart, end: valueEnd, html: m[2] === '' ? `"${escaped}"` : escaped }];
        },
      });
    }
  }
}

/** Whether an element has text with a letter, digit or symbol in it (not only whitespace). */
function hasWords(el: T.Element): boolean {
  const stack: T.ChildNode[] = [...el.childNodes];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeName === '#text' && /[^ \t\n\f\r]/.test((node as T.TextNode).value)) return true;
    if ('childNodes' in node) stack.push(...node.childNodes);
  }
  return false;
}

function nearest<X>(items: readonly X[], i: number, ok: (x: X, j: number) => boolean = (x) => x !== undefined): number | undefined {
  for (let d = 1; d < items.length; d++) {
    if (i - d >= 0 && ok(items[i - d]!, i - d)) return i - d;
    if (i + d < items.length && ok(items[i + d]!, i + d)) return i + d;
  }
  return undefined;
}

const WORDS = /[^ \t\n\f\r]/;
type SlotKind = 'none' | 'space' | 'words';
const kindOf = (s: string): SlotKind => (s === '' ? 'none' : WORDS.test(s) ? 'words' : 'space');

/** Rearrange `next` so each slot has the kind (none / whitespace / words) the original slot had. */
function keepSlotKinds(next: string[], original: readonly string[]): void {
  const kinds = original.map(kindOf);
  const wordSlot = (_: string, j: number): boolean => kinds[j] === 'words';
  for (let i = 0; i < next.length; i++) {
    if (kinds[i] === 'words' || next[i] === original[i]) continue;
    const j = nearest(next, i, wordSlot);
    if (j !== undefined) next[j] = j < i ? next[j] + next[i] : next[i] + next[j];
    next[i] = original[i]!;
  }
  for (let i = 0; i < next.length; i++) {
    if (kinds[i] !== 'words' || WORDS.test(next[i]!)) continue;
    // Borrow the closest word of a neighbour that has two; else a space still makes a text node.
    const j = nearest(next, i, (s, k) => kinds[k] === 'words' && (s.match(/[^ \t\n\f\r]+/g)?.length ?? 0) >= 2);
    if (j === undefined) {
      if (next[i] === '') next[i] = ' ';
      continue;
    }
    const m = j > i ? /^[ \t\n\f\r]*[^ \t\n\f\r]+/.exec(next[j]!)! : /[^ \t\n\f\r]+[ \t\n\f\r]*$/.exec(next[j]!)!;
    next[i] = j > i ? next[i] + m[0] : m[0] + next[i];
    next[j] = j > i ? next[j]!.slice(m[0].length) : next[j]!.slice(0, m.index);
  }
}
