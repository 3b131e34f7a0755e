// The ONNX files a loaded model runs, whichever kind it is: what the memory budget weighs, what a worker checks is
// still the file read when the folder was, and what tells a replaced model from the same one.
import type { ModelRuntimeSpec } from './runtime-spec.ts';

export function runtimeFiles(spec: ModelRuntimeSpec): { path: string; stamp: string }[] {
  return spec.kind === 'decoder-only'
    ? [{ path: spec.modelPath, stamp: spec.stamps.model }]
    : [{ path: spec.encoderPath, stamp: spec.stamps.encoder }, { path: spec.decoderPath, stamp: spec.stamps.decoder }];
}
