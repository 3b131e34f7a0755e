// Bounded LRU of finished translations, keyed by model, direction, search settings and segment. Search here is
// deterministic (greedy / beam, no sampling), so a hit is what the model would produce again.
export class TranslationCache<V> {
  private readonly map = new Map<string, V>();
  hits = 0;
  misses = 0;

  constructor(private readonly capacity: number) {}

  static key(model: string, source: string, target: string, beams: number, alternatives: number, segment: string): string {
    return `${model}\u0000${source}>${target}\u0000${beams}/${alternatives}\u0000${segment}`;
  }

  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key); // re-insert: Map keeps insertion order, so the first key is the least recently used
    this.map.set(key, v);
    return v;
  }

  set(key: string, value: V): void {
    if (this.capacity <= 0) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  get size(): number {
    return this.map.size;
  }
}
