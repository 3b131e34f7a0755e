// How much of this process sits on transparent huge pages. The model weights are read whole at every decoder step;
// on 2 MB pages that takes far fewer TLB misses. glibc's malloc asks for them only when GLIBC_TUNABLES holds
// glibc.malloc.hugetlb=1, which Dragoman does not set (no gain measured on greedy decoding, and it fragments under beam load;
// docs/tuning.md): the figure tells whoever sets it whether it took.
import { readFileSync } from 'node:fs';

/** Bytes of anonymous memory on huge pages, or undefined where the kernel does not say (not Linux). */
export function hugePageBytes(): number | undefined {
  try {
    const kb = /AnonHugePages:\s+(\d+) kB/.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
