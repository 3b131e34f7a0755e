// deploy/kubernetes: every manifest parses, and the Deployment has what the scale-out needs (probes on /ready
// and /health, resources, non-root, read-only root, the database URL from the Secret, models from a pack).
// kubeconform is not installable here (neither Debian nor npm has it, no other network): this test is the check.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/env.ts';

const DIR = resolve(import.meta.dirname, '../../deploy/kubernetes');

type Doc = any;

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const docs: Doc[] = files.flatMap((f) => {
  const parsed = parseAllDocuments(readFileSync(join(DIR, f), 'utf8'));
  for (const d of parsed) if (d.errors.length) throw new Error(`${f}: ${d.errors[0]!.message}`);
  return parsed.map((d) => ({ ...d.toJS(), __file: f }));
});
const byKind = (kind: string): Doc[] => docs.filter((d) => d.kind === kind);
const one = (kind: string): Doc => {
  const found = byKind(kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};

describe('deploy/kubernetes', () => {
  it('every file parses into resources with apiVersion, kind and name; kustomization lists them all', () => {
    for (const d of docs) {
      if (d.kind === 'Kustomization') continue;
      expect(d.apiVersion, d.__file).toBeTruthy();
      expect(d.metadata?.name, d.__file).toMatch(/^[a-z0-9-]+$/);
    }
    const k = one('Kustomization');
    expect([...k.resources].sort()).toEqual(files.filter((f) => f !== 'kustomization.yaml').sort());
    for (const kind of ['Deployment', 'Service', 'HorizontalPodAutoscaler', 'ConfigMap', 'Secret']) one(kind);
  });

  it('Deployment: probes, resources, non-root, read-only root filesystem', () => {
    const dep = one('Deployment');
    expect(dep.apiVersion).toBe('apps/v1');
    const spec = dep.spec.template.spec;
    expect(dep.spec.selector.matchLabels).toEqual(dep.spec.template.metadata.labels);
    expect(spec.securityContext.runAsNonRoot).toBe(true);
    expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
    const app = spec.containers.find((c: Doc) => c.name === 'dragoman');
    const port = app.ports.find((p: Doc) => p.name === 'http');
    expect(port.containerPort).toBe(8080);
    expect(app.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    expect(app.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    for (const c of [...spec.containers, ...(spec.initContainers ?? [])]) {
      expect(c.securityContext.readOnlyRootFilesystem, c.name).toBe(true);
      expect(c.securityContext.allowPrivilegeEscalation, c.name).toBe(false);
      expect(c.securityContext.capabilities.drop, c.name).toEqual(['ALL']);
      for (const r of ['cpu', 'memory']) {
        expect(c.resources.requests[r], `${c.name} requests.${r}`).toBeTruthy();
        expect(c.resources.limits[r], `${c.name} limits.${r}`).toBeTruthy();
      }
      // Every path the process writes is a volume, since the root is read-only.
      const mounts = c.volumeMounts.map((m: Doc) => m.name);
      for (const m of mounts) expect(spec.volumes.map((v: Doc) => v.name), `${c.name} mounts ${m}`).toContain(m);
      expect(c.volumeMounts.find((m: Doc) => m.mountPath === '/tmp'), `${c.name} /tmp`).toBeTruthy();
    }
  });

  it('the database URL comes from the Secret, settings from the ConfigMap, and they are real settings', () => {
    const dep = one('Deployment');
    const app = dep.spec.template.spec.containers.find((c: Doc) => c.name === 'dragoman');
    const secret = one('Secret');
    const cm = one('ConfigMap');
    const db = app.env.find((e: Doc) => e.name === 'DRAGOMAN_DATABASE_URL');
    expect(db.valueFrom.secretKeyRef).toEqual({ name: secret.metadata.name, key: 'url' });
    expect(secret.stringData.url).toMatch(/^postgres:\/\//);
    expect(app.envFrom).toContainEqual({ configMapRef: { name: cm.metadata.name } });
    // The ConfigMap holds only DRAGOMAN_* settings, and they load (ConfigError otherwise).
    for (const k of Object.keys(cm.data)) expect(k).toMatch(/^DRAGOMAN_/);
    const config = loadConfig({ ...cm.data, DRAGOMAN_DATABASE_URL: secret.stringData.url });
    expect(config).toMatchObject({ host: '0.0.0.0', port: 8080, modelsDir: '/models' });
    expect(config.shutdownTimeoutMs).toBeLessThan(dep.spec.template.spec.terminationGracePeriodSeconds * 1000);
  });

  it('models: an init container imports a pack into the volume the server reads (read-only)', () => {
    const spec = one('Deployment').spec.template.spec;
    const init = spec.initContainers.find((c: Doc) => c.name === 'import-models');
    expect(init.args.slice(0, 2)).toEqual(['models', 'import']);
    expect(init.args.at(-1)).toMatch(/\.tar$/);
    const app = spec.containers.find((c: Doc) => c.name === 'dragoman');
    const modelsMount = (c: Doc) => c.volumeMounts.find((m: Doc) => m.mountPath === '/models');
    expect(modelsMount(init).name).toBe(modelsMount(app).name);
    expect(modelsMount(app).readOnly).toBe(true);
    const packs = spec.volumes.find((v: Doc) => v.name === 'model-packs');
    const pvc = one('PersistentVolumeClaim');
    expect(packs.persistentVolumeClaim.claimName).toBe(pvc.metadata.name);
  });

  it('Service selects the pods; HPA scales the Deployment on CPU; PDB keeps one up', () => {
    const dep = one('Deployment');
    const svc = one('Service');
    expect(svc.spec.selector).toEqual(dep.spec.template.metadata.labels);
    expect(svc.spec.ports[0].targetPort).toBe('http');
    const hpa = one('HorizontalPodAutoscaler');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: dep.metadata.name });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
    const pdb = one('PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(dep.spec.template.metadata.labels);
    expect(pdb.spec.minAvailable).toBeLessThan(hpa.spec.minReplicas);
    // CPU utilization needs a CPU request to be measured against.
    expect(dep.spec.template.spec.containers[0].resources.requests.cpu).toBeTruthy();
  });
});
