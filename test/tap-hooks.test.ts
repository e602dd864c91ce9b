/**
 * What tap adds to a test process stays cheap (docs/testing.md, "How TypeScript runs in the
 * tests"): tap keeps the plugins `npm ci` built it with, so a fresh clone's first run does not
 * compile tap's Test class again; `@tapjs/typescript`'s hook loads no ts-node; and the worker
 * threads a test starts get none of tap's hooks.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { PROJECT_ROOT } from '../src/config.ts';

const tapConfig = (): { plugin?: string[]; 'test-env'?: string[] } =>
  JSON.parse(readFileSync(`${PROJECT_ROOT}/package.json`, 'utf8')).tap;

t.test('no default plugin is left out: tap would build its Test class again on a fresh clone', async (t) => {
  const removed = (tapConfig().plugin ?? []).filter((p) => p.startsWith('!'));
  t.same(removed, [], 'package.json "tap"."plugin" removes none');
  t.ok(tapConfig()['test-env']?.includes('TAP_TYPE_STRIP_ONLY=1'), "@tapjs/typescript's hook skips ts-node");
});

t.test('this test process loaded no ts-node', async (t) => {
  // The package's files (tap's typescript plugin loads @isaacs/ts-node-temp-fork-for-pr-2009); typescript-eslint's
  // `ts-nodes.js`, loaded by a file sharing the process, is not it.
  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) =>
    /[\\/]node_modules[\\/](?:@isaacs[\\/])?ts-node[^\\/]*[\\/]/.test(k),
  );
  t.same(loaded, []);
});

t.test("a worker thread a test starts gets none of tap's hooks", async (t) => {
  const worker = new Worker("require('node:worker_threads').parentPort.postMessage(process.execArgv)", { eval: true });
  const [argv] = (await new Promise((resolve, reject) => {
    worker.once('message', (m) => resolve([m]));
    worker.once('error', reject);
  })) as [string[]];
  await worker.terminate();
  t.same(
    argv.filter((a) => a.includes('@tapjs/')),
    [],
    `its execArgv: ${argv.join(' ')}`,
  );
});
