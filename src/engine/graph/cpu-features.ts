// What the CPU's flags (Linux /proc/cpuinfo; elsewhere nothing is known) say about onnxruntime's int8 kernels.
import { readFileSync } from 'node:fs';

export function readCpuinfo(): string {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}

/** x64 CPUs whose u8×s8 integer dot product does not saturate (VNNI or AMX): signed-weights.ts is exact there. */
export function cpuHasVnni(cpuinfo = readCpuinfo()): boolean {
  return process.arch === 'x64' && /\b(avx512_vnni|avx_vnni|amx_int8)\b/.test(cpuinfo);
}

/** x64 CPUs with AMX int8 tiles, which onnxruntime's u8×s8 products use once the kernel grants the permission (amx.ts). */
export function cpuHasAmx(cpuinfo = readCpuinfo()): boolean {
  return process.arch === 'x64' && /\bamx_int8\b/.test(cpuinfo) && /\bamx_tile\b/.test(cpuinfo);
}
