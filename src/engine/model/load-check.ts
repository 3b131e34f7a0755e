// What loading a model still requires once readModelFolder found its files in order, checked without loading it, so
// `dragoman models list | pack | import` refuse what the server would refuse: the tokenizer built from the model's
// own files by the same ModelTokenizer.load createEngine calls, and every encoder / decoder graph's declared inputs and
// outputs against the same list seq2seq.ts checks its sessions with (graph-io.ts). Both precisions: a folder is
// packed and imported whole, and DRAGOMAN_PRECISION picks either. Names are read from the .onnx protobuf (a few reads
// per file), not from onnxruntime sessions, so `models list` stays fast on multi-GB models.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { graphIoProblem, type GraphRole } from './graph-io.ts';
import { onnxGraphIo } from './onnx-file-check.ts';
import { ModelTokenizer } from './tokenizer.ts';

/** The graphs of both precisions, as optimum names them (readModelFolder picks one pair of these). */
export const GRAPH_FILES: readonly { file: string; role: GraphRole }[] = ['_quantized', ''].flatMap((suffix) => [
  { file: `onnx/encoder_model${suffix}.onnx`, role: 'encoder' as const },
  { file: `onnx/decoder_model_merged${suffix}.onnx`, role: 'decoder' as const },
]);

/**
 * Undefined when the server would load this folder (call it on one readModelFolder reports ok); else why not, naming
 * the file, in the server's own words. The order is the server's: tokenizer first, then the graphs.
 */
export async function loadProblem(dir: string): Promise<string | undefined> {
  try {
    await ModelTokenizer.load(dir);
  } catch (err) {
    return (err as Error).message;
  }
  for (const { file, role } of GRAPH_FILES) {
    const path = join(dir, file);
    if (!(await stat(path).catch(() => undefined))?.isFile()) continue; // an absent precision: readModelFolder's call
    let problem: string | undefined;
    try {
      problem = graphIoProblem(path, role, await onnxGraphIo(path));
    } catch (err) {
      problem = (err as Error).message; // not a whole ModelProto: onnxGraphIo names the file and where it breaks
    }
    if (problem) return problem;
  }
  return undefined;
}
