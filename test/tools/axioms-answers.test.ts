/**
 * Issue 27, defects 4 and 5: how `#print axioms` is asked and how its answer (or its absence) is read.
 * The answers' texts are Lean's own where a recording holds them: lean4 tests/lean/run/collectAxioms.lean
 * (../shared/recorded/lean4/tests/lean/run/collectAxioms.lean, `#guard_msgs` of `#print axioms A2` and
 * `#print axioms one_add_one`). The refusal under a `module` header has no recording: its text is
 * quoted from lean4 src/Lean/Elab/Print.lean, `elabPrintAxioms` (the versions whose `printAxiomsOf`
 * maps the axioms through `MessageData.ofConstName`).
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { check } from '../../src/tools/check.ts';
import { parseAxioms, printAxiomsCommand } from '../../src/tools/lean-texts.ts';
import { verify_proof } from '../../src/tools/verify-proof.ts';
import { recordedIndexFor } from '../recorded/index.ts';
import { msg, scriptedRunner, toolCtx, type Respond } from './runner.ts';

const MODULE_REFUSAL =
  'cannot use `#print axioms` in a `module`; consider temporarily removing the `module` header or placing the command in a separate file';
const ASKED = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/;

t.test('defect 4: the question names the declaration from the root, with full names printed', async (t) => {
  t.equal(printAxiomsCommand('A.x'), 'set_option pp.fullNames true in #print axioms _root_.A.x');
  t.equal(printAxiomsCommand('_root_.y'), 'set_option pp.fullNames true in #print axioms _root_.y');
  // Content that ends inside `namespace A` (no `end`): the question still names `A.x` exactly.
  const lean = scriptedRunner(() => ({}));
  await check.run(
    parseToolRequest('check', { content: 'namespace A\ntheorem x : True := trivial\n', environment: 'x' }),
    toolCtx(lean),
  );
  // Asked on the lines after the last unit (ElabCommand.tail) or in an input of their own.
  const asked = lean.jobs[0]!.commands.flatMap((c) => [c.text, c.tail?.text ?? '']).filter((x) =>
    x.includes('#print axioms'),
  );
  t.same(asked, ['set_option pp.fullNames true in #print axioms _root_.A.x']);
});

t.test('every recorded #print axioms answer parses, under the name it was asked about', (t) => {
  const items = recordedIndexFor(t);
  if (!items) return;
  const answers = items.flatMap((it) => it.messages.filter((m) => m.cls === 'print_axioms').map((m) => ({ it, m })));
  t.ok(answers.length >= 3, `${answers.length} recorded answers`);
  for (const { it, m } of answers) {
    const asked = /#print axioms\s+(\S+)/.exec(it.input)?.[1];
    const parsed = parseAxioms(m.text);
    t.ok(parsed, `${it.file}:${it.line} parses`);
    if (asked && parsed && !asked.includes('.')) t.equal(parsed.name, asked, `${it.file}:${it.line}`);
  }
  t.end();
});

/** A check double: `#print axioms` of the names in `answer` gets the recorded texts, others what `fallback` says. */
const runner = (answer: Record<string, string>, fallback: Respond) =>
  scriptedRunner((c, n) => {
    const ax = ASKED.exec(c.text);
    if (ax && answer[ax[1]!]) return { messages: [msg('info', c.origin, answer[ax[1]!]!)] };
    return fallback(c, n);
  });

t.test('defect 5: check fails a declaration Lean gave no axioms answer for (fail closed)', async (t) => {
  const content = 'theorem one_add_one : 1 + 1 = 2 := by\n  native_decide\n\ntheorem silent : True := trivial\n';
  // The recorded answer for one_add_one (collectAxioms.lean); for `silent`, nothing at all.
  const lean = runner(
    { one_add_one: "'one_add_one' depends on axioms: [Lean.ofReduceBool, Lean.trustCompiler]" },
    () => ({}),
  );
  const r = await check.run(parseToolRequest('check', { content, environment: 'x' }), toolCtx(lean));
  t.same([...r.failed_declarations].sort(), ['one_add_one', 'silent']);
  t.match(r.tool_messages.warnings.join('\n'), /'silent': Lean did not say which axioms it uses \(no answer\)/);
  t.match(r.tool_messages.warnings.join('\n'), /In 'one_add_one': axiom 'Lean.ofReduceBool'/);
});

t.test('defect 5: a `module` header refusing #print axioms fails the declaration, with the reason', async (t) => {
  const lean = runner({}, (c) =>
    c.text.includes('#print axioms') ? { messages: [msg('error', c.origin, MODULE_REFUSAL)] } : {},
  );
  const r = await check.run(
    parseToolRequest('check', { content: 'theorem t : True := trivial\n', environment: 'x' }),
    toolCtx(lean),
  );
  t.same(r.failed_declarations, ['t']);
  t.match(r.tool_messages.warnings.join('\n'), /Lean refused #print axioms: cannot use `#print axioms` in a `module`/);
  t.same(r.lean_messages.errors, [], 'the refusal is about the question, not the content');
});

t.test('defect 5: an answer about another name is not an answer about this declaration', async (t) => {
  const lean = runner({ t: "'A2' depends on axioms: [A0, A1, A2]" }, () => ({}));
  const r = await check.run(
    parseToolRequest('check', { content: 'theorem t : True := trivial\n', environment: 'x' }),
    toolCtx(lean),
  );
  t.same(r.failed_declarations, ['t']);
});

t.test('defect 5: verify_proof never passes a candidate without an axioms answer', async (t) => {
  const stmt = 'theorem main : True := sorry\n';
  const lean = scriptedRunner((c) => {
    const chk = /#check @(\S+)$/.exec(c.text);
    return chk ? { messages: [msg('info', c.origin, `${chk[1]} : True`)] } : {};
  });
  const r = await verify_proof.run(
    parseToolRequest('verify_proof', {
      formal_statement: stmt,
      content: 'theorem main : True := trivial\n',
      environment: 'x',
    }),
    toolCtx(lean),
  );
  t.equal(r.okay, false);
  t.match(r.tool_messages.errors.join('\n'), /'main': Lean did not say which axioms it uses/);
});
