// A page's content stream with chosen text taken out: the stream is read operator by operator (strings, arrays,
// dictionaries and inline images skipped as PDF syntax says), the graphics and text state followed far enough to
// know where each text-showing operator (Tj, TJ, ', ") starts on the page and in which fill colour, and the
// operators whose start a predicate claims are cut out of the bytes. Everything else (paths, images, clipping,
// other text) is kept byte for byte; ' and " keep their line move (T*, Tw, Tc) so the text after them stays where
// it was. The paths the stream paints are handed out too (page space), for the table rules among them.

export type Matrix = [number, number, number, number, number, number];

export const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

/** A fill colour as the operator that sets it (`0 g`, `0.2 0.4 0.6 rg`, `0 0 0 1 k`). */
export type Fill = string;

export const BLACK: Fill = '0 g';

/** The device colour space a colour space resource stands for, when it has one. */
export type DeviceSpace = 'gray' | 'rgb' | 'cmyk';

/** A painted path's subpaths, each a list of points in page space ([x0, y0, x1, y1, ...]). */
export interface Painted {
  subpaths: number[][];
  stroke: boolean;
  fill: boolean;
}

export interface ContentHooks {
  /**
   * Whether the text shown at (x, y) in page space, in a font of `size` points (the resource `font`) and the fill
   * colour `fill`, is to be removed.
   */
  remove(x: number, y: number, size: number, font: string, fill: Fill): boolean;
  /** A form XObject (or image) drawn by `Do` under `ctm`, in the fill colour `fill`. */
  draw?(name: string, ctm: Matrix, fill: Fill): void;
  /** A path stroked or filled (only walks that ask for paths pay for following them). */
  paint?(path: Painted): void;
  /** The device space of the colour space resource `name` (`cs` operands other than the Device* names). */
  colorSpace?(name: string): DeviceSpace | undefined;
}

const DEVICE: Record<string, DeviceSpace> = { '/DeviceGray': 'gray', '/G': 'gray', '/DeviceRGB': 'rgb', '/RGB': 'rgb', '/DeviceCMYK': 'cmyk', '/CMYK': 'cmyk' };
const COMPONENTS: Record<DeviceSpace, number> = { gray: 1, rgb: 3, cmyk: 4 };
const SETTER: Record<DeviceSpace, string> = { gray: 'g', rgb: 'rg', cmyk: 'k' };
/** A colour's components as a content stream writes them: at most three decimals, within 0..1. */
const component = (v: number) => String(Math.round(Math.min(1, Math.max(0, v)) * 1000) / 1000);
/** The fill operator for `values` in `space`; black for anything else (patterns, separations, indexed colours). */
export function fillOf(space: DeviceSpace | undefined, values: number[]): Fill {
  if (!space || values.length !== COMPONENTS[space]) return BLACK;
  return `${values.map(component).join(' ')} ${SETTER[space]}`;
}
/** Most points a page's paths may hold before the rest are no longer followed (a hostile stream's paths). */
const MAX_POINTS = 100_000;

/** Byte classes as PDF syntax has them: 1 white space, 2 delimiter (tables: every byte of a stream is looked up). */
const CLASS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) CLASS[c] = 1;
for (const c of [0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]) CLASS[c] = 2;
const WS = { has: (c: number) => CLASS[c] === 1 };
const DELIM = { has: (c: number) => CLASS[c] === 2 };
/** A short token's text (operators, names, numbers are a few bytes: cheaper than a Buffer's decoding). */
function tokenText(src: Uint8Array, from: number, to: number): string {
  if (to - from > 16) return Buffer.from(src.buffer, src.byteOffset + from, to - from).toString('latin1');
  let t = '';
  for (let i = from; i < to; i++) t += String.fromCharCode(src[i]!);
  return t;
}
/** A plain decimal number's value (digits, one point, a sign first), or NaN for any other token. */
function numberOf(src: Uint8Array, from: number, to: number): number {
  let i = from;
  let sign = 1;
  if (src[i] === 0x2d || src[i] === 0x2b) sign = src[i++] === 0x2d ? -1 : 1;
  if (i >= to) return Number.NaN;
  let v = 0;
  let scale = 0;
  let digits = 0;
  for (; i < to; i++) {
    const c = src[i]!;
    if (c >= 0x30 && c <= 0x39) {
      v = v * 10 + (c - 0x30);
      if (scale) scale *= 10;
      digits++;
    } else if (c === 0x2e && !scale) scale = 1;
    else return Number.NaN;
  }
  if (digits === 0) return Number.NaN;
  return (sign * v) / (scale || 1);
}

interface Operand {
  start: number;
  value: number | string | undefined;
}

/** Thrown for syntax nested deeper than any real stream has (arrays in arrays...). */
export class ContentTooDeep extends Error {}

const MAX_DEPTH = 64;
const MAX_STACK = 256;

/**
 * The stream without the text-showing operators `hooks.remove` claims, and how many were removed. Bytes past a
 * syntax error are kept as they are (a viewer stops there too).
 */
export function removeText(src: Uint8Array, ctm0: Matrix, hooks: ContentHooks, fill0: Fill = BLACK): { bytes: Uint8Array; removed: number } {
  const cuts: { start: number; end: number; keep: string }[] = [];
  let at = 0;
  const n = src.length;
  let operands: Operand[] = [];
  let ctm: Matrix = ctm0;
  const stack: { ctm: Matrix; fill: Fill; space: DeviceSpace | undefined }[] = [];
  let fill = fill0;
  let space: DeviceSpace | undefined = 'gray';
  // The path under construction (page space), followed only when a hook takes paths.
  const paths = hooks.paint !== undefined;
  let subpaths: number[][] = [];
  let points = 0;
  let tm: Matrix = IDENTITY;
  let tlm: Matrix = IDENTITY;
  let leading = 0;
  let fontSize = 0;
  let fontName = '';

  const skipWs = () => {
    while (at < n) {
      const c = src[at]!;
      if (WS.has(c)) at++;
      else if (c === 0x25) {
        while (at < n && src[at] !== 0x0a && src[at] !== 0x0d) at++;
      } else break;
    }
  };
  const skipString = () => {
    // at is on '('
    let depth = 0;
    while (at < n) {
      const c = src[at++]!;
      if (c === 0x5c) at++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return;
    }
  };
  const skipRegular = () => {
    while (at < n && !WS.has(src[at]!) && !DELIM.has(src[at]!)) at++;
  };
  /** One object from `at` (a number's value, a name's text; undefined for strings, arrays, dictionaries). */
  const object = (depth: number): number | string | undefined => {
    if (depth > MAX_DEPTH) throw new ContentTooDeep('content nested too deeply');
    const c = src[at]!;
    if (c === 0x28) {
      skipString();
      return undefined;
    }
    if (c === 0x3c && src[at + 1] === 0x3c) {
      at += 2;
      for (;;) {
        skipWs();
        if (at >= n) return undefined;
        if (src[at] === 0x3e && src[at + 1] === 0x3e) {
          at += 2;
          return undefined;
        }
        object(depth + 1);
      }
    }
    if (c === 0x3c) {
      while (at < n && src[at] !== 0x3e) at++;
      at++;
      return undefined;
    }
    if (c === 0x5b) {
      at++;
      for (;;) {
        skipWs();
        if (at >= n) return undefined;
        if (src[at] === 0x5d) {
          at++;
          return undefined;
        }
        object(depth + 1);
      }
    }
    if (c === 0x2f) {
      const s = ++at;
      skipRegular();
      return '/' + tokenText(src, s, at);
    }
    if (DELIM.has(c)) {
      at++; // a stray ')', '>', ']', '{', '}': skipped
      return undefined;
    }
    const s = at;
    skipRegular();
    const num = numberOf(src, s, at);
    return Number.isFinite(num) ? num : tokenText(src, s, at);
  };
  const nums = (k: number): number[] | undefined => {
    const last = operands.slice(-k).map((o) => o.value);
    return last.length === k && last.every((v) => typeof v === 'number') ? (last as number[]) : undefined;
  };
  const td = (tx: number, ty: number) => {
    tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
    tm = tlm;
  };
  const show = (start: number, end: number, keep: string) => {
    const m = multiply(tm, ctm);
    const size = fontSize * Math.hypot(m[2], m[3]);
    if (hooks.remove(m[4], m[5], size, fontName, fill)) cuts.push({ start, end, keep });
  };
  const point = (x: number, y: number): [number, number] => [ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]];
  const moveTo = (x: number, y: number) => {
    if (points++ > MAX_POINTS) return;
    subpaths.push(point(x, y));
  };
  const lineTo = (x: number, y: number) => {
    const sub = subpaths[subpaths.length - 1];
    if (!sub || points++ > MAX_POINTS) return;
    sub.push(...point(x, y));
  };
  const paint = (stroke: boolean, filled: boolean, close: boolean) => {
    if (close) for (const sub of subpaths) if (sub.length > 2 && (sub[0] !== sub[sub.length - 2] || sub[1] !== sub[sub.length - 1])) sub.push(sub[0]!, sub[1]!);
    if (subpaths.length) hooks.paint?.({ subpaths, stroke, fill: filled });
    subpaths = [];
  };

  while (at < n) {
    skipWs();
    if (at >= n) break;
    const start = at;
    const c = src[at]!;
    const isOperator = !DELIM.has(c) && !(c >= 0x30 && c <= 0x39) && c !== 0x2b && c !== 0x2d && c !== 0x2e;
    if (!isOperator) {
      const value = object(0);
      operands.push({ start, value });
      if (operands.length > MAX_STACK) operands = operands.slice(-MAX_STACK);
      continue;
    }
    skipRegular();
    const op = tokenText(src, start, at);
    if (op === 'true' || op === 'false' || op === 'null') {
      operands.push({ start, value: undefined });
      continue;
    }
    const first = operands[0]?.start ?? start;
    switch (op) {
      case 'BI': {
        // Inline image: its dictionary, ID, one white-space byte, binary data up to white space + EI + white space.
        const id = indexOfWord(src, 'ID', at);
        if (id < 0) return finish(src, cuts);
        at = id + 3;
        const ei = endOfInlineImage(src, at);
        if (ei < 0) return finish(src, cuts);
        at = ei;
        break;
      }
      case 'q':
        if (stack.length < 1024) stack.push({ ctm, fill, space });
        break;
      case 'Q': {
        const saved = stack.pop();
        if (saved) ({ ctm, fill, space } = saved);
        break;
      }
      case 'g':
      case 'rg':
      case 'k': {
        space = op === 'g' ? 'gray' : op === 'rg' ? 'rgb' : 'cmyk';
        fill = fillOf(space, nums(COMPONENTS[space]) ?? []);
        break;
      }
      case 'cs': {
        const name = operands[operands.length - 1]?.value;
        space = typeof name === 'string' ? (DEVICE[name] ?? hooks.colorSpace?.(name.slice(1))) : undefined;
        // A new colour space starts at its initial colour: black for the device spaces.
        fill = space === 'rgb' ? '0 0 0 rg' : space === 'cmyk' ? '0 0 0 1 k' : BLACK;
        break;
      }
      case 'sc':
      case 'scn': {
        // Components only (a pattern's name among the operands is not a device colour: black).
        const values = operands.map((o) => o.value);
        fill = values.every((v) => typeof v === 'number') ? fillOf(space, values as number[]) : BLACK;
        break;
      }
      case 'm':
      case 'l': {
        if (!paths) break;
        const v = nums(2);
        if (v) (op === 'm' ? moveTo : lineTo)(v[0]!, v[1]!);
        break;
      }
      case 'c':
      case 'v':
      case 'y': {
        // A curve is no rule: its subpath ends here, a new one starts at its end point.
        if (!paths) break;
        const v = nums(2);
        if (v) moveTo(v[0]!, v[1]!);
        break;
      }
      case 're': {
        if (!paths) break;
        const v = nums(4);
        if (v) {
          const [x, y, w, h] = v as [number, number, number, number];
          moveTo(x, y);
          lineTo(x + w, y);
          lineTo(x + w, y + h);
          lineTo(x, y + h);
          lineTo(x, y);
        }
        break;
      }
      case 'h': {
        const sub = subpaths[subpaths.length - 1];
        if (sub && sub.length > 2) sub.push(sub[0]!, sub[1]!);
        break;
      }
      case 'S':
      case 's':
        if (paths) paint(true, false, op === 's');
        break;
      case 'f':
      case 'F':
      case 'f*':
        if (paths) paint(false, true, true);
        break;
      case 'B':
      case 'B*':
      case 'b':
      case 'b*':
        if (paths) paint(true, true, true);
        break;
      case 'n':
        subpaths = [];
        break;
      case 'cm': {
        const v = nums(6);
        if (v) ctm = multiply(v as Matrix, ctm);
        break;
      }
      case 'BT':
        tm = tlm = IDENTITY;
        break;
      case 'Tm': {
        const v = nums(6);
        if (v) tm = tlm = v as Matrix;
        break;
      }
      case 'Td': {
        const v = nums(2);
        if (v) td(v[0]!, v[1]!);
        break;
      }
      case 'TD': {
        const v = nums(2);
        if (v) {
          leading = -v[1]!;
          td(v[0]!, v[1]!);
        }
        break;
      }
      case 'TL': {
        const v = nums(1);
        if (v) leading = v[0]!;
        break;
      }
      case 'Tf': {
        const v = nums(1);
        if (v) fontSize = v[0]!;
        const name = operands[operands.length - 2]?.value;
        if (typeof name === 'string' && name.startsWith('/')) fontName = name.slice(1);
        break;
      }
      case 'T*':
        td(0, -leading);
        break;
      case 'Tj':
      case 'TJ':
        show(first, at, '');
        break;
      case "'":
        td(0, -leading);
        show(first, at, 'T*');
        break;
      case '"': {
        // aw ac string " = aw Tw ac Tc string '
        td(0, -leading);
        const [aw, ac] = operands.slice(-3).map((o) => o.value);
        show(first, at, typeof aw === 'number' && typeof ac === 'number' ? `${aw} Tw ${ac} Tc T*` : 'T*');
        break;
      }
      case 'Do': {
        const name = operands[operands.length - 1]?.value;
        if (typeof name === 'string' && name.startsWith('/')) hooks.draw?.(name.slice(1), ctm, fill);
        break;
      }
      default:
        break;
    }
    operands = [];
  }
  return finish(src, cuts);
}

function finish(src: Uint8Array, cuts: { start: number; end: number; keep: string }[]): { bytes: Uint8Array; removed: number } {
  if (cuts.length === 0) return { bytes: src, removed: 0 };
  const parts: Buffer[] = [];
  let at = 0;
  for (const cut of cuts) {
    parts.push(Buffer.from(src.subarray(at, cut.start)), Buffer.from(cut.keep === '' ? ' ' : ` ${cut.keep} `, 'latin1'));
    at = cut.end;
  }
  parts.push(Buffer.from(src.subarray(at)));
  return { bytes: new Uint8Array(Buffer.concat(parts)), removed: cuts.length };
}

function indexOfWord(src: Uint8Array, word: string, from: number): number {
  const buf = Buffer.from(src.buffer, src.byteOffset, src.byteLength);
  let at = from;
  for (;;) {
    at = buf.indexOf(word, at, 'latin1');
    if (at < 0) return -1;
    const before = buf[at - 1];
    const after = buf[at + word.length];
    if ((before === undefined || WS.has(before)) && (after === undefined || WS.has(after))) return at;
    at += word.length;
  }
}

/** The offset just after an inline image's EI (white space, "EI", then white space or the end). */
function endOfInlineImage(src: Uint8Array, from: number): number {
  const buf = Buffer.from(src.buffer, src.byteOffset, src.byteLength);
  let at = from;
  for (;;) {
    at = buf.indexOf('EI', at, 'latin1');
    if (at < 0) return -1;
    const after = buf[at + 2];
    if (WS.has(buf[at - 1] ?? 0x20) && (after === undefined || WS.has(after))) return at + 2;
    at += 2;
  }
}
