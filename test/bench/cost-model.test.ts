/**
 * The benchmark's cost model charges the same proof the same whichever server sends it: keyed by
 * the declaration's text without comments, unchanged by the daemon's heartbeat wrap or by Kimina's
 * one-command body; and the cost-model REPL stops a declaration that never finishes at the
 * heartbeat limit in force, or never without one. Outcomes and counts only, no timings.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { loadedModules, MODEL, normalize, price, probedModule, units, unwrap } from '../../bench/cost-model.mjs';
import { moduleProbe } from '../../src/backend/session/module-probe.ts';
import { candidates, lowerBound, WORKLOAD } from '../../bench/rl-workload.ts';

const REPL = fileURLToPath(new URL('../../bench/cost-repl.mjs', import.meta.url));
const proof = 'theorem t (x : ℕ) : x + 0 = x := by\n  simp -- by simp\n';

t.test("the cost REPL reads the daemon's module probe as the daemon writes it", async (t) => {
  for (const m of ['Qq', 'Plausible.Functions', '«my mod».X']) t.equal(probedModule(moduleProbe(m)!), m, m);
  t.equal(probedModule('theorem t : True := trivial'), undefined);
  t.ok(loadedModules('import Mathlib\nimport Aesop').has('Qq'), 'Mathlib loads Qq');
  t.notOk(loadedModules('import Mathlib\nimport Aesop').has('Batteries'), 'the Batteries root is not established');
});

t.test('the price ignores comments and blank space, not the proof', async (t) => {
  const variant = 'theorem t (x : ℕ) : x + 0 = x := by\n  /- a block\n  comment -/\n  simp   -- other words\n';
  t.same(price(variant), price(proof));
  t.equal(normalize(variant), normalize(proof));
  t.not(price('theorem t (x : ℕ) : x + 0 = x := by\n  omega\n').ms, price(proof).ms, 'another proof, another price');
});

t.test("the daemon's wrap and Kimina's body split to the same declaration", async (t) => {
  const wrapped = `set_option maxHeartbeats 1200 in -- budget\n${proof}`;
  const [u] = units(wrapped);
  t.equal(units(wrapped).length, 1, 'the wrap belongs to its declaration');
  t.same(unwrap(u!.text), { limit: 1200, text: proof });
  const body = units(`set_option maxHeartbeats 400000\n\nopen Real Nat\n\n${proof}`);
  t.same(
    body.map((x) => x.line),
    [1, 3, 5],
  );
  t.equal(normalize(body[2]!.text), normalize(proof));
});

t.test('the workload is fixed: same candidates every run, duplicates among them', async (t) => {
  const a = candidates();
  t.equal(a.length, WORKLOAD.statements * WORKLOAD.candidates);
  t.same(
    candidates().map((c) => c.code),
    a.map((c) => c.code),
  );
  const lb = lowerBound(a, 2);
  t.ok(lb.distinct < a.length * (1 - WORKLOAD.duplicateRate / 2), `${lb.distinct} distinct of ${a.length}`);
  t.ok(lb.unavoidableCpuS < lb.everyCandidateCpuS);
});

/** Sends commands to a cost-model REPL; resolves with its answers (killed `killAfterMs` after the first, if given). */
function session(cmds: object[], killAfterMs?: number): Promise<unknown[]> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [REPL], { stdio: ['pipe', 'pipe', 'inherit'] });
    const out: unknown[] = [];
    let buf = '';
    p.stdout.setEncoding('utf8');
    p.stdout.on('data', (c: string) => {
      buf += c;
      for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
        out.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 2);
      }
      if (out.length === cmds.length) p.stdin.end();
      else if (out.length === 1 && killAfterMs !== undefined) setTimeout(() => p.kill('SIGKILL'), killAfterMs);
    });
    p.on('exit', () => resolve(out));
    p.stdin.write(cmds.map((c) => `${JSON.stringify(c)}\n\n`).join(''));
  });
}

/** A declaration the model says never finishes (found by its price, so it stays true if the seed of texts changes). */
function neverFinishes(): string {
  for (let i = 0; ; i++) {
    const text = `theorem spin_${i} : True := by\n  trivial\n`;
    if (price(text).ms === Infinity) return text;
  }
}

t.test('a declaration that never finishes stops at the heartbeat limit in force', async (t) => {
  const spin = neverFinishes();
  const [, stopped] = (await session([
    { cmd: 'import Mathlib' },
    { cmd: `set_option maxHeartbeats 3 in\n${spin}`, env: 0 },
  ])) as {
    messages?: { data: string; pos: { line: number } }[];
  }[];
  t.match(stopped!.messages![0]!.data, /maximum number of heartbeats \(3\) has been reached/);
  t.equal(stopped!.messages![0]!.pos.line, 2, 'on the declaration, below the wrap');
  t.ok(MODEL.importCpuMs > 0);
});

t.test('with no limit (maxHeartbeats 0) it runs until killed', async (t) => {
  const spin = neverFinishes();
  const answers = await session(
    [{ cmd: 'import Mathlib' }, { cmd: `set_option maxHeartbeats 0\n\n${spin}`, env: 0 }],
    1000,
  );
  t.equal(answers.length, 1, 'the import answered; the declaration never did');
});
