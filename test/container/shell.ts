// Running programs for the container test: every command is logged with how long it took; output is captured
// (and kept in the run's log file), never interpreted by a shell.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

let logFile: string | undefined;

/** Where every command and its whole output go (the console shows only what the checks print). */
export function logTo(file: string) {
  logFile = file;
}

export function log(line: string) {
  if (logFile) appendFileSync(logFile, `${line}\n`);
}

export function run(cmd: string, args: string[], options: { input?: string; cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  const started = Date.now();
  log(`$ ${[cmd, ...args].join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('error', (err) => (stderr += String(err)));
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr, ms: Date.now() - started };
      log(`  exit ${result.code} in ${result.ms} ms`);
      if (stdout.trim()) log(stdout.trimEnd().replace(/^/gm, '  | '));
      if (stderr.trim()) log(stderr.trimEnd().replace(/^/gm, '  ! '));
      resolve(result);
    });
    if (options.input !== undefined) {
      child.stdin!.on('error', (err) => (stderr += String(err)));
      child.stdin!.end(options.input);
    }
  });
}

/** run(), failing with the command's own words when it exits non-zero. */
export async function must(cmd: string, args: string[], options: Parameters<typeof run>[2] = {}): Promise<Result> {
  const r = await run(cmd, args, options);
  if (r.code !== 0) {
    const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`${cmd} ${args.slice(0, 3).join(' ')} … exited ${r.code}:\n${tail}`);
  }
  return r;
}

export const podman = (...args: string[]) => run('podman', args);
export const mustPodman = (...args: string[]) => must('podman', args);
