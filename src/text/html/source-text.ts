// Where a text node's characters are in the source. Usually its source range is the text itself (character
// references and CRLF aside), but the parser also ignores some tags between words — `Hello <frameset> world.`,
// `</p2>`, `<head>`, a second `<!doctype>`, `<tr>` or `<tbody>` outside a table, a `<body class=x>` whose only
// effect is to add its attribute to the real body — and then one text node spans them. Those tags are kept
// byte for byte as opaque tokens between the pieces of text, so the words around them are still translated.
import { Token, Tokenizer, TokenizerMode, type DefaultTreeAdapterTypes as T, type TokenHandler } from 'parse5';

export interface TextPiece {
  start: number;
  end: number;
  /** The decoded characters of [start, end), as the parser put them in the text node. */
  value: string;
}

export interface TextSource {
  /** Text between the ignored tags: `pieces.length === ignored.length + 1` (a piece may be empty). */
  pieces: TextPiece[];
  /** Source ranges of the tags (and doctypes) the parser ignored, in order. */
  ignored: { start: number; end: number }[];
}

/**
 * Start offsets of every tag, comment and doctype the tree was built from: a token inside a text node's range
 * that is not among them was ignored by the parser. (A token that is among them means the text node was moved
 * or merged by the parser, as foster parenting does.)
 */
export function treeTokenOffsets(root: T.ParentNode): Set<number> {
  const offsets = new Set<number>();
  const stack: T.ChildNode[] = [...root.childNodes];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.nodeName === '#text') continue;
    const loc = node.sourceCodeLocation;
    if (loc) offsets.add(loc.startOffset);
    if (!('tagName' in node)) continue;
    const el = node as T.Element;
    const endTag = el.sourceCodeLocation?.endTag;
    if (endTag) offsets.add(endTag.startOffset);
    const startTag = el.sourceCodeLocation?.startTag;
    if (startTag) offsets.add(startTag.startOffset);
    stack.push(...el.childNodes);
    if (el.nodeName === 'template') stack.push(...(el as T.Template).content.childNodes);
  }
  return offsets;
}

/**
 * The pieces of text and ignored tags that make up a text node's source range, or undefined when the range
 * holds anything else (a tag or comment that is in the tree, text that does not add up to the node's value).
 * `rcdata`: the node is in a title, where `<b>` is text.
 */
export function readTextSource(html: string, range: { start: number; end: number }, value: string, inTree: ReadonlySet<number>, rcdata: boolean): TextSource | undefined {
  const source = html.slice(range.start, range.end);
  if (source === value) return { pieces: [{ ...range, value }], ignored: [] };

  const pieces: TextPiece[] = [];
  const ignored: { start: number; end: number }[] = [];
  let chars = '';
  let pieceStart = range.start;
  let other = false; // a token of the tree, or a comment
  const character = (t: Token.CharacterToken): void => {
    chars += t.chars;
  };
  const tag = (t: Token.TagToken | Token.DoctypeToken | Token.CommentToken): void => {
    const loc = t.location;
    // `</body>` and `</html>` end their element in the tree, but text after them goes back into the body
    // (`<body>Hello</body> world.`): between words they are kept like an ignored tag.
    const bodyEnd = t.type === Token.TokenType.END_TAG && (t.tagName === 'body' || t.tagName === 'html');
    if (loc === null || t.type === Token.TokenType.COMMENT || (inTree.has(range.start + loc.startOffset) && !bodyEnd)) {
      other = true;
      return;
    }
    pieces.push({ start: pieceStart, end: range.start + loc.startOffset, value: chars });
    ignored.push({ start: range.start + loc.startOffset, end: range.start + loc.endOffset });
    chars = '';
    pieceStart = range.start + loc.endOffset;
  };
  const handler: TokenHandler = {
    onCharacter: character,
    onWhitespaceCharacter: character,
    // The body's insertion mode drops U+0000 from text: so does the value the source is compared with.
    onNullCharacter: () => undefined,
    onStartTag: tag,
    onEndTag: tag,
    onDoctype: tag,
    onComment: tag,
    onEof: () => undefined,
  };
  const tokenizer = new Tokenizer({ sourceCodeLocationInfo: true }, handler);
  if (rcdata) {
    tokenizer.state = TokenizerMode.RCDATA;
    tokenizer.lastStartTagName = 'title';
  }
  tokenizer.write(source, true);
  if (other) return undefined;
  pieces.push({ start: pieceStart, end: range.end, value: chars });
  if (pieces.map((p) => p.value).join('') !== value) return undefined;
  return { pieces, ignored };
}
