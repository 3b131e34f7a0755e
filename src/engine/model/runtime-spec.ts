// What a worker is told of a model folder to open its sessions: the files, the family's rules and the decoder's
// dimensions, as model-folder.ts reads them. The pool adds the prepared graphs (pool/protocol.ts).
import type { DecoderDims, GenerationRules } from './family.ts';

/** Everything a worker needs to open one model's ONNX sessions. */
export interface ModelRuntimeSpec {
  name: string;
  encoderPath: string;
  decoderPath: string;
  rules: GenerationRules;
  dims: DecoderDims;
  /** fileStamp (file-stamp.ts) of both files when the folder was read: a worker loading later checks them. */
  stamps: { encoder: string; decoder: string };
}
