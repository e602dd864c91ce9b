/** The CLI against the real daemon on loopback: files, stdin, -o, --json, batch with progress, exit codes. */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, mkdirSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { main, parseArgs } from '../../src/client/cli.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { fixtureFiles } from '../syntax/corpus.ts';
import { makeApp, UNAVAILABLE_ENV } from '../helpers.ts';

function io(env: NodeJS.ProcessEnv, stdin = '') {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdin: () => stdin, stdout: (s: string) => { out.stdout += s; }, stderr: (s: string) => { out.stderr += s; }, env, isTTY: false } };
}

t.test('options come from the tool schema', async (t) => {
  const p = parseArgs(['theorem2sorry', 'f.lean', '--names', 'a,b', '--no-reparse', '--timeout-seconds=30', '--global-options', '{"maxHeartbeats": 0}']);
  t.same(p.fields, { names: ['a', 'b'], reparse: false, timeout_seconds: 30, global_options: { maxHeartbeats: 0 } });
  t.same(parseArgs(['rename', 'f', '--declarations', 'A.x=A.y,b=c']).fields, { declarations: { 'A.x': 'A.y', b: 'c' } });
  t.same(parseArgs(['theorem2sorry', 'f', '--indices', '0,-1']).fields, { indices: [0, -1] });
});

t.test('files, stdin, -o, --json and exit codes', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const env = { SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV, SERVICE_TIMEOUT_SECONDS: '1' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const file = path.join(dir, 'sol.lean');
  writeFileSync(file, 'theorem a : 1 = 1 := rfl\ntheorem b : 2 = 2 := by rfl\n');

  const a = io(env);
  t.equal(await main(['theorem2sorry', file, '--no-reparse'], a.io), 0);
  t.equal(a.out.stdout, 'theorem a : 1 = 1 := sorry\ntheorem b : 2 = 2 := by sorry\n');

  const b = io(env, 'theorem c : 3 = 3 := rfl\n');
  const outFile = path.join(dir, 'problem.lean');
  t.equal(await main(['theorem2sorry', '-', '--no-reparse', '-o', outFile], b.io), 0);
  t.equal(readFileSync(outFile, 'utf8'), 'theorem c : 3 = 3 := sorry\n');
  t.equal(b.out.stdout, '');

  const c = io(env);
  t.equal(await main(['theorem2lemma', file, '--no-reparse', '--json'], c.io), 0);
  t.equal(JSON.parse(c.out.stdout).content, 'lemma a : 1 = 1 := rfl\nlemma b : 2 = 2 := by rfl\n');

  const d = io(env);
  t.equal(await main(['theorem2sorry', file, '--no-reparse', '--names', 'nope'], d.io), 1, 'the tool said not okay');
  t.match(d.out.stderr, /tool: Declaration 'nope' not found/);

  const e = io(env);
  t.equal(await main(['theorem2sorry', file, '--bogus'], e.io), 2, 'usage');
  t.match(e.out.stderr, /theorem2sorry has no option --bogus/);
  t.equal(await main(['theorem2sorry', file, '--names', 'a', '--indices', '0', '--no-reparse'], io(env).io), 2, 'a 400 from the daemon is a usage error');
  t.equal(await main(['theorem2sorry', file], io(env).io), 3, '503 (no Lean) after the retry window: service error');
  t.equal(await main(['theorem2sorry', file, '--no-reparse'], io({ ...env, SERVICE_API_URL: 'http://127.0.0.1:1' }).io), 3, 'unreachable: service error');

  const envs = io(env);
  t.equal(await main(['environments'], envs.io), 0);
  t.match(envs.out.stdout, /lean-missing\tunavailable: no Lean toolchain found/);
});

t.test('batch over a folder of Lean files: progress, outputs, summary', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const env = { SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'batch-'));
  const inputs = path.join(dir, 'in');
  mkdirSync(inputs);
  const picked = fixtureFiles();
  const n = picked.length;
  for (const f of picked) copyFileSync(f, path.join(inputs, path.basename(f)));
  const b = io(env);
  const code = await main(['theorem2sorry', '--batch', inputs, '--no-reparse', '--out-dir', path.join(dir, 'out'), '--concurrency', '4'], b.io);
  t.equal(code, 0);
  t.ok(n >= 5, `${n} fixture files`);
  t.match(b.out.stderr, new RegExp(`\\[#{20}\\] ${n}/${n} done \\(${n} ok, 0 not okay, 0 failed\\), 0 queued`));
  t.match(b.out.stderr, new RegExp(`summary: ${n} inputs, ${n} ok`));
  t.equal(readdirSync(path.join(dir, 'out')).filter((f) => f.endsWith('.lean')).length, n);
  const results = readFileSync(path.join(dir, 'out', 'results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.equal(results.length, n);
  t.ok(results.every((r) => r.status === 'ok'));

  const jsonl = path.join(dir, 'records.jsonl');
  writeFileSync(jsonl, [JSON.stringify({ id: 'r1', content: 'theorem x : True := trivial' }), JSON.stringify({ id: 'r2', content: 'theorem y : True := trivial', names: ['zzz'] })].join('\n'));
  const j = io(env);
  t.equal(await main(['theorem2sorry', '--batch', jsonl, '--no-reparse'], j.io), 1, 'one record not okay');
  t.match(j.out.stderr, /summary: 2 inputs, 1 ok, 1 not okay/);
  t.equal(j.out.stdout.trim().split('\n').length, 2);
});

t.test('the installed bin runs the same CLI (stdin to stdout)', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  // Asynchronously: the daemon under test lives in this process and must keep serving.
  const r = await execa(process.execPath, [path.join(PROJECT_ROOT, 'bin', 'lean-tool.js'), 'theorem2sorry', '-', '--no-reparse'], {
    input: 'theorem a : 1 = 1 := rfl\n', reject: false,
    env: { SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV },
  });
  t.equal(r.exitCode, 0, String(r.stderr));
  t.equal(r.stdout, 'theorem a : 1 = 1 := sorry');
});
