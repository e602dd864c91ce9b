/**
 * lean:doctor: without a toolchain it says what is missing and exits non-zero; its checks,
 * run against the fake REPL test double (which knows no Lean and answers `{"env": n}` to
 * everything), all FAIL with what came back — the doctor never passes a check Lean did not answer.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ReplProcess } from '../../src/backend/process/repl-process.ts';
import { LeanSession } from '../../src/backend/session/session.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { CHECKS, formatTable, runChecks } from '../../src/doctor/checks.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { COMPARATOR_CHECK, ENVIRONMENT_CHECKS, toolChecks } from '../../lean/doctor-steps.ts';
import { TOOL_CHECKS, runToolChecks } from '../../src/doctor/tool-checks.ts';
import { LeanBackend } from '../../src/backend/index.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { msg, scriptedRunner, testEnv } from '../tools/runner.ts';
import { fakeLaunch, silent } from '../backend/fake.ts';
import { TS_LOADER } from '../ts-loader.ts';

t.test('without a toolchain, lean:doctor says what is missing and exits non-zero', async (t) => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'nohome-'));
  // An empty overlay (a LEAN_TOOL_CONFIG naming a missing file is a configuration error).
  writeFileSync(path.join(home, 'none.json'), '{}');
  const doctor = (...args: string[]) =>
    spawnSync(process.execPath, [...TS_LOADER, path.join(PROJECT_ROOT, 'lean', 'doctor.ts'), ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: '/usr/bin:/bin', HOME: home, LEAN_TOOL_CONFIG: path.join(home, 'none.json') },
      encoding: 'utf8',
    });
  const r = doctor();
  t.equal(r.status, 1);
  // The advice and nothing before it: one line per distinct reason, not a row per check and environment.
  t.equal(r.stdout, '', 'no table of checks that cannot run');
  const lines = r.stderr.trim().split('\n');
  t.match(lines[0], /^lean:doctor needs a Lean toolchain/);
  t.match(lines[1], /^ {2}- lean-4\.21\.0, .*lean-4\.28\.0, .*: no Lean toolchain found/);
  t.match(lines[2], /^Install elan .*npm run lean:setup/);
  t.equal(lines.length, 4, `three lines of advice and the --list hint: ${r.stderr}`);
  // Issue 27 §4, on request: every check is listed, each saying cleanly that it cannot run here.
  const listed = doctor('--list');
  t.equal(listed.status, 1);
  for (const name of [
    ...ENVIRONMENT_CHECKS,
    ...CHECKS.map((c) => c.name),
    ...TOOL_CHECKS.map((c) => c.name),
    COMPARATOR_CHECK,
  ])
    t.ok(
      listed.stdout.split('\n').some((l) => l.includes(name) && /FAIL\s+cannot run: no toolchain$/.test(l)),
      `listed: ${name}`,
    );
});

t.test('every check fails against a REPL that knows no Lean', async (t) => {
  const env = environmentConfig.parse({
    name: 'fake',
    lean_toolchain: 'leanprover/lean4:v4.28.0',
    imports: 'import Mathlib',
    project_dir: '/tmp',
  });
  const s = await LeanSession.open(
    { spawn: () => new ReplProcess({ launch: fakeLaunch(), log: silent }), log: silent, prefixEntries: 100 },
    env.imports,
  );
  t.teardown(() => s.kill());
  const results = await runChecks(s, env, AbortSignal.timeout(30_000));
  t.equal(results.length, CHECKS.length);
  t.same(
    results.filter((r) => r.ok),
    [],
    'no check passes without Lean answering',
  );
  for (const [i, r] of results.entries())
    t.ok(r.detail.endsWith(`; assumed: ${CHECKS[i]!.assumption}`), `${r.name}: the failure says what was assumed`);
  const table = formatTable(results.map((r) => ({ env: env.name, check: r.name, ok: r.ok, detail: r.detail })));
  t.match(table, /^environment\s+check\s+ok\s+detail/);
  t.match(table, /fake\s+#print axioms format \(public and private declarations\)\s+FAIL/);
});

t.test('each check says in words what it assumes about Lean and where that was read', async (t) => {
  // A cited source as the code's comments cite it (`[lean4 v4.28.0: file, name]`), or the gap it stands in for.
  const source = /\[(?:lean4|repl|mathlib4?|batteries|recorded)\b[^\]]*\]|no recording holds/;
  for (const c of [...CHECKS, ...TOOL_CHECKS]) t.match(c.assumption, source, `${c.name}: ${c.assumption}`);
  // The readings the backend and the tools depend on, each checked by one of the session checks.
  const named = CHECKS.map((c) => c.assumption).join('\n');
  for (const [what, re] of [
    ['the axioms question as the tools ask it', /`set_option pp\.fullNames true in #print axioms _root_\.<name>`/],
    ["the budget wrap and Mathlib's style linter", /`linter\.style\.maxHeartbeats`/],
    ['the budget stop, elaborator or kernel', /maximum number of heartbeats \(N\).*`\(kernel\) deterministic timeout`/],
    ['a limit set inside a section', /inside a section ends at its `end`/],
    ["verify_proof's scope replay", /section variables replayed/],
    ['the extraction helper', /lean\/ExtractHelper\.lean compiles/],
    ["repair_proofs' texts", /`unsolved goals`.*`no goals`.*`unknown identifier`/],
  ] as const)
    t.match(named, re, what);
  // A request header's own session (failed import, bare prelude) and a comparator pair run in lean/doctor-steps.ts.
  t.same(ENVIRONMENT_CHECKS.slice(3, 5), ['failed import detected', 'bare prelude header']);
  t.match(COMPARATOR_CHECK, /comparator pair/);
});

// The tool checks (src/doctor/tool-checks.ts): the daemon's tools on the environment's backend, for the inputs no
// recording holds (test/recorded/tools.test.ts, "gap"). Tested against doubles of the REPL process only.

t.test('every tool check fails on the backend over a REPL that knows no Lean', async (t) => {
  const backend = new LeanBackend({
    limits: {
      minWarm: 0,
      maxSessions: 1,
      maxUses: 1000,
      maxRssMb: 4096,
      sandbox: 'none',
      limits: NO_LIMITS,
      prefixEntries: 100,
      startupTimeoutSeconds: 30,
      rssPollMs: 1000,
    },
    log: silent,
    launch: () => fakeLaunch(),
  });
  t.teardown(() => backend.destroy());
  const rows = await toolChecks(testEnv, { lean: {} as never }, AbortSignal.timeout(60_000), backend);
  t.same(
    rows.map((r) => r.check),
    TOOL_CHECKS.map((c) => c.name),
  );
  t.same(
    rows.filter((r) => r.ok).map((r) => `${r.check}: ${r.detail}`),
    [],
    'no tool check passes without Lean answering',
  );
  for (const [i, r] of rows.entries())
    t.ok(
      r.detail.endsWith(`; assumed: ${TOOL_CHECKS[i]!.assumption}`),
      `${r.check}: the failure says what was assumed`,
    );
});

t.test('the tool checks send what the tools send: the gaps of the recorded tests', async (t) => {
  const r = scriptedRunner(() => ({}));
  await runToolChecks(r, testEnv, AbortSignal.timeout(60_000), silent);
  // A command's tail (the axiom questions on the lines after the last unit) is sent with it.
  const sent = r.jobs
    .flatMap((j) => j.commands.flatMap((c) => (c.tail ? [c.text, c.tail.text] : [c.text])))
    .join('\n----\n');
  for (const [what, re] of [
    ['merge: #check @ with full names', /set_option pp\.fullNames true in\n.*\n#check @doctor_mc/],
    ['the goal-printing options', /^set_option pp\.proofs true$/m],
    [
      "disprove's attempt, `open Nat (succ)` as written",
      /namespace DoctorD\nopen Nat \(succ\)\ntheorem axle_disprove_0/,
    ],
    ['the extraction helper and its question', /#lean_tool_info/],
    ["verify_proof's axioms question", /#print axioms _root_\.doctor_v/],
    ["verify_proof's definitional-equality probe", /type_of% @axle_expected_0/],
  ] as const)
    t.match(sent, re, what);
});

t.test('the merge check passes when equal statements print equal types and different ones do not', async (t) => {
  // A double of the REPL's answers: each `#check @name` prints a type made from the statement in that document.
  const answer = (typeOf: (statement: string) => string) => {
    const r = scriptedRunner((c, job) => {
      const check = /#check @(\S+)$/.exec(c.text)?.[1];
      if (check) {
        const decl = r.jobs[job]!.commands.find((x) => x.text.startsWith(`theorem ${check} `))?.text ?? '';
        return { messages: [msg('info', c.origin, `@${check} : ${typeOf(decl)}`)] };
      }
      const ax = /#print axioms _root_\.(\S+)$/.exec(c.text)?.[1];
      return ax ? { messages: [msg('info', c.origin, `'${ax}' does not depend on any axioms`)] } : {};
    });
    return r;
  };
  const name = TOOL_CHECKS[0]!.name;
  const run = async (lean: ReturnType<typeof scriptedRunner>) =>
    (await runToolChecks(lean, testEnv, AbortSignal.timeout(60_000), silent)).find((x) => x.name === name)!;
  const right = await run(answer((s) => /replicate (\d)/.exec(s)?.[1] ?? ''));
  t.ok(right.ok, right.detail);
  const unread = await run(answer(() => ''));
  t.notOk(unread.ok, unread.detail);
  t.match(unread.detail, /no types were compared/);
  const apart = await run(answer((s) => s));
  t.notOk(apart.ok, apart.detail);
  t.match(apart.detail, /same statement was renamed/);
});
