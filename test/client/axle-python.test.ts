/**
 * The public AXLE Python client against the daemon (no Lean here): a structural request
 * succeeds, and a Lean-backed one fails at once naming the cause (one request, no retry)
 * instead of being retried for the client's 1800 s window. Runs when /usr/bin/python3 (or $PYTHON) can import
 * the client (AXLE_CLIENT_SRC names a checkout of AxiomMath/axiom-lean-engine, or `axle` is
 * installed) and its dependencies; otherwise skips, saying which is missing.
 */
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';
import { makeApp, TEST_ENV, UNAVAILABLE_ENV } from '../helpers.ts';

const PYTHON = process.env.PYTHON ?? '/usr/bin/python3';
const env = {
  ...process.env,
  PYTHONPATH: [process.env.AXLE_CLIENT_SRC, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
};
const probe = spawnSync(PYTHON, ['-c', 'import aiohttp, requests, tenacity; import axle'], { env, encoding: 'utf8' });
const skip = probe.error
  ? `no Python at ${PYTHON} (${probe.error.message})`
  : probe.status !== 0
    ? `the AXLE client is not importable with ${PYTHON}: ${(probe.stderr.trim().split('\n').at(-1) ?? '').slice(0, 200)} (set AXLE_CLIENT_SRC to a checkout of AxiomMath/axiom-lean-engine; Debian: apt-get install python3-aiohttp python3-requests python3-tenacity)`
    : false;
if (skip) t.comment(`SKIP AXLE Python client: ${skip}`);

t.test('AXLE client: structural request works; no Lean fails at once naming the cause', { skip }, async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const r = await execa(PYTHON, [path.join(PROJECT_ROOT, 'scripts', 'axle-client-check.py'), UNAVAILABLE_ENV], {
    env: { ...env, AXLE_API_URL: url },
    reject: false,
    timeout: 60_000,
  });
  t.equal(r.exitCode, 0, String(r.stderr));
  const out = JSON.parse(String(r.stdout).trim().split('\n').at(-1)!);
  t.equal(out.status, 'healthy');
  t.same(out.theorem2sorry.content, 'theorem a : 1 = 1 := sorry');
  t.equal(out.check.ok, false);
  t.equal(
    out.check.exception,
    'AxleConflictError',
    '409: not retried (AxleIsUnavailable / AxleRateLimitedError would be)',
  );
  t.match(out.check.message, /cannot run Lean: no Lean toolchain found/);
  // At once: the daemon saw the check request once (the client did not retry it), counted, not timed.
  const metrics = (await app.inject({ url: '/metrics' })).body;
  const checks = metrics
    .split('\n')
    .filter((l) => l.startsWith('lean_tool_requests_total{') && l.includes('tool="check"'))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
  t.equal(checks, 1, `one check request reached the daemon (the client's own clock: ${out.check.seconds} s)`);
  t.notMatch(String(r.stderr), /Retrying|retry/i, 'the client logged no retries');
});

// Issue 29: an AXLE user has AXLE_API_KEY exported; with no keys configured here (open mode) it is
// served as a key. Its client's default fan-out (20) of 500 requests sees no 429, with and without a key.
for (const key of ['axle-user-exported-key', undefined]) {
  t.test(
    `AXLE client ${key ? 'with AXLE_API_KEY exported' : 'without a key'}: environments, theorem2sorry 200, 500 requests at its default fan-out with no 429`,
    { skip },
    async (t) => {
      const app = await makeApp();
      t.teardown(() => app.close());
      await app.listen({ host: '127.0.0.1', port: 0 });
      const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
      const clientEnv: NodeJS.ProcessEnv = { ...env, AXLE_API_URL: url };
      delete clientEnv.AXLE_MAX_CONCURRENCY;
      if (key) clientEnv.AXLE_API_KEY = key;
      else delete clientEnv.AXLE_API_KEY;
      const r = await execa(PYTHON, [path.join(PROJECT_ROOT, 'scripts', 'axle-client-fanout.py'), TEST_ENV, '500'], {
        env: clientEnv,
        reject: false,
        timeout: 300_000,
      });
      t.equal(r.exitCode, 0, String(r.stderr).slice(-2000));
      const out = JSON.parse(String(r.stdout).trim().split('\n').at(-1)!);
      t.equal(out.max_concurrency, 20, "the client's default fan-out");
      t.same(out.environments, [TEST_ENV, UNAVAILABLE_ENV], 'environments listed');
      t.match(out.theorem2sorry.content, /theorem a : 1 = 1 := sorry/, 'theorem2sorry answered 200');
      t.match(out.theorem2sorry.request_id, /^[0-9a-f-]{36}$/, 'info.request_id');
      t.same(out.fanout.errors, []);
      t.equal(out.fanout.ok, 500, `all 500 answered (${out.fanout.seconds} s)`);
      t.equal(out.fanout.retries, 0, 'no retry: the daemon never answered 429 (or 503)');
    },
  );
}
