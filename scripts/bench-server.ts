// The server the load scripts (bench-hostile, bench-soak) run against: `dragoman serve` from source as a process
// of its own, on a data folder of the run's, with an enterprise key made by the CLI before it starts.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { listening } from '../test/server-process.ts';
import { ROOT } from './bench-model-folder.ts';

const FROM_SOURCE = ['--import', 'tsx', 'src/cli/main.ts'];

/**
 * The settings both scripts share: an ephemeral port, `work`/data, the models in `modelsDir`, warnings only, no
 * cache (every request is translated), and no limit on keyless requests (the hostile clients send them back to
 * back, all from this address). `extra` adds or overrides.
 */
export function benchEnv(work: string, modelsDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DRAGOMAN_PORT: '0',
    DRAGOMAN_DATA_DIR: join(work, 'data'),
    DRAGOMAN_MODELS_DIR: modelsDir,
    DRAGOMAN_LOG_LEVEL: 'warn',
    DRAGOMAN_CACHE_SIZE: '0',
    DRAGOMAN_KEYLESS_RPM: 'unlimited',
    ...extra,
  };
}

/** `dragoman keys create --plan enterprise`: the new key's secret. */
export function enterpriseKey(env: NodeJS.ProcessEnv): string {
  const created = spawnSync(process.execPath, [...FROM_SOURCE, 'keys', 'create', '--plan', 'enterprise', '--json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

/** `dragoman serve`, once it listens. */
export async function startServer(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...FROM_SOURCE, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const { url } = await listening(child);
  return { url, child };
}
