// Glossaries held in memory for one process: `dragoman translate --glossary FILE` uses one through the same book
// and the same constrained decoding as the server's stored glossaries, without a database.
import type { GlossaryStore } from './store.ts';
import type { Glossary } from './types.ts';

export class MemoryGlossaryStore implements GlossaryStore {
  private readonly byId = new Map<string, Glossary>();
  async insert(g: Glossary): Promise<void> {
    this.byId.set(g.id, g);
  }
  async update(g: Glossary): Promise<boolean> {
    if (this.byId.get(g.id)?.owner !== g.owner) return false;
    this.byId.set(g.id, g);
    return true;
  }
  async get(owner: string, id: string): Promise<Glossary | undefined> {
    const g = this.byId.get(id);
    return g?.owner === owner ? g : undefined;
  }
  async list(owner: string): Promise<Glossary[]> {
    return [...this.byId.values()].filter((g) => g.owner === owner);
  }
  async count(owner: string): Promise<number> {
    return (await this.list(owner)).length;
  }
  async delete(owner: string, id: string): Promise<boolean> {
    return (await this.get(owner, id)) !== undefined && this.byId.delete(id);
  }
  async close(): Promise<void> {}
}
