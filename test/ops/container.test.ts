// The container files, checked by structure, fast, in every suite run (hadolint could not be installed: no Debian
// package, no npm registry search): the Dockerfile against the repository (every COPY source exists and is not
// excluded by .dockerignore). The image itself is built and run with podman by `npm run test:container`
// (test/container/run.ts), which CI runs after the suites.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startFakeHub } from '../models-cli/fake-hub.ts';
import { parse as parseYaml } from 'yaml';
import { parseDockerfile, type Stage } from './dockerfile-parse.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const byName = (name: string): Stage => {
  const s = dockerfile.stages.find((st) => st.name === name);
  if (!s) throw new Error(`no stage ${name}`);
  return s;
};
const args = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
const runtime = dockerfile.stages.at(-1)!;

function argDefault(name: string): string | undefined {
  const ins = dockerfile.instructions.find((i) => i.keyword === 'ARG' && i.args.startsWith(`${name}=`));
  return ins?.args.slice(name.length + 1).replace(/^"|"$/g, '');
}

function dockerignored(path: string): boolean {
  const patterns = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const whole = path.replace(/^\.\//, '');
  // A pattern without a slash names a top-level entry; one with slashes, that exact path.
  return patterns.some((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(p.includes('/') ? whole : whole.split('/')[0]!));
}

describe('Dockerfile', () => {
  it('is multi-stage on node:24-trixie-slim (Node 24 LTS), the runtime stage last', () => {
    expect(argDefault('NODE_IMAGE')).toBe('node:24-trixie-slim');
    expect(dockerfile.stages.map((s) => [s.base, s.name])).toEqual([
      ['${NODE_IMAGE}', 'build'],
      ['build', 'models'],
      ['${NODE_IMAGE}', 'runtime'],
    ]);
  });

  it('builds the TypeScript and keeps production dependencies only, skipping the onnxruntime CUDA download', () => {
    const build = byName('build');
    const runs = args(build, 'RUN').join('\n');
    expect(runs).toMatch(/npm ci\b/);
    expect(runs).toMatch(/npm run build/);
    expect(runs).toMatch(/npm prune --omit=dev/);
    // package.json's allowScripts, which npm ci reads, denies onnxruntime-node's install script (its CUDA download).
    const { allowScripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
    expect(allowScripts['onnxruntime-node']).toBe(false);
    expect(allowScripts['better-sqlite3']).toBe(true);
    expect(args(build, 'COPY')).toContain('package.json package-lock.json ./');
    // The build script really compiles to dist/, copies the non-TS files the code reads at run time, and bundles the
    // web page's script once (the image then never runs esbuild); the image has the scripts it runs.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json && node scripts/copy-build-assets.mjs && node --import tsx scripts/bundle-page.ts');
    const copies = build.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args).join('\n');
    for (const script of ['scripts/copy-build-assets.mjs', 'scripts/bundle-page.ts']) expect(copies).toContain(script);
    const tsBuild = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(tsBuild.compilerOptions).toMatchObject({ outDir: 'dist', rootDir: 'src', rewriteRelativeImportExtensions: true });
  });

  it('has what the package install script compiles (the AMX guard) before npm ci, and not a local build of it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.install).toBe('node scripts/build-amx-guard.mjs');
    const steps = byName('build').instructions.map((i) => `${i.keyword} ${i.args}`);
    const npmCi = steps.findIndex((x) => /^RUN npm ci\b/.test(x));
    for (const needed of ['scripts/build-amx-guard.mjs', 'src/engine/amx-guard']) {
      const at = steps.findIndex((x) => x.startsWith('COPY ') && x.includes(needed));
      expect(at, needed).toBeGreaterThanOrEqual(0);
      expect(at, needed).toBeLessThan(npmCi);
    }
    expect(dockerignored('src/engine/amx-guard/amx_guard.node')).toBe(true);
  });

  it('bakes models in only when MODELS is given, with dragoman models pull', () => {
    const models = byName('models');
    expect(argDefault('MODELS')).toBe('');
    const run = args(models, 'RUN').join('\n');
    expect(run).toMatch(/for model in \$\{MODELS\}; do/);
    expect(run).toMatch(/node bin\/dragoman\.js models pull "\$\{model\}"/);
    // The token is a build secret, never an ARG/ENV baked into a layer.
    expect(run).toMatch(/--mount=type=secret,id=hf_token/);
    expect(dockerfile.instructions.some((i) => /HF_TOKEN/.test(i.args) && (i.keyword === 'ARG' || i.keyword === 'ENV'))).toBe(false);
    expect(args(runtime, 'COPY')).toContain('--from=models --chown=dragoman:dragoman /models /models');
  });

  it('runs as a non-root user, on 0.0.0.0:8080, with /data and /models volumes', () => {
    const users = args(runtime, 'USER');
    expect(users).toEqual(['dragoman']);
    const userAt = runtime.instructions.findIndex((i) => i.keyword === 'USER');
    expect(runtime.instructions.slice(userAt).some((i) => i.keyword === 'RUN')).toBe(false);
    const env = args(runtime, 'ENV').join(' ');
    expect(env).toMatch(/DRAGOMAN_HOST=0\.0\.0\.0/);
    expect(env).toMatch(/DRAGOMAN_PORT=8080/);
    expect(env).toMatch(/DRAGOMAN_DATA_DIR=\/data/);
    expect(env).toMatch(/DRAGOMAN_MODELS_DIR=\/models/);
    expect(args(runtime, 'EXPOSE')).toEqual(['8080']);
    expect(JSON.parse(args(runtime, 'VOLUME')[0]!)).toEqual(['/data', '/models']);
    expect(args(runtime, 'ENTRYPOINT')).toEqual(['["node", "dist/cli/main.js"]']);
    expect(args(runtime, 'CMD')).toEqual(['["serve"]']);
  });

  it('has a HEALTHCHECK on /health that needs only node', () => {
    const [hc] = args(runtime, 'HEALTHCHECK');
    expect(hc).toMatch(/CMD \["node", "-e", ".*\/health/);
    expect(hc).not.toMatch(/curl|wget/);
    // The check itself is valid JavaScript (a syntax error would mark every container unhealthy).
    const script = JSON.parse(hc!.slice(hc!.indexOf('CMD ') + 4)) as string[];
    expect(() => new Function(script[2]!)).not.toThrow();
  });

  it('needs no network at run time: the runtime stage installs and downloads nothing', () => {
    const runs = args(runtime, 'RUN').join('\n');
    expect(runs).not.toMatch(/npm (ci|install)|apt-get|curl|wget|models pull/);
    expect(dockerfile.instructions.some((i) => i.keyword === 'ADD')).toBe(false);
  });

  it('copies only files that exist in the repository and that .dockerignore lets through', () => {
    const sources = dockerfile.instructions
      .filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='))
      .flatMap((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1));
    expect(sources.length).toBeGreaterThan(5);
    for (const src of sources) {
      expect(existsSync(join(ROOT, src)), src).toBe(true);
      expect(dockerignored(src), `${src} is excluded by .dockerignore`).toBe(false);
    }
    for (const excluded of ['node_modules', 'data', 'models', '.git', 'dist']) expect(dockerignored(excluded)).toBe(true);
  });

  it('follows the hadolint rules we can check without hadolint', () => {
    const runs = dockerfile.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    for (const r of runs.filter((x) => x.includes('apt-get install'))) {
      expect(r).toMatch(/--no-install-recommends/); // DL3015
      expect(r).toMatch(/rm -rf \/var\/lib\/apt\/lists/); // DL3009
      expect(r).toMatch(/apt-get install -y/); // DL3014
    }
    expect(dockerfile.instructions.filter((i) => i.keyword === 'WORKDIR').every((i) => i.args.startsWith('/'))).toBe(true); // DL3000
    expect(dockerfile.instructions.some((i) => i.keyword === 'FROM' && /:latest\b/.test(i.args))).toBe(false); // DL3007
    // Every ignore in the file or in .hadolint.yaml is a rule we have a stated reason for.
    const config = parseYaml(readFileSync(join(ROOT, '.hadolint.yaml'), 'utf8')) as { ignored: string[] };
    expect([...new Set([...dockerfile.hadolintIgnores, ...config.ignored])]).toEqual(['DL3008']);
  });
});

describe('the models stage script', () => {
  // The RUN of the models stage, executed by sh as the builder would, with /models pointed at a temp folder and
  // the hub imitated locally: the loop, its quoting, the optional secret and the failure path are real.
  const script = args(byName('models'), 'RUN')[0]!.replace(/^--mount=\S+\s+/, '');
  const exec = promisify(execFile);

  async function bake(models: string, hubUrl: string) {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-bake-'));
    const env = { ...process.env, MODELS: models, MODELS_PRECISION: 'int8', DRAGOMAN_MODELS_DIR: dir, HF_ENDPOINT: hubUrl };
    const result = await exec('sh', ['-c', script.replaceAll('/models', dir)], { cwd: ROOT, env }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    return { dir, result };
  }

  it('pulls every model named in MODELS, and fails the build when one cannot be pulled', async () => {
    const hub = await startFakeHub({ repos: { 'Xenova/opus-mt-en-de': join(ROOT, 'test/fixtures/models/tiny-marian-en-de') } });
    try {
      const ok = await bake('opus-mt-en-de', hub.url);
      expect(ok.result.code).toBe(0);
      expect(readdirSync(ok.dir)).toEqual(['opus-mt-en-de']);
      expect(ok.result.stdout).toMatch(/opus-mt-en-de\s+marian\s+en → de\s+int8\s+[\d.]+ MB\s+ok/);
      rmSync(ok.dir, { recursive: true, force: true });

      const empty = await bake('', hub.url);
      expect(empty.result.code).toBe(0);
      expect(readdirSync(empty.dir)).toEqual([]);
      rmSync(empty.dir, { recursive: true, force: true });

      const bad = await bake('opus-mt-en-de opus-mt-xx-yy', hub.url);
      expect(bad.result.code).not.toBe(0);
      expect(bad.result.stderr).toMatch(/Xenova\/opus-mt-xx-yy: repository not found/);
      rmSync(bad.dir, { recursive: true, force: true });
    } finally {
      await hub.close();
    }
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as {
    services: Record<string, Record<string, unknown>>;
    volumes: Record<string, unknown>;
  };
  const svc = compose.services.dragoman!;

  it('builds this Dockerfile and publishes 8080', () => {
    expect(svc.build).toMatchObject({ context: '.', args: { MODELS: '' } });
    expect(svc.ports).toEqual(['8080:8080']);
  });

  it('keeps the database and the models on volumes mounted where the image expects them', () => {
    expect(svc.volumes).toEqual(['dragoman-data:/data', 'dragoman-models:/models']);
    expect(Object.keys(compose.volumes)).toEqual(['dragoman-data', 'dragoman-models']);
  });

  it('gives shutdown more time than DRAGOMAN_SHUTDOWN_TIMEOUT_MS', () => {
    const env = svc.environment as Record<string, string>;
    const grace = Number(/^(\d+)s$/.exec(String(svc.stop_grace_period))?.[1]) * 1000;
    expect(grace).toBeGreaterThan(Number(env.DRAGOMAN_SHUTDOWN_TIMEOUT_MS));
  });
});
