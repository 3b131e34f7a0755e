// Opening one model: the encoder, the decoder as prepare.ts made it (prepared here, in memory, when the pool did
// not), onnxruntime's threads for its size, and under DRAGOMAN_SPINNING=auto the step model's non-spinning twin.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import ort from 'onnxruntime-node';
import { graphSettings, prepareDecoder, type PreparedDecoder } from './prepare.ts';
import type { DecoderDims } from '../model/family.ts';
import { assertUnchanged, fileStamp } from '../model/file-stamp.ts';
import { graphIoProblem } from '../model/graph-io.ts';
import type { SessionSettings } from '../settings.ts';
import { CpuContention } from './contention.ts';
import { openDecoder } from './open-decoder.ts';
import { Seq2SeqModel } from './seq2seq.ts';
import { MAX_TWIN_DECODER_BYTES, sessionOptions, threadsFor } from './session-options.ts';
import { StepSessions } from './step-sessions.ts';

/**
 * `candidates`: greedy search's top-k from the decoder (candidatesNeeded of the model's rules), 0 for none.
 * `contention`: the worker's one reading of the machine for DRAGOMAN_SPINNING=auto (else one of the model's own).
 * `eosId`: the model's EOS, for greedy search's Loop (settings.greedyLoop; without it, no loop).
 * `prepared`: the decoder as prepare.ts made it (the pool's workers get it from createEngine); without it, it
 * is prepared here, in memory. `manyScripts`: the family's rule (family.ts), for the output projection's subset.
 */
export async function loadModel(
  encoderPath: string, decoderPath: string, dims: DecoderDims, padId: number, settings: SessionSettings, candidates = 0,
  contention?: CpuContention, eosId?: number, prepared?: PreparedDecoder, manyScripts = false,
) {
  const decoderBytes = statSync(decoderPath).size;
  const stamp = fileStamp(decoderPath);
  const threads = threadsFor(settings, decoderBytes);
  const options = sessionOptions(settings, threads);
  // Each file's problem is reported with that file's path (a folder report must say which one to replace).
  const encoder = await ort.InferenceSession.create(encoderPath, options).catch((err: Error) => {
    throw new Error(`${encoderPath}: onnxruntime cannot load it: ${err.message}`);
  });
  // A valid graph of the wrong kind (the decoder copied over the encoder) would load and fail on every request.
  const problem = graphIoProblem(encoderPath, 'encoder', { inputs: encoder.inputNames, outputs: encoder.outputNames });
  if (problem) {
    await encoder.release();
    throw new Error(problem);
  }
  const graphs = prepared ?? await prepareDecoder({ decoderPath, stamp, dims, padId, eosId, settings: graphSettings(settings, manyScripts) });
  const decoder = await openDecoder(decoderPath, graphs, options, candidates).catch(async (err: Error) => {
    await encoder.release();
    throw err.message.startsWith(decoderPath) ? err : new Error(`${decoderPath}: onnxruntime cannot load it: ${err.message}`);
  });
  // auto: a non-spinning twin of the step model for when the cores are shared. Not for one thread (nothing spins),
  // nor a decoder past MAX_TWIN_DECODER_BYTES (NLLB-200: a second session would be gigabytes): those spin within runs.
  if (settings.spinning !== 'auto' || threads < 2 || decoderBytes > MAX_TWIN_DECODER_BYTES) {
    return new Seq2SeqModel(encoder, decoder, dims, padId, threads);
  }
  const step = decoder.kind === 'split' ? decoder.withPast : decoder.session;
  const rebuild = decoder.kind === 'split' ? decoder.rebuild : async () => {
    assertUnchanged(decoderPath, stamp);
    return new Uint8Array(await readFile(decoderPath));
  };
  const steps = new StepSessions(step, contention ?? new CpuContention(settings.poolThreads || threads), rebuild, {
    spin: options,
    calm: sessionOptions({ ...settings, spinning: 'off' }, threads),
  });
  return new Seq2SeqModel(encoder, decoder, dims, padId, threads, steps);
}
