/** Roles and NATS settings from config and environment variables; the default is one machine with no NATS. */
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { effectiveSlots, usesNats } from '../../src/cluster/config.ts';
import { loadConfig } from '../../src/config.ts';

function root(cluster?: object): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lean-tool-cfg-'));
  mkdirSync(path.join(dir, 'config'));
  writeFileSync(path.join(dir, 'config', 'default.json'), JSON.stringify(cluster ? { cluster } : {}));
  return dir;
}

t.test('the default is both roles and no NATS', async (t) => {
  const c = loadConfig({}, root());
  t.equal(c.cluster.role, 'both');
  t.equal(c.cluster.natsUrl, null);
  t.notOk(usesNats(c.cluster));
});

t.test('LEAN_TOOL_ROLE and NATS_URL override the file', async (t) => {
  const c = loadConfig(
    {
      LEAN_TOOL_ROLE: 'worker',
      NATS_URL: 'nats://n1:4222,nats://n2:4222',
      LEAN_TOOL_NODE_ID: 'w-7',
      LEAN_TOOL_WORKER_SLOTS: '4',
      LEAN_TOOL_MAX_SESSIONS: '4',
    },
    root({ role: 'front' }),
  );
  t.equal(c.cluster.role, 'worker');
  t.equal(c.cluster.natsUrl, 'nats://n1:4222,nats://n2:4222');
  t.equal(c.cluster.nodeId, 'w-7');
  t.equal(c.cluster.workerSlots, 4);
  t.ok(usesNats(c.cluster));
});

t.test('a front or worker without NATS, or a bad role, is a clear startup error', async (t) => {
  t.throws(() => loadConfig({ LEAN_TOOL_ROLE: 'front' }, root()), /front role needs a NATS server: set NATS_URL/);
  t.throws(() => loadConfig({}, root({ role: 'worker' })), /worker role needs a NATS server/);
  t.throws(() => loadConfig({ LEAN_TOOL_ROLE: 'boss' }, root()), /LEAN_TOOL_ROLE must be one of front, worker, both/);
  t.throws(() => loadConfig({ LEAN_TOOL_NODE_ID: 'a.b' }, root()), /LEAN_TOOL_NODE_ID/);
  t.throws(
    () => loadConfig({ LEAN_TOOL_WORKER_SLOTS: '0' }, root()),
    /LEAN_TOOL_WORKER_SLOTS must be a positive integer/,
  );
  t.throws(() => loadConfig({}, root({ role: 'both', prefix: 'a.b' })), /invalid configuration/);
});

t.test(
  "a worker's slots follow its Lean session capacity unless set; more slots than sessions is refused",
  async (t) => {
    const derived = loadConfig({ LEAN_TOOL_ROLE: 'worker', NATS_URL: 'nats://n:4222' }, root());
    t.equal(derived.cluster.workerSlots, null, 'unset by default');
    t.equal(effectiveSlots(derived.cluster, derived.lean), derived.lean.maxSessions, 'slots = lean.maxSessions');
    const three = loadConfig(
      { LEAN_TOOL_ROLE: 'worker', NATS_URL: 'nats://n:4222', LEAN_TOOL_MAX_SESSIONS: '3' },
      root(),
    );
    t.equal(effectiveSlots(three.cluster, three.lean), 3);
    // The k8s manifests' old contradiction: 4 slots over 2 sessions.
    t.throws(
      () => loadConfig({ LEAN_TOOL_ROLE: 'worker', NATS_URL: 'nats://n:4222', LEAN_TOOL_WORKER_SLOTS: '4' }, root()),
      /workerSlots \(4\) exceeds the worker's Lean session capacity \(2/,
    );
    t.doesNotThrow(
      () => loadConfig({ LEAN_TOOL_ROLE: 'front', NATS_URL: 'nats://n:4222', LEAN_TOOL_WORKER_SLOTS: '4' }, root()),
      'a front runs no jobs: its slots contradict nothing',
    );
    t.throws(
      () => loadConfig({ LEAN_TOOL_MAX_SESSIONS: 'x' }, root()),
      /LEAN_TOOL_MAX_SESSIONS must be a positive integer/,
    );
  },
);
