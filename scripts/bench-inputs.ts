// The benchmarks' inputs: a 20-word sentence for latency, and sentences of 8-30 words from a small vocabulary for
// throughput (the same every run: a fixed seed).
export const SENTENCE = 'The old man walked slowly along the quiet river bank while two children played with a red ball nearby.';
const WORDS = 'a man woman child dog walks runs sits near the big small red blue green house street park river with and under over old young happy quiet'.split(' ');
export function sentences(n: number, seed = 1): string[] {
  let x = seed;
  const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, () => {
    const len = 8 + Math.floor(rand() * 23);
    const w = Array.from({ length: len }, () => WORDS[Math.floor(rand() * WORDS.length)]!);
    return `${w.join(' ')}.`.replace(/^./, (c) => c.toUpperCase());
  });
}
