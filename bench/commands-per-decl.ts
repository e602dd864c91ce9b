/**
 * `node --import tsx bench/commands-per-decl.ts [input,theorem,question]`: what `check` costs the REPL for a snippet
 * of 1, 10, 100 and 1,000 theorems (no imports), against Kimina's one command for the whole snippet.
 *
 * - Commands: the REPL inputs `check` plans (counted at the backend's door, on a double that answers each axiom
 *   question as Lean does when the theorem uses none). The same on every machine.
 * - REPL CPU: the real backend on the fake REPL (test/fixtures/fake-repl.mjs) under a cost model, `FAKE_REPL_COST_MS`:
 *   each input costs `input` ms of CPU, each theorem `theorem` ms and each `#print axioms` `question` ms (defaults
 *   below). The model's figures are assumptions, not Lean's; what the run measures is how the plan's inputs add
 *   up under them (with the fake's own per-input framing). The baseline sends the snippet as one command.
 * - Append: `check` of the snippet with one more theorem after a `check` of it (the session remembers the first):
 *   the inputs the second sends.
 * Records bench/results/commands-per-decl-<date>.json with `uptime`'s load.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { LeanBackend, type ElabJob, type LeanRunner } from '../src/backend/index.ts';
import { NO_LIMITS } from '../src/backend/process/launch.ts';
import { parseToolRequest } from '../src/contract/validate.ts';
import { environmentConfig } from '../src/envs/config.ts';
import { check } from '../src/tools/check.ts';
import { fakeReplLaunch } from './fake-repl.ts';
import { round } from './lib.ts';

const SIZES = [1, 10, 100, 1000];
/** The cost model (ms of CPU): per input, per theorem, per axiom question. Assumed, not measured on Lean. */
const COST = (process.argv[2] ?? '1,2,0.1').split(',').map(Number) as [number, number, number];

const env = environmentConfig.parse({
  name: 'x',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/tmp',
});
const log = pino({ level: 'silent' });
const snippet = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `theorem ${tag}${i} : ${i} = ${i} := rfl`).join('\n\n');
const ctxOf = (lean: LeanRunner) => ({ env, signal: AbortSignal.timeout(600_000), log, lean, progress: () => {} });
const runCheck = (content: string, lean: LeanRunner) =>
  check.run(parseToolRequest('check', { content, environment: 'x' }), ctxOf(lean));

/**
 * A runner that counts the inputs and answers each chained axiom question as Lean does for a theorem that uses
 * none: `'<name>' does not depend on any axioms` [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`].
 */
function counting(): LeanRunner & { commands: number } {
  const r = {
    commands: 0,
    async elaborate(_e: unknown, job: ElabJob) {
      r.commands += job.commands.length;
      const commands = job.commands.map((c) => ({
        messages: [],
        sorries: [],
        ...(c.tail ? { tail: noAxioms(c.tail) } : {}),
        cached: false,
        ms: 0,
      }));
      return { headerMessages: [], session: 1, reused: 0, sent: job.commands.length, commands };
    },
  };
  return r;
}

function noAxioms(tail: NonNullable<ElabJob['commands'][number]['tail']>) {
  return tail.text.split('\n').map((q, k) => ({
    severity: 'info' as const,
    pos: { line: tail.origin.line + k, column: 0 },
    endPos: undefined,
    text: `'${/_root_\.(\S+)$/.exec(q)![1]}' does not depend on any axioms`,
  }));
}

/** The fake REPL's CPU milliseconds and the commands it got so far (its `CPU` command, answered outside the model). */
async function fakeUsage(lean: LeanBackend): Promise<{ cpuMs: number; commands: number }> {
  const r = await lean.elaborate(
    env,
    { header: '', commands: [{ text: `CPU ${Math.random()}`, origin: { line: 1, column: 0 } }] },
    { signal: AbortSignal.timeout(60_000) },
  );
  return JSON.parse(r.commands[0]!.messages[0]!.text) as { cpuMs: number; commands: number };
}

/** REPL CPU, inputs and the daemon's own CPU (this process) of `run` on the fake REPL, the usage probes taken off. */
async function measured(
  lean: LeanBackend,
  run: () => Promise<unknown>,
): Promise<{ cpuMs: number; inputs: number; daemonCpuMs: number }> {
  const before = await fakeUsage(lean);
  const own = process.cpuUsage();
  await run();
  const daemon = process.cpuUsage(own);
  const after = await fakeUsage(lean);
  // The second probe's own input cost is in its reading (it burns before it reads).
  return {
    cpuMs: round(after.cpuMs - before.cpuMs - COST[0], 1),
    inputs: after.commands - before.commands - 1,
    daemonCpuMs: round((daemon.user + daemon.system) / 1000, 1),
  };
}

function backend(): LeanBackend {
  const launch = fakeReplLaunch();
  return new LeanBackend({
    log,
    launch: () => ({ ...launch, env: { ...launch.env, FAKE_REPL_COST_MS: COST.join(',') } }),
    limits: {
      minWarm: 0,
      maxSessions: 1,
      maxProcesses: 1,
      maxUses: 1_000_000,
      maxRssMb: 4096,
      sandbox: 'none',
      limits: NO_LIMITS,
      prefixEntries: 10_000,
      startupTimeoutSeconds: 60,
      rssPollMs: 1000,
      heartbeatsPerSecond: 0,
    },
  });
}

async function row(n: number, lean: LeanBackend) {
  const counter = counting();
  await runCheck(snippet(n, `c${n}_`), counter);
  const ours = await measured(lean, () => runCheck(snippet(n, `t${n}_`), lean));
  const one = await measured(lean, () =>
    lean.elaborate(
      env,
      { header: '', commands: [{ text: snippet(n, `k${n}_`), origin: { line: 1, column: 0 } }] },
      { signal: AbortSignal.timeout(600_000) },
    ),
  );
  const append = await measured(lean, () => runCheck(snippet(n + 1, `t${n}_`), lean));
  return {
    theorems: n,
    commands: counter.commands,
    commandsPerDeclaration: round(counter.commands / n, 3),
    kiminaCommands: 1,
    replCpuMsPerDeclaration: round(ours.cpuMs / n, 2),
    oneCommandCpuMsPerDeclaration: round(one.cpuMs / n, 2),
    cpuRatio: round(ours.cpuMs / one.cpuMs, 2),
    daemonCpuMsPerDeclaration: round(ours.daemonCpuMs / n, 2),
    oneCommandDaemonCpuMsPerDeclaration: round(one.daemonCpuMs / n, 2),
    fakeReplInputs: ours.inputs,
    appendOneTheoremInputs: append.inputs,
  };
}

const lean = backend();
await fakeUsage(lean);
const rows = [];
for (const n of SIZES) rows.push(await row(n, lean));
await lean.destroy();
const result = {
  kind: 'commands-per-decl',
  date: new Date().toISOString(),
  node: process.version,
  load: os.loadavg().map((x) => round(x, 1)),
  target: '≤ 1.05 REPL commands per declaration; REPL CPU per theorem within 1.5× of the snippet as one command',
  costModelMs: { input: COST[0], theorem: COST[1], question: COST[2] },
  rows,
};
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `commands-per-decl-${result.date.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
for (const r of rows)
  console.log(
    `${r.theorems} theorems: ${r.commands} commands (${r.commandsPerDeclaration}/declaration; Kimina 1); REPL CPU ` +
      `${r.replCpuMsPerDeclaration} ms/declaration vs ${r.oneCommandCpuMsPerDeclaration} as one command ` +
      `(${r.cpuRatio}×); one theorem appended: ${r.appendOneTheoremInputs} inputs`,
  );
console.log(`load ${result.load.join(' ')}; recorded: ${path.relative(process.cwd(), file)}`);
