// `--help` / `-h` on every `dragoman` command, run as the real process (bin/dragoman.js, what `npx dragoman` runs), and
// checked against the usage README.md documents, so the help, the parser and the README cannot drift apart.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(REPO_ROOT, 'bin', 'dragoman.js');
const exec = promisify(execFile);

// A help request touches neither folder (checked after each command's help).
const dir = mkdtempSync(join(tmpdir(), 'dragoman-help-'));
const env = {
  ...process.env,
  DRAGOMAN_DATA_DIR: join(dir, 'data'),
  DRAGOMAN_MODELS_DIR: join(dir, 'models'),
  DRAGOMAN_PORT: '0',
};
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function dragoman(...args: string[]): Promise<Ran> {
  // A help that is ignored could start the server: the timeout turns that into a failure (code null), not a hang.
  const options = { cwd: dir, env, timeout: 60_000 };
  return exec(process.execPath, [BIN, ...args], options).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: Ran) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/**
 * The same command through the dispatcher in this process (what bin/dragoman.js calls, with the output captured):
 * each help is run once as the real process above and its other spellings here, which the process's start-up
 * (seconds under tsx) need not be paid for again.
 */
async function inProcess(...args: string[]): Promise<Ran> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { env, out: (l) => void (stdout += `${l}\n`), err: (l) => void (stderr += `${l}\n`) });
  return { code, stdout, stderr };
}

/** The flags of a usage line: `--plan`, `-o`, ... */
function flagsIn(line: string): string[] {
  return [...line.matchAll(/(?:^|[\s[])(--[a-z][a-z-]*|-[a-z])(?=[\s\]]|$)/g)].map((m) => m[1]!).sort();
}

// Every command and the flags README.md documents for it (checked against README itself below).
const COMMANDS: Record<string, string[]> = {
  serve: [],
  usage: ['--json', '--key', '--month'],
  'keys create': ['--email', '--json', '--monthly-chars', '--name', '--plan', '--rpm'],
  'keys list': ['--json'],
  'keys revoke': [],
  'keys set-plan': [],
  'keys set-limits': ['--monthly-chars', '--rpm'],
  'plans list': ['--json'],
  'plans set': ['--monthly-chars', '--rpm'],
  'models list': ['--json'],
  'models pull': ['--force', '--name', '--precision', '--revision'],
  'models pack': ['-o'],
  'models import': ['--force'],
  'models verify': [],
};

/** README's usage lines: the operator commands block (`npx dragoman ...`) and the models table. */
function readmeFlags(): Map<string, Set<string>> {
  const documented = new Map<string, Set<string>>();
  for (const line of readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n')) {
    const m =
      /^npx dragoman ((?:keys|plans|models) [a-z-]+|usage|serve)(.*)$/.exec(line) ?? /^\| `dragoman (models [a-z-]+)([^`]*)`/.exec(line);
    if (!m) continue;
    const flags = documented.get(m[1]!) ?? new Set<string>();
    for (const f of flagsIn(m[2]!.replace(/#.*/, '').replace(/\\\|/g, '|'))) flags.add(f);
    documented.set(m[1]!, flags);
  }
  return documented;
}

describe('dragoman <command> --help / -h', () => {
  it('the table above is what README.md documents', () => {
    const documented = readmeFlags();
    // serve has no usage line in README (npm start runs it); every other command does.
    expect([...documented.keys()].sort()).toEqual(Object.keys(COMMANDS).filter((c) => c !== 'serve').sort());
    for (const [command, flags] of documented) expect([...flags].sort(), command).toEqual(COMMANDS[command]);
  });

  for (const [command, flags] of Object.entries(COMMANDS)) {
    it(`${command}: --help and -h print its usage with every documented flag, exit 0`, async () => {
      const [long, short] = [await dragoman(...command.split(' '), '--help'), await inProcess(...command.split(' '), '-h')];
      for (const r of [long, short]) {
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      }
      expect(short.stdout).toBe(long.stdout);
      const usage = long.stdout.split('\n')[0]!;
      expect(usage).toMatch(new RegExp(`^usage: dragoman ${command}( |$)`));
      expect(flagsIn(usage)).toEqual(flags);
      // Each flag is also explained on a line of its own, and so is the help itself.
      for (const flag of [...flags, '--help']) expect(long.stdout).toMatch(new RegExp(`^  (-[a-z], )?${flag}\\b.*\\S`, 'm'));
      // Only the help: no database, no models folder, no server (which would create the data folder).
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('the defaults README documents are in the help', async () => {
    expect((await inProcess('models', 'pull', '--help')).stdout).toMatch(/--precision int8\|fp32\|int4\|auto .*default: DRAGOMAN_PRECISION, int8/);
    expect((await inProcess('usage', '-h')).stdout).toMatch(/--month YYYY-MM .*default: the current one, UTC/);
    expect((await inProcess('serve', '-h')).stdout).toMatch(/DRAGOMAN_HOST:DRAGOMAN_PORT \(default 127\.0\.0\.1:8080\)/);
    expect((await inProcess('models', 'pack', '-h')).stdout).toMatch(/^ {2}-o, --output FILE\.tar +the archive to write \(required\)$/m);
  });

  for (const group of ['keys', 'plans', 'models']) {
    it(`${group}: --help, -h and help list each subcommand's usage line, exit 0`, async () => {
      const runs = [await dragoman(group, '--help'), await inProcess(group, '-h'), await inProcess(group, 'help'), await inProcess('help', group)];
      for (const r of runs) {
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(runs[0]!.stdout);
      }
      for (const sub of Object.keys(COMMANDS).filter((c) => c.startsWith(`${group} `))) {
        const line = runs[0]!.stdout.split('\n').find((l) => l.startsWith(`  dragoman ${sub} `) || l === `  dragoman ${sub}`);
        expect(line, sub).toBeDefined();
        expect(flagsIn(line!), sub).toEqual(COMMANDS[sub]);
      }
      // Without a subcommand the help is still printed, but it is a usage error.
      expect((await inProcess(group)).code).toBe(2);
    });
  }

  it('the top level: --help, -h and help, exit 0; --version prints package.json version', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const r = flag === '--help' ? await dragoman(flag) : await inProcess(flag);
      expect(r.code).toBe(0);
      for (const c of ['serve', 'keys', 'plans', 'usage', 'models']) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
      expect(r.stdout).toContain('dragoman --version');
    }
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const v = await dragoman('--version');
    expect(v).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    // Only the long form: -v stays an unknown command.
    expect(await inProcess('-v')).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown command "-v"') });
  });

  it('as a newcomer runs it from a clone: npx dragoman serve --help and npx dragoman --version', async () => {
    const npx = (...args: string[]) => exec('npx', ['--no-install', 'dragoman', ...args], { cwd: REPO_ROOT, env, timeout: 60_000 });
    expect((await npx('serve', '--help')).stdout).toMatch(/^usage: dragoman serve\n/);
    expect((await npx('--version')).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('an unknown option still exits 2 with the parser message, then the usage line', async () => {
    const serve = await dragoman('serve', '--bogus');
    expect(serve.code).toBe(2);
    expect(serve.stderr).toBe("dragoman: Unknown option '--bogus'\nusage: dragoman serve\n");
    const create = await inProcess('keys', 'create', '--plan', 'free', '--bogus');
    expect(create.code).toBe(2);
    expect(create.stderr).toMatch(/^dragoman: Unknown option '--bogus'.*\nusage: dragoman keys create --plan /);
    const pack = await inProcess('models', 'pack', 'x', '-x');
    expect(pack.code).toBe(2);
    expect(pack.stderr).toMatch(/^dragoman: Unknown option '-x'.*\nusage: dragoman models pack NAME\.\.\. -o FILE\.tar\n$/);
    expect(create.stdout + serve.stdout + pack.stdout).toBe('');
  });
});
