// A command's syntax, declared once: the table its arguments are parsed with is the table its `--help` prints, so
// the usage a user reads cannot drift from what the parser accepts.
import { parseArgs } from 'node:util';
import { CliError, usageError, type CliIo } from './io.ts';

export interface Flag {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder: `N|unlimited`. */
  value?: string;
  /** Shown without brackets; the command itself checks it, with a message that says what to give. */
  required?: boolean;
  /** One line for the help, with the default when there is one. */
  about: string;
}

export interface Syntax<F extends Record<string, Flag> = Record<string, Flag>> {
  /** The words after `dragoman`: `keys create`. */
  command: string;
  /** Positionals as the usage line shows them (`ID PLAN`, `[NAME...]`); without it the command takes none. */
  args?: string;
  /** What the command does, for its help. */
  about: string;
  flags: F;
  /** Lines after the options (what a value means, where a setting comes from). */
  notes?: string[];
}

export type Values<F extends Record<string, Flag>> = {
  [K in keyof F]?: F[K]['type'] extends 'boolean' ? boolean : string;
};

/** `const` keeps each flag's `type` literal, so `values.json` is a boolean and `values.plan` a string. */
export function syntax<const F extends Record<string, Flag>>(s: Syntax<F>): Syntax<F> {
  return s;
}

/**
 * `--help` / `-h` on any command: not an error, but like a usage error it ends the command where the arguments are
 * parsed, so no command can forget it. dispatch.ts prints it on stdout and exits 0.
 */
export class HelpRequest extends Error {
  constructor(readonly text: string) {
    super('help requested');
  }
}

const HELP_FLAG: Flag = { type: 'boolean', short: 'h', about: 'this help' };

/** `--plan PLAN`; `-o FILE` in a usage line, `-o, --output FILE` in the list of options. */
function flagText(name: string, f: Flag, both: boolean): string {
  const names = !f.short ? `--${name}` : both ? `-${f.short}, --${name}` : `-${f.short}`;
  return f.value ? `${names} ${f.value}` : names;
}

/** `dragoman keys create --plan PLAN [--name N] ...`: positionals first, then the flags in their table's order. */
export function usageLine(s: Syntax): string {
  const flags = Object.entries(s.flags).map(([name, f]) => {
    const text = flagText(name, f, false);
    return f.required ? text : `[${text}]`;
  });
  return ['dragoman', s.command, s.args, ...flags].filter(Boolean).join(' ');
}

export function helpText(s: Syntax): string {
  const rows = [...Object.entries(s.flags), ['help', HELP_FLAG] as const].map(
    ([name, f]) => [flagText(name, f, true), f.about + (f.required ? ' (required)' : '')] as const,
  );
  const width = Math.max(...rows.map(([left]) => left.length));
  return [
    `usage: ${usageLine(s)}`,
    '',
    s.about,
    '',
    'options:',
    ...rows.map(([left, about]) => `  ${left.padEnd(width)}  ${about}`),
    ...(s.notes?.length ? ['', ...s.notes] : []),
  ].join('\n');
}

/** A bad argument of this command: the message, then its usage line. */
export function misuse(s: Syntax, message: string): CliError {
  return usageError(`${message}\nusage: ${usageLine(s)}`);
}

/** Parses `args` by the table; `--help` / `-h` anywhere ends the command with its help (HelpRequest). */
export function parse<const F extends Record<string, Flag>>(s: Syntax<F>, args: string[]): { values: Values<F>; positionals: string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, f] of Object.entries(s.flags)) options[name] = f.short ? { type: f.type, short: f.short } : { type: f.type };
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: s.args !== undefined, strict: true });
  } catch (err) {
    // Node's own message ("Unknown option '--bogus'", "Unexpected argument 'x'"), then what the command accepts.
    throw misuse(s, (err as Error).message);
  }
  if (parsed.values.help) throw new HelpRequest(helpText(s));
  return { values: parsed.values as Values<F>, positionals: parsed.positionals };
}

/** The help of a command with subcommands (`dragoman keys --help`): every subcommand's usage line. */
export function groupHelp(command: string, subs: Syntax[], notes: string[] = []): string {
  return [
    'usage:',
    ...subs.map((s) => `  ${usageLine(s)}`),
    ...notes,
    `"dragoman ${command} COMMAND --help" describes one of them.`,
  ].join('\n');
}

/**
 * The end of every command's subcommand switch: no subcommand prints the help and exits 2; `help`, `--help` and `-h`
 * print it and exit 0; anything else is a usage error naming it.
 */
export function helpOrUnknown(io: CliIo, command: string, sub: string | undefined, help: string): number {
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    io.out(help);
    return sub === undefined ? 2 : 0;
  }
  throw usageError(`unknown subcommand "${command} ${sub}"\n${help}`);
}
