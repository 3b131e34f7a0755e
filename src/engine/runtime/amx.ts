// onnxruntime and Intel AMX. The first time a process makes an onnxruntime session, onnxruntime's MLAS asks Linux for
// the AMX tile permission and, once granted, runs every u8×s8 int8 product (all of an int8 model's matrices) on its
// AMX kernel. On the Sapphire Rapids VMs measured (docs/tuning.md) that kernel took about twice
// as long as the AVX512-VNNI one for the decoder's one-row products and won only a few per cent at 32 rows, so by
// default (DRAGOMAN_AMX=off) the engine has that request refused before any session exists: amx-guard/amx_guard.c,
// a seccomp filter for that one arch_prctl call. Integer products are exact on either kernel (same tokens, tested).
import { constants } from 'node:os';
import { createRequire } from 'node:module';
import { cpuHasAmx } from '../graph/cpu-features.ts';

/**
 * off: onnxruntime will not get AMX in this process (the filter is in place, the permission not granted);
 * on: DRAGOMAN_AMX=on, left to onnxruntime; 'no amx': the CPU has none (or not Linux x64), nothing to do;
 * unavailable: the guard is not built or the kernel refused the filter (onnxruntime uses AMX);
 * 'too late': the permission was granted before the engine started (an onnxruntime session made earlier).
 */
export type AmxState = 'off' | 'on' | 'no amx' | 'unavailable' | 'too late';

export interface AmxStatus {
  state: AmxState;
  /** Why, for the start-up log and the benchmark's header. */
  detail: string;
}

interface AmxGuard {
  /** 0 once the seccomp filter is in place for every thread, else an errno. */
  denyTilePermission(): number;
  /** 1 when this process holds the AMX tile permission, 0 when not, -errno when the kernel cannot say. */
  tilePermitted(): number;
  /** The request onnxruntime makes: 0 when granted, else its errno (for the tests). */
  requestTilePermission(): number;
}

/** The compiled guard (npm ci builds it: scripts/build-amx-guard.mjs), or why there is none. */
export function loadAmxGuard(): AmxGuard | string {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `not built for ${process.platform}-${process.arch}`;
  try {
    return createRequire(import.meta.url)('../amx-guard/amx_guard.node') as AmxGuard;
  } catch (err) {
    return `src/engine/amx-guard/amx_guard.node cannot be loaded (${(err as Error).message.split('\n')[0]}): run npm ci (or npm rebuild) with a C compiler`;
  }
}

export function errnoName(code: number): string {
  const name = Object.entries(constants.errno).find(([, v]) => v === code)?.[0];
  return name ?? `errno ${code}`;
}

/** Applies DRAGOMAN_AMX to this process: call before its first onnxruntime session. */
export function applyAmxSetting(allowAmx: boolean, hasAmx = cpuHasAmx()): AmxStatus {
  if (!hasAmx) return { state: 'no amx', detail: 'this CPU has no AMX: onnxruntime uses its AVX512 / AVX2 int8 kernels' };
  if (allowAmx) return { state: 'on', detail: 'DRAGOMAN_AMX=on: onnxruntime runs int8 products on AMX' };
  const guard = loadAmxGuard();
  if (typeof guard === 'string') return { state: 'unavailable', detail: `onnxruntime will use AMX: ${guard}` };
  if (guard.tilePermitted() === 1) {
    return { state: 'too late', detail: 'an onnxruntime session was made in this process before the engine: it uses AMX' };
  }
  const code = guard.denyTilePermission();
  if (code !== 0) return { state: 'unavailable', detail: `onnxruntime will use AMX: the seccomp filter was refused (${errnoName(code)})` };
  return { state: 'off', detail: 'AMX permission refused to this process: onnxruntime runs int8 products on AVX512-VNNI' };
}
