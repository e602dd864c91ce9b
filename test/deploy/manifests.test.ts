/**
 * What the deployment files promise, checked statically (no Docker or Kubernetes here):
 * the Dockerfile (pinned bases, multi-stage, the bundle, a non-root user, a HEALTHCHECK on
 * /health/live), the k8s manifests (pinned images, probes on /health/live and /health/ready,
 * PodDisruptionBudgets, seccomp and AppArmor relaxed for bubblewrap, memory limits that hold
 * the Lean ceiling of the defaults, API keys from a Secret, slots not above sessions) and
 * NATS's max_payload against the daemon's body limit (issue 24).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { configSchema } from '../../src/config.ts';

const ROOT = path.join(import.meta.dirname, '..', '..');
const read = (p: string) => readFileSync(path.join(ROOT, p), 'utf8');
const defaults = configSchema.parse(JSON.parse(read('config/default.json')));

/** Dockerfile instructions, continuation lines joined, comments dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s+(.*)$/.exec(l)!;
      return { op: m[1]!.toUpperCase(), args: m[2]! };
    });
}

t.test('the Dockerfile: pinned multi-stage build, the bundle, a non-root user, a HEALTHCHECK', async (t) => {
  const ins = instructions(read('Dockerfile'));
  const args = Object.fromEntries(
    ins.filter((i) => i.op === 'ARG' && i.args.includes('=')).map((i) => i.args.split('=', 2) as [string, string]),
  );
  const froms = ins
    .filter((i) => i.op === 'FROM')
    .map((i) => i.args.split(/\s+/)[0]!.replace(/^\$\{(\w+)\}$/, (_, n: string) => args[n] ?? n));
  t.ok(froms.length >= 3, `multi-stage (${froms.length} stages)`);
  for (const f of froms.filter((f) => f.includes(':') || f.includes('@')))
    t.match(f, /(:\d+\.\d+\.\d+[\w.-]*|@sha256:[0-9a-f]{64})$/, `base ${f} pinned to an exact version`);
  t.notOk(
    froms.some(
      (f) =>
        /:latest$/.test(f) ||
        (!f.includes(':') && !f.includes('@') && !ins.some((i) => i.op === 'FROM' && i.args.includes(`AS ${f}`))),
    ),
    'no unpinned or :latest base',
  );
  const users = ins.filter((i) => i.op === 'USER');
  t.ok(users.length > 0, 'a USER instruction');
  t.notMatch(users.at(-1)!.args, /^(root|0)(:|$)/, 'the final user is not root');
  const health = ins.find((i) => i.op === 'HEALTHCHECK');
  t.match(health?.args ?? '', /\/health\/live/, 'HEALTHCHECK on the liveness route');
  t.match(ins.filter((i) => i.op === 'CMD').at(-1)!.args, /dist\/main\.js/, 'runs the bundle');
  t.notMatch(ins.filter((i) => i.op === 'CMD').at(-1)!.args, /tsx/, 'not tsx');
  t.ok(
    ins.some((i) => i.op === 'RUN' && /npm run build/.test(i.args)),
    'builds the bundle in a stage',
  );
  t.ok(
    ins.some((i) => i.op === 'COPY' && /\/usr\/local\/go/.test(i.args)),
    'Go in the Lean stage (landrun)',
  );
  t.match(read('docs/deployment.md'), /## What the image contains/, 'docs/deployment.md says what the image holds');
});

type K8s = {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
};
type Container = {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  livenessProbe?: { httpGet?: { path: string } };
  readinessProbe?: { httpGet?: { path: string } };
  resources?: { limits?: { memory?: string }; requests?: { memory?: string } };
  securityContext?: { seccompProfile?: { type: string }; appArmorProfile?: { type: string } };
};
type PodTemplate = {
  metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Container[] };
};

const docs = (file: string) => parseAllDocuments(read(file)).map((d) => d.toJS() as K8s);
const gib = (q: string) => {
  const m = /^(\d+(?:\.\d+)?)(Gi|Mi)$/.exec(q);
  if (!m) throw new Error(`unexpected quantity ${q}`);
  return Number(m[1]) / (m[2] === 'Mi' ? 1024 : 1);
};

t.test('the k8s manifests: pins, probes, PDBs, bubblewrap, memory, keys from a Secret', async (t) => {
  const all = [...docs('deploy/k8s/lean-tool.yaml'), ...docs('deploy/k8s/nats.yaml')];
  const workloads = all.filter((d) => d.kind === 'Deployment' || d.kind === 'StatefulSet');
  const pdbs = all.filter((d) => d.kind === 'PodDisruptionBudget');
  for (const w of workloads) {
    const tpl = w.spec.template as PodTemplate;
    for (const c of tpl.spec.containers)
      t.match(c.image, /:\d+\.\d+\.\d+[\w.-]*$/, `${w.metadata.name}: image ${c.image} pinned`);
    const selector = (w.spec.selector as { matchLabels: Record<string, string> }).matchLabels;
    t.ok(
      pdbs.some(
        (p) => JSON.stringify((p.spec.selector as { matchLabels: object }).matchLabels) === JSON.stringify(selector),
      ),
      `${w.metadata.name}: a PodDisruptionBudget`,
    );
  }
  const daemon = (name: string) => {
    const w = workloads.find((d) => d.metadata.name === name)!;
    const tpl = w.spec.template as PodTemplate;
    return { tpl, c: tpl.spec.containers.find((c) => c.name === 'daemon')! };
  };
  for (const name of ['lean-tool-front', 'lean-tool-worker']) {
    const { c } = daemon(name);
    t.equal(c.livenessProbe?.httpGet?.path, '/health/live', `${name}: liveness`);
    t.equal(c.readinessProbe?.httpGet?.path, '/health/ready', `${name}: readiness`);
    const keys = c.env?.find((e) => e.name === 'LEAN_TOOL_API_KEYS');
    t.ok(keys?.valueFrom?.secretKeyRef, `${name}: API keys from a Secret`);
    t.notOk(keys?.value, `${name}: no key in the manifest`);
  }
  const { tpl, c } = daemon('lean-tool-worker');
  t.equal(c.securityContext?.seccompProfile?.type, 'Unconfined', 'seccomp lets bubblewrap make user namespaces');
  t.equal(c.securityContext?.appArmorProfile?.type, 'Unconfined', 'so does AppArmor (field)');
  t.equal(
    tpl.metadata.annotations?.['container.apparmor.security.beta.kubernetes.io/daemon'],
    'unconfined',
    '(annotation, before k8s 1.30)',
  );
  // The Lean ceiling of the defaults: every process at the hard RSS cap, plus the daemon.
  const ceiling = (defaults.lean.maxProcesses * defaults.lean.maxRssMb) / 1024;
  const limit = gib(c.resources!.limits!.memory!);
  t.ok(limit >= ceiling + 1, `worker memory limit ${limit} GiB holds ${ceiling} GiB of Lean plus the daemon`);
  t.ok(
    gib(c.resources!.requests!.memory!) >= (defaults.lean.maxSessions * defaults.lean.maxRssMb) / 1024,
    "request holds one environment's sessions",
  );
  const slots = c.env?.find((e) => e.name === 'LEAN_TOOL_WORKER_SLOTS')?.value;
  t.ok(slots === undefined || Number(slots) <= defaults.lean.maxSessions, 'worker slots not above Lean sessions');
});

/** A NATS size ("24MB": NATS reads the suffixes as powers of 1024). */
function natsBytes(s: string): number {
  const m = /^(\d+)\s*(K|KB|M|MB|G|GB)?$/i.exec(s.trim());
  if (!m) throw new Error(`unexpected size ${s}`);
  const unit = (m[2] ?? '').toUpperCase()[0];
  return Number(m[1]) * (unit === 'K' ? 1024 : unit === 'M' ? 1024 ** 2 : unit === 'G' ? 1024 ** 3 : 1);
}

t.test('JetStream storage is capped in the shipped NATS configs, the file store below the volume', async (t) => {
  const nats = docs('deploy/k8s/nats.yaml');
  const k8sConf = (nats.find((d) => d.kind === 'ConfigMap') as unknown as { data: Record<string, string> }).data[
    'nats.conf'
  ]!;
  for (const [where, conf] of [
    ['deploy/nats/nats.conf', read('deploy/nats/nats.conf')],
    ['deploy/k8s/nats.yaml', k8sConf],
  ] as const) {
    for (const cap of ['max_file_store', 'max_memory_store'])
      t.match(conf, new RegExp(`\\b${cap}:\\s*\\d+[KMG]B\\b`), `${where} sets ${cap}`);
  }
  const file = natsBytes(/max_file_store:\s*(\S+?)[,\s}]/.exec(k8sConf)![1]!);
  const volume = JSON.stringify(nats.find((d) => d.kind === 'StatefulSet'));
  const gi = Number(/"storage":"(\d+)Gi"/.exec(volume)![1]);
  t.ok(file < gi * 1024 ** 3, `max_file_store ${file} bytes below the ${gi}Gi volume`);
});

t.test("NATS max_payload carries a job as large as the daemon's body limit", async (t) => {
  const k8sConf = (
    docs('deploy/k8s/nats.yaml').find((d) => d.kind === 'ConfigMap') as unknown as { data: Record<string, string> }
  ).data['nats.conf']!;
  for (const [where, conf] of [
    ['deploy/nats/nats.conf', read('deploy/nats/nats.conf')],
    ['deploy/k8s/nats.yaml', k8sConf],
  ] as const) {
    const m = /^\s*max_payload:\s*(\S+)/m.exec(conf);
    t.ok(m, `${where} sets max_payload`);
    const bytes = natsBytes(m![1]!);
    t.ok(
      bytes >= defaults.server.bodyLimitBytes + 1024,
      `${where}: ${bytes} bytes ≥ body limit ${defaults.server.bodyLimitBytes} + envelope`,
    );
    t.ok(bytes <= 64 * 1024 ** 2, `${where}: within NATS's 64 MB ceiling`);
  }
});
