/**
 * comparator against the real builds (npm run lean:setup): a challenge/solution pair that
 * passes, and a solution that cheats with an extra axiom. Skipped, with the reason printed,
 * when no environment has a toolchain or the comparator builds are missing.
 */
import t from 'tap';
import { pino } from 'pino';
import { ComparatorBackend } from '../../src/backend/comparator/runner.ts';
import { loadConfig, PROJECT_ROOT } from '../../src/config.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { probeEnvironment } from '../../src/envs/probe.ts';
import { comparatorTool } from '../../src/tools/comparator.ts';
import { skipReasons } from './harness.ts';

const config = loadConfig(process.env);
const backend = new ComparatorBackend({
  root: PROJECT_ROOT,
  config: config.comparator,
  sandbox: config.lean.sandbox,
  limits: config.lean.limits,
  parentEnv: process.env,
});
const reasons: { name: string; reason: string }[] = [];
const env = config.environments
  .sort((x, y) => Number(x.imports !== '') - Number(y.imports !== ''))
  .find((e) => {
    const a = probeEnvironment(e, process.env, undefined, e.sandbox ?? config.lean.sandbox);
    if (!a.available) return void reasons.push({ name: e.name, reason: a.reason });
    const l = backend.locate(e);
    if ('missing' in l)
      return void reasons.push({ name: e.name, reason: ComparatorBackend.describeMissing(e, l.missing) });
    return true;
  });
const skip = env ? false : `comparator cannot run here: ${skipReasons(reasons)}`;
if (skip) t.comment(`SKIP comparator integration tests: ${skip}`);

const run = (content: string) =>
  comparatorTool(backend).run(
    parseToolRequest('comparator', {
      formal_statement: 'theorem comm (n m : Nat) : n + m = m + n := by sorry\n',
      content,
      environment: env!.name,
      memory_limit_mb: 16384,
    }),
    {
      env: env!,
      signal: AbortSignal.timeout(900_000),
      log: pino({ level: 'silent' }),
      lean: { elaborate: () => Promise.reject(new Error('unused')) },
      progress: () => {},
    },
  );

t.test('a real proof passes', { skip }, async (t) => {
  const r = await run('theorem comm (n m : Nat) : n + m = m + n := Nat.add_comm n m\n');
  t.equal(r.exit_status, 0, r.output);
  t.equal(r.okay, true);
  t.same(r.validated_theorem_names, ['comm']);
});

t.test('a proof through an extra axiom is rejected', { skip }, async (t) => {
  // The shape of comparator's own tests/projects/simple_axiom_issue.
  const r = await run(
    'axiom helper {α : Sort u} : α\n\ntheorem comm (n m : Nat) : n + m = m + n := by\n  exact helper\n',
  );
  t.not(r.exit_status, 0);
  t.equal(r.okay, false);
  t.same(r.validated_theorem_names, []);
});
