// Dispatch of the `dragoman` command to commands/<name>.ts (main.ts is the entry that calls it). To add a command, add its file and one line to
// COMMANDS; each exports `run(args, io): Promise<exitCode>`.
import { readFileSync } from 'node:fs';
import { CliError, outsideFaultCode, processIo, type CliIo } from './io.ts';
import { HelpRequest } from './syntax.ts';

interface Command {
  run(args: string[], io: CliIo): Promise<number>;
}

// Summaries are repeated here so `dragoman help` does not load every command (serve loads the engine).
const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'run the HTTP server', load: () => import('./commands/serve.ts') },
  keys: { summary: 'create, list and revoke API keys', load: () => import('./commands/keys.ts') },
  plans: { summary: 'show and edit the plans', load: () => import('./commands/plans.ts') },
  usage: { summary: 'characters and requests per key for a month; per-day reports', load: () => import('./commands/usage.ts') },
  audit: { summary: 'who created, changed or revoked which key', load: () => import('./commands/audit.ts') },
  models: { summary: 'install and check models', load: () => import('./commands/models.ts') },
  memories: { summary: "import, export, list and delete a key's translation memories", load: () => import('./commands/memories.ts') },
  translate: { summary: 'translate files or standard input locally', load: () => import('./commands/translate.ts') },
};

async function help(io: CliIo): Promise<void> {
  io.out('usage: dragoman <command> [options]\n\ncommands:');
  for (const [name, c] of Object.entries(COMMANDS)) io.out(`  ${name.padEnd(9)} ${c.summary}`);
  io.out('\n"dragoman <command> --help" describes a command; "dragoman --version" prints the version.');
  io.out('Settings come from DRAGOMAN_* environment variables (see README, Configuration).');
}

/** package.json is two folders up from both src/cli/ and the built dist/cli/ (the image copies it beside dist/). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  // `dragoman help keys [create]` is `dragoman keys [create] --help`.
  if (argv[0] === 'help' && argv.length > 1 && COMMANDS[argv[1]!]) return main([...argv.slice(1), '--help'], io);
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    await help(io);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    io.out(version());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`dragoman: unknown command "${name}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return 2;
  }
  try {
    return await (await command.load()).run(args, io);
  } catch (err) {
    if (err instanceof HelpRequest) {
      io.out(err.text);
      return 0;
    }
    if (err instanceof CliError) {
      io.err(`dragoman: ${err.message}`);
      return err.exitCode;
    }
    const outside = outsideFaultCode(err) !== undefined;
    io.err(`dragoman: ${outside ? (err as Error).message : ((err as Error).stack ?? String(err))}`);
    return 1;
  }
}
