// Mutated PDFs, shared by the fuzz suite and bench:hostile: a file cut short, bytes flipped, or an object of one
// file spliced where an object of another was (its offsets no longer true), from a seeded generator so that a
// failing case can be made again.

/** A small deterministic generator. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The "N G obj ... endobj" spans of a file. */
function objects(bytes: Uint8Array): Buffer[] {
  const text = Buffer.from(bytes).toString('latin1');
  return [...text.matchAll(/\d+ \d+ obj[\s\S]*?endobj/g)].map((m) => Buffer.from(m[0], 'latin1'));
}

/** The i-th mutation of one of `sources` (cut, flipped and spliced in turn). */
export function mutatePdf(sources: readonly Uint8Array[], random: () => number, i: number): Uint8Array {
  const base = Buffer.from(sources[Math.floor(random() * sources.length)]!);
  switch (i % 3) {
    case 0:
      return base.subarray(0, Math.floor(random() * base.length));
    case 1: {
      const flips = 1 + Math.floor(random() * 16);
      for (let k = 0; k < flips; k++) base[Math.floor(random() * base.length)]! ^= 1 + Math.floor(random() * 255);
      return base;
    }
    default: {
      const donor = objects(sources[Math.floor(random() * sources.length)]!);
      const own = objects(base);
      if (!donor.length || !own.length) return base;
      const victim = own[Math.floor(random() * own.length)]!;
      const at = base.indexOf(victim);
      return Buffer.concat([base.subarray(0, at), donor[Math.floor(random() * donor.length)]!, base.subarray(at + victim.length)]);
    }
  }
}
