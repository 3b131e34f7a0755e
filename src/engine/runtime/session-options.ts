// onnxruntime session options for a model's sessions: how many threads, and how idle threads wait.
import type ort from 'onnxruntime-node';
import type { SessionSettings } from '../settings.ts';

/**
 * Below this decoder size a step's matrices are too small for a second thread to pay: waking it costs more than it
 * saves (tiny-nllb, 1.6 MB, ran faster on one thread), while OPUS-MT-base (56 MB int8) gains from two.
 */
export const SMALL_DECODER_BYTES = 16 * 1024 * 1024;

/**
 * DRAGOMAN_SPINNING=auto gives a decoder at most this large a second (non-spinning) session for shared machines:
 * OPUS-MT models (56 MB int8, ~200 MB fp32) but not NLLB-200, whose second session would cost gigabytes.
 */
export const MAX_TWIN_DECODER_BYTES = 256 * 1024 * 1024;

/** onnxruntime threads for a model: as configured, or one for a small model when the count is Dragoman's choice. */
export function threadsFor(settings: SessionSettings, decoderBytes: number): number {
  return settings.threadsAuto && decoderBytes < SMALL_DECODER_BYTES ? 1 : settings.intraOpThreads;
}

export function sessionOptions(settings: SessionSettings, threads = settings.intraOpThreads): ort.InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    // Only errors: onnxruntime's warnings are plain text on stderr, and our logs are JSON lines.
    logSeverityLevel: 3,
    // 'run': threads spin between the operators of a run (a decoder step has ~140 with attention fused, ~270
    // without; waking a sleeping thread for each parallel one costs more than the work) and stop when it ends, so the
    // JS between steps and other processes get the cores back. Measured in docs/tuning.md.
    extra: {
      session: {
        intra_op: { allow_spinning: settings.spinning === 'off' ? '0' : '1' },
        inter_op: { allow_spinning: '0' },
        // 'auto' opens its sessions as 'run'; the step model gets a non-spinning twin when the cores are shared.
        force_spinning_stop: settings.spinning === 'run' || settings.spinning === 'auto' ? '1' : '0',
      },
    },
  };
}
