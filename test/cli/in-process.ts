// The CLI run in this process, as `dragoman ARGS` would run with `env` as its whole environment.
import { main } from '../../src/cli/dispatch.ts';

/** The exit code and what the command wrote to standard output and standard error, lines joined. */
export async function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { env, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
