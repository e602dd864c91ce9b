/**
 * The `info` provenance (src/envs/provenance.ts): AXLE's `_executor_*` names, the daemon's commit
 * from LEAN_TOOL_COMMIT or the checkout, the environment's toolchain and revision, made once per
 * environment.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { daemonCommit, provenanceOf, ProvenanceTable } from '../../src/envs/provenance.ts';

const SHA = '0123456789abcdef0123456789abcdef01234567';

t.test('the commit: LEAN_TOOL_COMMIT when it is one, else the checkout, else null', async (t) => {
  t.equal(daemonCommit({ LEAN_TOOL_COMMIT: SHA.toUpperCase() }), SHA, 'given, in lower case');
  t.equal(daemonCommit({ LEAN_TOOL_COMMIT: 'main' }), null, 'not a full commit: null, never passed on');
  const outside = mkdtempSync(path.join(os.tmpdir(), 'no-checkout-'));
  t.equal(daemonCommit({}, outside), null, 'no checkout: null');
  const here = daemonCommit({});
  // The tests usually run in a git checkout; a copy without .git gives null.
  t.ok(here === null || /^[0-9a-f]{40}$/.test(here), `the checkout's HEAD: ${here}`);
});

t.test("AXLE's three names, then the environment's facts; members are the object's JSON", async (t) => {
  const p = provenanceOf(
    { lean_toolchain: 'leanprover/lean4:v4.33.0', revision: 'v4.33.0' },
    { commit: SHA, imageId: null },
  );
  t.same(Object.keys(p.info), [
    '_executor_commit_sha',
    '_executor_docker_image_id',
    '_executor_artifact_sha256',
    '_executor_lean_toolchain',
    '_executor_revision',
  ]);
  t.same(JSON.parse(`{${p.members}}`), p.info);
  t.equal(p.info._executor_lean_toolchain, 'leanprover/lean4:v4.33.0');
  t.equal(p.info._executor_revision, 'v4.33.0');
});

t.test('made once per environment, the process facts read once', async (t) => {
  let reads = 0;
  const table = new ProvenanceTable({}, () => (reads++, { commit: SHA, imageId: 'sha256:abc' }));
  const env = { name: 'e', lean_toolchain: 'leanprover/lean4:v4.28.0', revision: null };
  t.equal(table.of(env), table.of(env), 'the same object');
  table.of({ ...env, name: 'f' });
  t.equal(reads, 2, 'one read per environment, none per request');
  t.equal(table.of(env).info._executor_docker_image_id, 'sha256:abc');
});

t.test('each host environment gives its own facts (the first one read does not stand for the rest)', async (t) => {
  const env = { name: 'e', lean_toolchain: 'leanprover/lean4:v4.28.0', revision: null };
  const a = new ProvenanceTable({ LEAN_TOOL_COMMIT: SHA, LEAN_TOOL_DOCKER_IMAGE_ID: 'sha256:a' }).of(env).info;
  const b = new ProvenanceTable({ LEAN_TOOL_COMMIT: 'f'.repeat(40), LEAN_TOOL_DOCKER_IMAGE_ID: 'sha256:b' }).of(
    env,
  ).info;
  t.same([a._executor_commit_sha, a._executor_docker_image_id], [SHA, 'sha256:a']);
  t.same([b._executor_commit_sha, b._executor_docker_image_id], ['f'.repeat(40), 'sha256:b']);
});
