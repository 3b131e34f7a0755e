// A cheap look at an .onnx file before anything loads it: walks the top-level fields of the ModelProto (a few small
// reads, however large the file) so that a truncated copy or a file that is not ONNX at all is reported with where it
// breaks — by `models list`, `models pack`/`import` and the server alike — instead of only as onnxruntime's message
// when the pool loads it. A byte flipped inside the graph is not caught here; `dragoman models verify` hashes.
import { open } from 'node:fs/promises';
import { MODEL, readVarint } from './onnx-proto.ts';

/** Undefined when the file is structurally a whole ModelProto; else what is wrong, in words. */
export async function onnxFileProblem(path: string): Promise<string | undefined> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const head = Buffer.alloc(20);
    let pos = 0;
    let graph = false;
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
      if (wire === 0) {
        const v = varint(head, tag.end, bytesRead);
        if (!v) return truncatedOrBad(path, at, size, bytesRead);
        next = at + v.end;
      } else if (wire === 2) {
        const len = varint(head, tag.end, bytesRead);
        if (!len) return truncatedOrBad(path, at, size, bytesRead);
        next = at + len.end + len.value;
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
      if (no === MODEL.graph && wire === 2) graph = true;
      if (no === MODEL.irVersion && wire === 0) ir = true;
      pos = next;
    }
    if (!graph || !ir) return `${path} is not an ONNX model (no ${graph ? 'ir_version' : 'graph'})`;
    return undefined;
  } finally {
    await file.close();
  }
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
