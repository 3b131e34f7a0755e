// A cheap look at an .onnx file before anything loads it: walks the top-level fields of the ModelProto (a few small
// reads, however large the file) so that a truncated copy or a file that is not ONNX at all is reported with where it
// breaks — by `models list`, `models pack`/`import` and the server alike — instead of only as onnxruntime's message
// when the pool loads it. A byte flipped inside the graph is not caught here; `dragoman models verify` hashes.
// onnxGraphIo also walks the graph's own fields for the inputs and outputs it declares (load-check.ts).
import { open, type FileHandle } from 'node:fs/promises';
import type { GraphIo } from './graph-io.ts';
import { fields, GRAPH, MODEL, readVarint, strings, VALUE_INFO_NAME } from './onnx-proto.ts';

/** Undefined when the file is structurally a whole ModelProto; else what is wrong, in words. */
export async function onnxFileProblem(path: string): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const top = await topLevel(file, path);
    return typeof top === 'string' ? top : undefined;
  } finally {
    await file.close();
  }
}

/**
 * The names of the graph's inputs and outputs, read from the file without loading it: the graph's fields are walked
 * through a small window, so its nodes cost a read per window and its weights are skipped. Throws, naming the file,
 * when onnxFileProblem finds a problem or a field inside the graph does not parse.
 */
export async function onnxGraphIo(path: string): Promise<GraphIo> {
  const file = await open(path, 'r');
  try {
    const top = await topLevel(file, path);
    if (typeof top === 'string') throw new Error(top);
    const window = new Window(file);
    const inputs: string[] = [];
    const outputs: string[] = [];
    const bad = (at: number) => new Error(`${path} is not an ONNX model (bad field at byte ${at}, inside its graph)`);
    for (let pos = top.start; pos < top.end;) {
      const field = readField(await window.at(pos, Math.min(HEAD, top.end - pos)), pos);
      if ('fault' in field || field.next > top.end) throw bad(pos);
      if (field.wire === 2 && (field.no === GRAPH.input || field.no === GRAPH.output)) {
        let name: string | undefined;
        try {
          name = strings(fields(await window.bytes(field.value, field.next - field.value)), VALUE_INFO_NAME)[0];
        } catch {
          throw bad(pos);
        }
        (field.no === GRAPH.input ? inputs : outputs).push(name ?? '');
      }
      pos = field.next;
    }
    return { inputs, outputs };
  } finally {
    await file.close();
  }
}

/** A file read through one reusable buffer: consecutive small fields come from the same read. */
class Window {
  private readonly buf = Buffer.alloc(16 * 1024);
  private start = 0;
  private length = 0;

  constructor(private readonly file: FileHandle) {}

  /** At least `n` bytes from `pos` (fewer only where the file ends), as a view valid until the next call. */
  async at(pos: number, n: number): Promise<Uint8Array> {
    if (pos < this.start || pos + n > this.start + this.length) {
      this.length = (await this.file.read(this.buf, 0, this.buf.length, pos)).bytesRead;
      this.start = pos;
    }
    return this.buf.subarray(pos - this.start, this.length);
  }

  /** Exactly the bytes [pos, pos + n), which the caller knows the file has. */
  async bytes(pos: number, n: number): Promise<Uint8Array> {
    if (n <= this.buf.length) return (await this.at(pos, n)).subarray(0, n);
    const out = Buffer.alloc(n);
    await this.file.read(out, 0, n, pos);
    return out;
  }
}

/** Walks the ModelProto's top-level fields: a problem in words, or where the graph's bytes lie. */
async function topLevel(file: FileHandle, path: string): Promise<string | { start: number; end: number }> {
  const size = (await file.stat()).size;
  const head = Buffer.alloc(HEAD);
  let pos = 0;
  let graph: { start: number; end: number } | undefined;
  let ir = false;
  while (pos < size) {
    const { bytesRead } = await file.read(head, 0, head.length, pos);
    const field = readField(head.subarray(0, bytesRead), pos);
    if ('fault' in field) {
      if (field.fault === 'wire') return `${path} is not an ONNX model (protobuf wire type ${field.wire} at byte ${pos})`;
      if (field.fault === 'short') return truncatedOrBad(path, pos, size, bytesRead);
      return `${path} is not an ONNX model (bad field at byte ${pos})`;
    }
    if (field.next > size) {
      const what = field.no === MODEL.graph ? 'graph' : `field ${field.no}`;
      return `${path} is truncated (an interrupted copy?): its ${what} at byte ${pos} runs to byte ${field.next}, the file has ${size} bytes`;
    }
    if (field.no === MODEL.graph && field.wire === 2) graph = { start: field.value, end: field.next };
    if (field.no === MODEL.irVersion && field.wire === 0) ir = true;
    pos = field.next;
  }
  if (!graph || !ir) return `${path} is not an ONNX model (no ${graph ? 'ir_version' : 'graph'})`;
  return graph;
}

/** Bytes enough for any field's tag and length (two 10-byte varints). */
const HEAD = 20;

/** One protobuf field starting at byte `at`: its number, wire type, where its bytes start and where the next begins. */
interface FieldAt {
  no: number;
  wire: number;
  value: number;
  next: number;
}

/**
 * The field whose first bytes are `head` (up to HEAD of them from byte `at`; fewer where the file or message ends),
 * or why it cannot be one: `short` when a varint runs past `head`, `wire` for a wire type no file protobuf writes
 * (3, 4: groups), `bad` for field number 0 or a length that walks backwards (a negative int64).
 */
function readField(head: Uint8Array, at: number): FieldAt | { fault: 'bad' | 'short' | 'wire'; wire?: number } {
  const tag = varint(head, 0, head.length);
  if (!tag || tag.value < 8) return { fault: 'bad' };
  const no = Math.floor(tag.value / 8);
  const wire = tag.value % 8;
  let value = at + tag.end;
  let next: number;
  if (wire === 0) {
    const v = varint(head, tag.end, head.length);
    if (!v) return { fault: 'short' };
    next = at + v.end;
  } else if (wire === 2) {
    const len = varint(head, tag.end, head.length);
    if (!len) return { fault: 'short' };
    value = at + len.end;
    next = value + len.value;
  } else if (wire === 1 || wire === 5) {
    next = value + (wire === 1 ? 8 : 4);
  } else return { fault: 'wire', wire };
  return next <= at ? { fault: 'bad' } : { no, wire, value, next };
}

function truncatedOrBad(path: string, at: number, size: number, read: number): string {
  return at + read >= size ? `${path} is truncated at byte ${size} (inside the field at byte ${at})` : `${path} is not an ONNX model (bad field at byte ${at})`;
}

/** onnx-proto's varint within buf[start, limit): its value and where it ends, or undefined when it does not end there. */
function varint(buf: Uint8Array, start: number, limit: number): { value: number; end: number } | undefined {
  try {
    const [value, end] = readVarint(buf.subarray(0, limit), start);
    return { value, end };
  } catch {
    return undefined;
  }
}
