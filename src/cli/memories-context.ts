// A key's translation memories for a command: the server's memory book (src/memories) on the same database, acting
// for the key given by its ID (`dragoman keys list`), so what a command imports the key's requests use at once.
import type { Accounts } from '../accounts/accounts.ts';
import type { Config } from '../config/env.ts';
import { ApiError } from '../errors/api-error.ts';
import { memoryBook, memoryStore, type Memory, type MemoryBook } from '../memories/index.ts';
import type { Storage } from '../storage/index.ts';
import { withAccounts } from './accounts-context.ts';
import { CliError, printable, type CliIo } from './io.ts';

export interface MemoryContext {
  book: MemoryBook;
  /** The key the command acts for: the owner of the memories it sees. */
  owner: string;
  config: Config;
  accounts: Accounts;
}

/** Runs `fn` with the key's memories; an unknown or revoked key, or a refusal of the book (its 400/404), is a CliError. */
export async function withMemories<T>(io: CliIo, keyId: string, fn: (m: MemoryContext) => Promise<T>): Promise<T> {
  return withAccounts(io, async (accounts, config, storage: Storage) => {
    const key = await accounts.store.getKey(keyId);
    if (!key) throw new CliError(`no key with ID "${printable(keyId)}" (see dragoman keys list)`);
    if (key.revokedAt !== null) throw new CliError(`key ${keyId} is revoked: its memories can no longer be used`);
    const store = memoryStore(storage);
    try {
      return await fn({ book: memoryBook(store, config), owner: key.id, config, accounts });
    } catch (err) {
      // The book's refusals are worded for API clients; here they are the user's to fix, said without a stack.
      if (err instanceof ApiError && err.status < 500) throw new CliError(err.message);
      throw err;
    } finally {
      await store.close();
    }
  });
}

/** A memory named by its ID or by its name (a name two memories share must be given as an ID). */
export async function memoryNamed(book: MemoryBook, owner: string, ref: string): Promise<Memory> {
  const all = await book.list(owner);
  const byId = all.find((m) => m.id === ref);
  if (byId) return byId;
  const named = all.filter((m) => m.name === ref);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) throw new CliError(`${named.length} memories are named "${printable(ref)}": give one of their IDs (${named.map((m) => m.id).join(', ')})`);
  throw new CliError(`the key has no memory "${printable(ref)}" (see dragoman memories list)`);
}
