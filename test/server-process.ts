// A server running as a process of its own (`dragoman serve` from source or from dist, `npm start`): tests and
// benchmark scripts wait for the line it writes once it accepts connections.
import type { ChildProcess } from 'node:child_process';

export interface Listening {
  url: string;
  /** All the process has written so far, stdout and stderr together, as it is when called. */
  output(): string;
}

/**
 * Resolves at the process's "listening on <url>" line (`line`'s first group is the URL); rejects with what it wrote
 * if it exits first.
 */
export function listening(child: ChildProcess, line = /listening on (https?:\/\/\S+)/): Promise<Listening> {
  let log = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = line.exec(log);
      if (m) resolve({ url: m[1]!, output: () => log });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${log}`)));
  });
}
