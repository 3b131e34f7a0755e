// deploy/kubernetes held to the image as built: the user it runs as, the port it listens on, the paths its probes
// ask (which the running container answered), its volumes, and the command its init container runs (the import
// that worked through the entrypoint). The read-only root was run for real in serve-checks.ts.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { check, expectThat } from './report.ts';
import { must } from './shell.ts';

const DIR = resolve(import.meta.dirname, '../../deploy/kubernetes');

interface Container {
  args?: string[];
  ports?: { containerPort: number }[];
  env?: { name: string; value?: string }[];
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  startupProbe?: { httpGet: { path: string; port: string } };
  securityContext?: { readOnlyRootFilesystem?: boolean };
  volumeMounts: { name: string; mountPath: string }[];
}

export async function checkManifests(image: string, ulimits: string[]) {
  const deployment = parseYaml(readFileSync(join(DIR, 'deployment.yaml'), 'utf8')) as {
    spec: { template: { spec: { securityContext: { runAsUser: number; runAsGroup: number }; initContainers: Container[]; containers: Container[] } } };
  };
  const config = (parseYaml(readFileSync(join(DIR, 'configmap.yaml'), 'utf8')) as { data: Record<string, string> }).data;
  const pod = deployment.spec.template.spec;
  const main = pod.containers[0]!;
  const init = pod.initContainers[0]!;
  const inspect = JSON.parse((await must('podman', ['image', 'inspect', image])).stdout)[0] as {
    Config: { User: string; ExposedPorts: Record<string, object>; Volumes: Record<string, object>; Env: string[]; Cmd: string[] };
  };
  const imageEnv = Object.fromEntries(inspect.Config.Env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));

  await check('deploy/kubernetes runs as the image user', async () => {
    const ids = (await must('podman', ['run', '--rm', '--runtime', 'runc', '--network', 'none', ...ulimits, '--health-interval', 'disable', '--entrypoint', 'id', image])).stdout.trim();
    const [uid, gid] = [/uid=(\d+)/.exec(ids)![1], /gid=(\d+)/.exec(ids)![1]];
    expectThat(String(pod.securityContext.runAsUser) === uid && String(pod.securityContext.runAsGroup) === gid, `manifest ${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}, image ${ids}`);
    return `${inspect.Config.User} = ${uid}:${gid}`;
  });
  await check('deploy/kubernetes uses the port the image exposes and listens on', () => {
    const exposed = Object.keys(inspect.Config.ExposedPorts).map((p) => Number.parseInt(p, 10));
    expectThat(JSON.stringify(main.ports!.map((p) => p.containerPort)) === JSON.stringify(exposed), `manifest ${JSON.stringify(main.ports)}, image ${exposed.join()}`);
    expectThat(config.DRAGOMAN_PORT === imageEnv.DRAGOMAN_PORT && String(exposed[0]) === imageEnv.DRAGOMAN_PORT, `DRAGOMAN_PORT ${config.DRAGOMAN_PORT} vs image ${imageEnv.DRAGOMAN_PORT}`);
    return `${exposed.join()}/tcp`;
  });
  await check('deploy/kubernetes probes ask what the container answered: /ready, /health', () => {
    expectThat(main.readinessProbe?.httpGet.path === '/ready', `readiness ${main.readinessProbe?.httpGet.path}`);
    expectThat(main.livenessProbe?.httpGet.path === '/health' && main.startupProbe?.httpGet.path === '/health', 'liveness/startup not on /health');
    return 'readiness /ready, liveness and startup /health';
  });
  await check('deploy/kubernetes mounts the image volumes where the image expects them', () => {
    const volumes = Object.keys(inspect.Config.Volumes).sort();
    const mounted = main.volumeMounts.map((m) => m.mountPath);
    for (const v of volumes) expectThat(mounted.includes(v), `${v} not mounted (mounts: ${mounted.join(', ')})`);
    expectThat(config.DRAGOMAN_DATA_DIR === imageEnv.DRAGOMAN_DATA_DIR && config.DRAGOMAN_MODELS_DIR === imageEnv.DRAGOMAN_MODELS_DIR, 'data/models folders differ from the image');
    expectThat(init.volumeMounts.some((m) => m.mountPath === imageEnv.DRAGOMAN_MODELS_DIR), 'the init container does not mount the models folder');
    return `${volumes.join(', ')}; root read-only: ${main.securityContext?.readOnlyRootFilesystem}`;
  });
  await check('deploy/kubernetes serves with the image command and imports models as the test did', () => {
    expectThat(JSON.stringify(main.args) === JSON.stringify(inspect.Config.Cmd), `args ${JSON.stringify(main.args)}, image CMD ${JSON.stringify(inspect.Config.Cmd)}`);
    expectThat(init.args?.[0] === 'models' && init.args[1] === 'import', `init args ${JSON.stringify(init.args)}`);
    return `${JSON.stringify(main.args)}; init ${JSON.stringify(init.args)}`;
  });
}
