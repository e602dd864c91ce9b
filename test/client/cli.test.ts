/** The CLI against the real daemon on loopback: files, stdin, -o, --json, batch with progress; AXLE's command names, options and exit codes. */
import { execa } from 'execa';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, mkdirSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { main, parseArgs } from '../../src/client/cli.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { fixtureFiles } from '../syntax/corpus.ts';
import { checkResult, contentResult, makeApp, TEST_ENV, UNAVAILABLE_ENV } from '../helpers.ts';
import { captureIo } from '../helpers/cli-io.ts';

const io = captureIo;

t.test('options come from the tool schema', async (t) => {
  const p = parseArgs([
    'theorem2sorry',
    'f.lean',
    '--names',
    'a,b',
    '--no-reparse',
    '--timeout-seconds=30',
    '--global-options',
    '{"maxHeartbeats": 0}',
  ]);
  t.same(p.fields, { names: ['a', 'b'], reparse: false, timeout_seconds: 30, global_options: { maxHeartbeats: 0 } });
  t.same(parseArgs(['rename', 'f', '--declarations', 'A.x=A.y,b=c']).fields, {
    declarations: { 'A.x': 'A.y', b: 'c' },
  });
  t.same(parseArgs(['theorem2sorry', 'f', '--indices', '0,-1']).fields, { indices: [0, -1] });
});

async function daemon(t: Test) {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

t.test('files, stdin, -o, --json; exit 0 whatever the verdict without --strict', async (t) => {
  const url = await daemon(t);
  const env = { SERVICE_API_URL: url, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV, SERVICE_TIMEOUT_SECONDS: '60' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const file = path.join(dir, 'sol.lean');
  writeFileSync(file, 'theorem a : 1 = 1 := rfl\ntheorem b : 2 = 2 := by rfl\n');

  const a = io(env);
  t.equal(await main(['theorem2sorry', file, '--no-reparse'], a.io), 0);
  t.equal(a.out.stdout, 'theorem a : 1 = 1 := sorry\n\ntheorem b : 2 = 2 := sorry\n');

  const b = io(env, 'theorem c : 3 = 3 := rfl\n');
  const outFile = path.join(dir, 'problem.lean');
  t.equal(await main(['theorem2sorry', '-', '--no-reparse', '-o', outFile], b.io), 0);
  t.equal(readFileSync(outFile, 'utf8'), 'theorem c : 3 = 3 := sorry\n');
  t.equal(b.out.stdout, '');
  t.match(b.out.stderr, `Output written to ${outFile}`, 'says where -o wrote (AXLE: "Output written to FILE")');

  const c = io(env);
  t.equal(await main(['theorem2lemma', file, '--no-reparse', '--json'], c.io), 0);
  t.equal(JSON.parse(c.out.stdout).content, 'lemma a : 1 = 1 := rfl\n\nlemma b : 2 = 2 := by rfl\n');

  const d = io(env);
  t.equal(
    await main(['theorem2sorry', file, '--no-reparse', '--names', 'nope'], d.io),
    0,
    'not okay, but without --strict the command did its job',
  );
  t.match(d.out.stderr, /tool: Declaration 'nope' not found/);

  const envs = io(env);
  t.equal(await main(['environments'], envs.io), 0);
  t.match(envs.out.stdout, /lean-missing\tunavailable: no Lean toolchain found/);
});

t.test('exit codes: 1 general, 2 usage and output exists, 3 --strict', async (t) => {
  const url = await daemon(t);
  const env = { SERVICE_API_URL: url, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const file = path.join(dir, 'sol.lean');
  writeFileSync(file, 'theorem a : 1 = 1 := rfl\n');

  const strict = io(env);
  t.equal(
    await main(['theorem2sorry', file, '--no-reparse', '--names', 'nope', '--strict'], strict.io),
    3,
    '--strict and the result is not okay: 3',
  );
  t.equal(await main(['theorem2sorry', file, '--no-reparse', '--strict'], io(env).io), 0, '--strict and okay: 0');

  const e = io(env);
  t.equal(await main(['theorem2sorry', file, '--bogus'], e.io), 2, 'usage');
  t.match(e.out.stderr, /theorem2sorry has no option --bogus/);
  t.equal(
    await main(['theorem2sorry', file, '--names', 'a', '--indices', '0', '--no-reparse'], io(env).io),
    1,
    'a 400 from the daemon: general error',
  );
  const noLean = io(env);
  t.equal(await main(['theorem2sorry', file], noLean.io), 1, 'no Lean (409, permanent): general error');
  t.notMatch(noLean.out.stderr, /; retry \d+ in /, 'answered at once, not retried');
  t.match(noLean.out.stderr, /environment_unavailable \(409\).*cannot run Lean.*"reparse": false/s);
  t.notMatch(noLean.out.stderr, /retry/);
  const missing = io(env);
  t.equal(await main(['theorem2sorry', path.join(dir, 'absent.lean')], missing.io), 1);
  t.match(missing.out.stderr, /no such file: .*absent\.lean/);

  const out = path.join(dir, 'exists.lean');
  writeFileSync(out, 'precious\n');
  const refused = io(env);
  t.equal(await main(['theorem2sorry', file, '--no-reparse', '-o', out], refused.io), 2, 'output exists without -f: 2');
  t.match(refused.out.stderr, `${out} already exists; use -f to overwrite`);
  t.equal(readFileSync(out, 'utf8'), 'precious\n', 'untouched');
  t.equal(await main(['theorem2sorry', file, '--no-reparse', '-o', out, '-f'], io(env).io), 0);
  t.equal(readFileSync(out, 'utf8'), 'theorem a : 1 = 1 := sorry\n', '-f overwrites');
  t.equal(await main(['theorem2sorry', file, '--no-reparse', '--output', out, '--force'], io(env).io), 0, 'long forms');
});

t.test('connection refused: exit 1 within seconds, naming SERVICE_API_URL', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const file = path.join(dir, 'sol.lean');
  writeFileSync(file, 'theorem a : 1 = 1 := rfl\n');
  // A port nothing listens on: bind one, note it, close it.
  const probe = await makeApp();
  await probe.listen({ host: '127.0.0.1', port: 0 });
  const port = (probe.server.address() as { port: number }).port;
  await probe.close();
  const r = io({ SERVICE_API_URL: `http://127.0.0.1:${port}`, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV });
  // It gives up (after the short connect window; the 1800 s retry window would end at tap's timeout).
  t.equal(await main(['theorem2sorry', file, '--no-reparse'], r.io), 1);
  t.match(r.out.stderr, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: connection refused.*SERVICE_API_URL`));
});

t.test("AXLE's command names, global options anywhere, --version, unknown commands", async (t) => {
  t.equal(parseArgs(['repair-proofs', 'f.lean']).tool, 'repair_proofs', 'kebab-case');
  t.equal(parseArgs(['repair_proofs', 'f.lean']).tool, 'repair_proofs', 'snake_case still works');
  t.equal(parseArgs(['extract-decls', 'f.lean']).tool, 'extract_decls');
  const g = parseArgs(['--url', 'http://h:1', '--json', 'theorem2sorry', 'f.lean', '--names', 'a']);
  t.same(
    [g.tool, g.url, g.json, g.positionals, g.fields],
    ['theorem2sorry', 'http://h:1', true, ['f.lean'], { names: ['a'] }],
    'global options before the command',
  );
  const h = parseArgs([
    '--environment',
    'lean-4.28.0',
    '--names',
    'x,y',
    'theorem2sorry',
    'f.lean',
    '--url=http://h:2',
  ]);
  t.same(
    [h.tool, h.url, h.fields, h.positionals],
    ['theorem2sorry', 'http://h:2', { environment: 'lean-4.28.0', names: ['x', 'y'] }, ['f.lean']],
    'tool options before the command too',
  );

  const v = io({});
  t.equal(await main(['--version'], v.io), 0);
  t.match(v.out.stdout, /^lean-tool \d+\.\d+\.\d+\n$/);
  t.equal(await main(['theorem2sorry', '--version'], io({}).io), 0, '--version anywhere');

  const typo = io({});
  t.equal(await main(['theorem2sory', 'f.lean', '--environment', 'lean-4.28.0'], typo.io), 2);
  t.match(
    typo.out.stderr,
    /unknown command 'theorem2sory'; the commands are: .*repair-proofs.*verify-proof.*theorem2sorry.*environments, status/,
  );
  t.notMatch(typo.out.stderr, /has no option/, 'the command is what is wrong, not its options');

  const bare = io({});
  t.equal(await main([], bare.io), 0, 'no command: the help and 0 (AXLE)');
  t.match(bare.out.stdout, /^usage: lean-tool/);
  const help = io({});
  t.equal(await main(['--help'], help.io), 0);
  t.match(
    help.out.stdout,
    /exit codes: 0 done; 1 error; 2 usage, or output file exists without -f; 3 --strict and not okay; 130 interrupted/,
  );
});

t.test('verify-proof STATEMENT PROOF, and --declarations-file', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const stmt = path.join(dir, 'statement.lean');
  const proof = path.join(dir, 'proof.lean');
  writeFileSync(stmt, 'theorem x : 1 = 1 := sorry\n');
  writeFileSync(proof, 'theorem x : 1 = 1 := rfl\n');
  // What each form sends, observed by a tool double in the daemon.
  const seen: Record<string, unknown>[] = [];
  const app = await makeApp({
    tools: {
      verify_proof: {
        needsLean: () => false,
        run: async (req) => {
          seen.push(req);
          return { ...checkResult(req.content), okay: false, failed_declarations: ['x'] };
        },
      },
      rename: {
        needsLean: () => false,
        run: async (req) => {
          seen.push(req);
          return contentResult(req.content);
        },
      },
    },
  });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const env = {
    SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    SERVICE_ENVIRONMENT: TEST_ENV,
  };
  const v = io(env);
  t.equal(await main(['verify-proof', stmt, proof], v.io), 0, 'okay false without --strict: 0');
  t.same([seen[0]!.formal_statement, seen[0]!.content], ['theorem x : 1 = 1 := sorry\n', 'theorem x : 1 = 1 := rfl\n']);
  t.equal(JSON.parse(v.out.stdout).okay, false, 'a verdict tool prints the whole response as JSON (AXLE: json_stdout)');
  t.equal(await main(['verify-proof', stmt, proof, '--strict'], io(env).io), 3, 'okay false with --strict: 3');
  t.equal(
    await main(['verify-proof', stmt, '-', '--strict'], io(env, 'theorem x : 1 = 1 := by simp\n').io),
    3,
    'PROOF from stdin',
  );
  t.equal(seen.at(-1)!.content, 'theorem x : 1 = 1 := by simp\n');
  t.equal(await main(['verify-proof', proof, '--formal-statement', stmt], io(env).io), 0, 'the flag form still works');
  t.equal(seen.at(-1)!.formal_statement, 'theorem x : 1 = 1 := sorry\n');
  t.equal(await main(['verify-proof', stmt], io(env).io), 2, 'one file and no --formal-statement: usage');

  const map = path.join(dir, 'renames.json');
  writeFileSync(map, JSON.stringify({ x: 'y', 'A.b': 'A.c' }));
  t.equal(await main(['rename', proof, '--declarations-file', map], io(env).io), 0);
  t.same(seen.at(-1)!.declarations, { x: 'y', 'A.b': 'A.c' });
  writeFileSync(map, '[1, 2]');
  const bad = io(env);
  t.equal(await main(['rename', proof, '--declarations-file', map], bad.io), 2);
  t.match(bad.out.stderr, /expected a JSON object of old name to new name/);
  t.equal(await main(['theorem2sorry', proof, '--declarations-file', map], io(env).io), 2, 'only rename takes it');
});

t.test('batch over a folder of Lean files: progress, outputs, summary', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const env = {
    SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    SERVICE_ENVIRONMENT: UNAVAILABLE_ENV,
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'batch-'));
  const inputs = path.join(dir, 'in');
  mkdirSync(inputs);
  const picked = fixtureFiles();
  const n = picked.length;
  for (const f of picked) copyFileSync(f, path.join(inputs, path.basename(f)));
  const b = io(env);
  const code = await main(
    ['theorem2sorry', '--batch', inputs, '--no-reparse', '--out-dir', path.join(dir, 'out'), '--concurrency', '4'],
    b.io,
  );
  t.equal(code, 0);
  t.ok(n >= 5, `${n} fixture files`);
  t.match(b.out.stderr, new RegExp(`\\[#{20}\\] ${n}/${n} done \\(${n} ok, 0 not okay, 0 failed\\), 0 queued`));
  t.match(b.out.stderr, new RegExp(`summary: ${n} inputs, ${n} ok`));
  t.equal(readdirSync(path.join(dir, 'out')).filter((f) => f.endsWith('.lean')).length, n);
  const results = readFileSync(path.join(dir, 'out', 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.equal(results.length, n);
  t.ok(results.every((r) => r.status === 'ok'));

  const jsonl = path.join(dir, 'records.jsonl');
  writeFileSync(
    jsonl,
    [
      JSON.stringify({ id: 'r1', content: 'theorem x : True := trivial' }),
      JSON.stringify({ id: 'r2', content: 'theorem y : True := trivial', names: ['zzz'] }),
    ].join('\n'),
  );
  const j = io(env);
  t.equal(
    await main(['theorem2sorry', '--batch', jsonl, '--no-reparse'], j.io),
    0,
    'one record not okay: 0 without --strict',
  );
  t.match(j.out.stderr, /summary: 2 inputs, 1 ok, 1 not okay/);
  t.equal(j.out.stdout.trim().split('\n').length, 2);
});

t.test('the installed bin runs the same CLI (stdin to stdout)', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  // Asynchronously: the daemon under test lives in this process and must keep serving.
  const r = await execa(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'lean-tool.js'), 'theorem2sorry', '-', '--no-reparse'],
    {
      input: 'theorem a : 1 = 1 := rfl\n',
      reject: false,
      env: {
        SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
        SERVICE_ENVIRONMENT: UNAVAILABLE_ENV,
      },
    },
  );
  t.equal(r.exitCode, 0, String(r.stderr));
  t.equal(r.stdout, 'theorem a : 1 = 1 := sorry');
});

t.test('the installed bin: Ctrl-C exits 130 saying so (AXLE)', async (t) => {
  let started = false;
  const app = await makeApp({
    tools: {
      theorem2sorry: {
        needsLean: () => false,
        run: async (req) => {
          started = true;
          await new Promise((r) => setTimeout(r, 5000));
          return contentResult(req.content);
        },
      },
    },
  });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  const file = path.join(dir, 'sol.lean');
  writeFileSync(file, 'theorem a : 1 = 1 := rfl\n');
  const child = execa(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bin', 'lean-tool.js'), 'theorem2sorry', file, '--environment', TEST_ENV],
    {
      reject: false,
      env: { SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` },
    },
  );
  // Interrupt once the request is in flight (the CLI is then waiting on the daemon).
  for (let i = 0; i < 600 && !started; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(started, 'the request reached the daemon');
  child.kill('SIGINT');
  const r = await child;
  t.equal(r.exitCode, 130, String(r.stderr));
  t.match(String(r.stderr), /Interrupted/);
});

t.test("the bundle's entry answers --version itself and hands every other call to the CLI", async (t) => {
  const { main: entry } = await import('../../src/client/cli-entry.ts');
  const [a, b] = [io({}), io({})];
  t.equal(await entry(['--version'], a.io), 0);
  t.equal(await main(['--version'], b.io), 0);
  t.equal(a.out.stdout, b.out.stdout, 'the same line as the CLI prints');
  const [c, d] = [io({}), io({})];
  t.equal(await entry(['theorem2sory', 'f.lean'], c.io), 2, 'anything else is the CLI: its usage error');
  await main(['theorem2sory', 'f.lean'], d.io);
  t.equal(c.out.stderr, d.out.stderr);
});

t.test("a Lean timeout (AXLE's LeanTimeout, HTTP 200) is a general error at once, never retried", async (t) => {
  const url = await daemon(t);
  const env = { SERVICE_API_URL: url, SERVICE_ENVIRONMENT: TEST_ENV };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cli-'));
  writeFileSync(path.join(dir, 'warm.lean'), 'def warm := 1\n');
  writeFileSync(path.join(dir, 'hang.lean'), 'HANG\n');
  t.equal(await main(['check', path.join(dir, 'warm.lean')], io(env).io), 0);
  const slow = io(env);
  t.equal(await main(['check', path.join(dir, 'hang.lean'), '--timeout-seconds', '0.3'], slow.io), 1);
  t.match(slow.out.stderr, /lean_timeout \(200\): lean worker timeout/);
  t.notMatch(slow.out.stderr, /retry/);
  t.equal(slow.out.stdout, '', 'no result printed');
});
