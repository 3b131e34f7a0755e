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
      const head = await window.at(pos, Math.min(20, top.end - pos));
      const tag = varint(head, 0, head.length);
      if (!tag || tag.value < 8) throw bad(pos);
      const no = Math.floor(tag.value / 8);
      const wire = tag.value % 8;
      let start = pos + tag.end;
      let next: number;
      if (wire === 0) {
        const v = varint(head, tag.end, head.length);
        if (!v) throw bad(pos);
        next = pos + v.end;
      } else if (wire === 2) {
        const len = varint(head, tag.end, head.length);
        if (!len) throw bad(pos);
        start = pos + len.end;
        next = start + len.value;
      } else if (wire === 1 || wire === 5) {
        next = start + (wire === 1 ? 8 : 4);
      } else throw bad(pos);
      if (next <= pos || next > top.end) throw bad(pos);
      if (wire === 2 && (no === GRAPH.input || no === GRAPH.output)) {
        let name: string | undefined;
        try {
          name = strings(fields(await window.bytes(start, next - start)), VALUE_INFO_NAME)[0];
        } catch {
          throw bad(pos);
        }
        (no === GRAPH.input ? inputs : outputs).push(name ?? '');
      }
      pos = next;
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
  const head = Buffer.alloc(20);
  let pos = 0;
  let graph: { start: number; end: number } | undefined;
  let ir = false;
  while (pos < size) {
    const { bytesRead } = await file.read(head, 0, head.length, pos);
    const at = pos;
    const tag = varint(head, 0, bytesRead);
    if (!tag) return `${path} is not an ONNX model (bad field at byte ${at})`;
    const no = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    if (no === 0) return `${path} is not an ONNX model (bad field at byte ${at})`;
    let next: number;
    let value = at; // where a length-delimited field's bytes start
    if (wire === 0) {
      const v = varint(head, tag.end, bytesRead);
      if (!v) return truncatedOrBad(path, at, size, bytesRead);
      next = at + v.end;
    } else if (wire === 2) {
      const len = varint(head, tag.end, bytesRead);
      if (!len) return truncatedOrBad(path, at, size, bytesRead);
      value = at + len.end;
      next = value + len.value;
    } else if (wire === 1 || wire === 5) {
      next = at + tag.end + (wire === 1 ? 8 : 4);
    } else {
      return `${path} is not an ONNX model (protobuf wire type ${wire} at byte ${at})`;
    }
    // A length read as a negative int64 would walk backwards: not a file protobuf wrote.
    if (next <= at) return `${path} is not an ONNX model (bad field at byte ${at})`;
    if (next > size) {
      const what = no === MODEL.graph ? 'graph' : `field ${no}`;
      return `${path} is truncated (an interrupted copy?): its ${what} at byte ${at} runs to byte ${next}, the file has ${size} bytes`;
    }
    if (no === MODEL.graph && wire === 2) graph = { start: value, end: next };
    if (no === MODEL.irVersion && wire === 0) ir = true;
    pos = next;
  }
  if (!graph || !ir) return `${path} is not an ONNX model (no ${graph ? 'ir_version' : 'graph'})`;
  return graph;
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
