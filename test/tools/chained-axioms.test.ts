/**
 * The axiom questions chained to the last unit's input (elaboration-plan.ts, `planQuestions`): one REPL input per
 * declaration, the answers read apart from the unit's own messages, and the unit elaborated again on its own when
 * it took the questions into its parse (elaboration-answers.ts, `chainedAnswersClean`). A scripted runner double.
 */
import t from 'tap';
import type { ElabCommand } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { check } from '../../src/tools/check.ts';
import { msg, scriptedRunner, testEnv, toolCtx, type Respond } from './runner.ts';

const QUESTION = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/;

/** Lean's answer for a theorem that uses no axiom [lean4 v4.28.0: src/Lean/Elab/Print.lean, `printAxiomsOf`]. */
const noAxioms = (c: Parameters<Respond>[0]): ReturnType<Respond> => {
  const q = QUESTION.exec(c.text);
  return q ? { messages: [msg('info', c.origin, `'${q[1]}' does not depend on any axioms`)] } : {};
};

const run = (content: string, respond: Respond = noAxioms, env = testEnv) => {
  const lean = scriptedRunner(respond);
  const done = check.run(parseToolRequest('check', { content, environment: 'x' }), toolCtx(lean, env));
  return done.then((r) => ({ r, lean }));
};

const questions = (c: ElabCommand) => c.tail?.text.split('\n').length ?? 0;

t.test('one theorem: one REPL input, its axiom question on the lines after it', async (t) => {
  const { r, lean } = await run('theorem a : True := trivial\n');
  t.equal(lean.jobs.length, 1);
  const cmds = lean.jobs[0]!.commands;
  // Before: the theorem, then the question in an input of its own (2 inputs).
  t.equal(cmds.length, 1, 'no input of its own for the question');
  t.equal(cmds[0]!.text, 'theorem a : True := trivial');
  t.equal(cmds[0]!.tail?.text, 'set_option pp.fullNames true in #print axioms _root_.a');
  t.same(r.failed_declarations, []);
  t.equal(r.okay, true);
});

t.test('n theorems: n inputs, every question chained to the last', async (t) => {
  const content = Array.from({ length: 10 }, (_, i) => `theorem t${i} : True := trivial`).join('\n\n');
  const { r, lean } = await run(content);
  const cmds = lean.jobs[0]!.commands;
  t.equal(cmds.length, 10);
  t.same(cmds.map(questions), [0, 0, 0, 0, 0, 0, 0, 0, 0, 10]);
  t.same(r.failed_declarations, []);
});

t.test("the answers are read by their line; the unit's own messages stay the unit's", async (t) => {
  const { r, lean } = await run('theorem a : True := trivial\n\ntheorem b : True := trivial\n', (c) => {
    const q = QUESTION.exec(c.text);
    if (q?.[1] === 'a') return { messages: [msg('info', c.origin, `'a' depends on axioms: [myAxiom]`)] };
    if (q) return noAxioms(c);
    return c.text.startsWith('theorem b') ? { messages: [msg('warning', c.origin, 'b: a linter says so')] } : {};
  });
  t.equal(lean.jobs.length, 1);
  t.same(r.failed_declarations, ['a']);
  t.match(r.tool_messages.warnings.join('\n'), /In 'a': axiom 'myAxiom' is not in the allowed set/);
  t.same(r.lean_messages.warnings.length, 1, "b's warning, once");
  t.same(r.lean_messages.infos, [], 'the answers are not content messages');
});

t.test('a last theorem that fails: its refusal is clean, one elaboration, the theorem fails', async (t) => {
  const stop =
    '(deterministic) timeout at `whnf`, maximum number of heartbeats (200000) has been reached\n' +
    'Use `set_option maxHeartbeats <num>` to set the limit.';
  const { r, lean } = await run('theorem a : True := trivial\n\ntheorem slow : True := by\n  SLOW\n', (c) => {
    const q = QUESTION.exec(c.text);
    // Lean did not add `slow`: the question about it is refused.
    if (q?.[1] === 'slow') return { messages: [msg('error', c.origin, "unknown constant 'slow'")] };
    if (q) return noAxioms(c);
    return c.text.includes('SLOW') ? { messages: [msg('error', { line: 4, column: 2 }, stop)] } : {};
  });
  t.equal(lean.jobs.length, 1, 'not elaborated again');
  t.same(r.failed_declarations, ['slow']);
  t.match(r.lean_messages.errors.join('\n'), /maximum number of heartbeats/);
  t.notMatch(r.lean_messages.errors.join('\n'), /unknown constant/, 'the refusal is not a content message');
});

t.test('a last unit that takes the questions into its parse is elaborated again on its own', async (t) => {
  // Lean's answer to an input whose unit ends unfinished: the parse error lands on the first question's line, and
  // the question after it is still run. Alone, the unit ends at the end of input.
  const respond: Respond = (c, job) => {
    const q = QUESTION.exec(c.text);
    if (q && job === 0 && c.origin.line === 3) {
      const at = { line: 3, column: 32 };
      const parse = msg('error', at, "unexpected token '#print'; expected term");
      return { messages: [parse, msg('info', at, `'a' does not depend on any axioms`)] };
    }
    if (q) return noAxioms(c);
    // Alone (the second elaboration), the unit ends at the end of input.
    if (c.text.startsWith('theorem b') && job === 1)
      return { messages: [msg('error', { line: 3, column: 19 }, 'unexpected end of input')] };
    return {};
  };
  const { r, lean } = await run('theorem a : True := trivial\n\ntheorem b : True :=', respond);
  t.equal(lean.jobs.length, 2, 'elaborated again');
  const again = lean.jobs[1]!.commands;
  t.same(again.map(questions), [0, 0, 0], 'no tail the second time');
  t.match(again[2]!.text, /^set_option pp\.fullNames true in #print axioms _root_\.a\n/);
  t.match(r.lean_messages.errors.join('\n'), /unexpected end of input/, "the unit's own error");
  t.notMatch(r.lean_messages.errors.join('\n'), /unexpected token/, 'not the error of the input with the questions');
  t.ok(r.failed_declarations.includes('b'));
});

t.test('no questions chained where they would not parse as commands of their own', async (t) => {
  const cases: [string, string][] = [
    ['theorem a : True := trivial\n\n#exit\n', '#exit'],
    ['theorem a : True := trivial\n\nopen Nat in\n', 'a trailing `in`'],
    ['mutual\ntheorem a : True := trivial\n', '`mutual` without `end`'],
  ];
  for (const [content, why] of cases) {
    const { lean } = await run(content);
    t.same(
      lean.jobs[0]!.commands.map(questions).filter((n) => n > 0),
      [],
      why,
    );
  }
  const moduleEnv = environmentConfig.parse({ ...testEnv, imports: 'module' });
  const { lean } = await run('theorem a : True := trivial\n', noAxioms, moduleEnv);
  const cmds = lean.jobs[0]!.commands;
  t.same(cmds.map(questions), [0, 0], 'a `module` header: the refusal read from an input of its own');
  t.match(cmds[1]!.text, QUESTION);
});

t.test("a warning on a question's line is not counted: the answers stay clean, one elaboration", async (t) => {
  // A linter may warn about the question's own `set_option` on its line; the answer beside it still counts.
  const { r, lean } = await run('theorem a : True := trivial\n', (c) => {
    const q = QUESTION.exec(c.text);
    if (!q) return {};
    return { messages: [msg('warning', c.origin, 'a linter says so'), ...(noAxioms(c).messages ?? [])] };
  });
  t.equal(lean.jobs.length, 1, 'not elaborated again');
  t.same(r.failed_declarations, []);
  t.equal(r.okay, true);
});

t.test('a message off the questions’ lines: the answers are not clean, the unit is elaborated again', async (t) => {
  // Every question's line holds its one answer, but an error lies below them: not what Lean says of the questions.
  const respond: Respond = (c, job) => {
    const q = QUESTION.exec(c.text);
    if (q && job === 0) {
      const below = { line: c.origin.line + 3, column: 0 };
      return { messages: [...(noAxioms(c).messages ?? []), msg('error', below, 'unexpected end of input')] };
    }
    return q ? noAxioms(c) : {};
  };
  const { r, lean } = await run('theorem a : True := trivial\n', respond);
  t.equal(lean.jobs.length, 2, 'elaborated again, the question in an input of its own');
  t.same(r.failed_declarations, [], 'the second, clean answer decides');
});

t.test('a runner that answers no chained questions: every question reads "no answer" (fail closed)', async (t) => {
  const scripted = scriptedRunner(noAxioms);
  // As a runner that does not know `tail` would answer: the command's own messages, no `tail`.
  const lean: typeof scripted = {
    ...scripted,
    async elaborate(env, job, ctx) {
      const res = await scripted.elaborate(env, job, ctx);
      return { ...res, commands: res.commands.map(({ tail: _, ...rest }) => rest) };
    },
  };
  const r = await check.run(
    parseToolRequest('check', { content: 'theorem a : True := trivial\n', environment: 'x' }),
    toolCtx(lean, testEnv),
  );
  t.same(r.failed_declarations, ['a'], 'no answer is never read as "no axioms"');
  t.match(r.tool_messages.warnings, [/Declaration 'a': Lean did not say which axioms it uses \(no answer\)/]);
});
