/**
 * How elaborate.ts reads a `#print axioms` answer (readAxioms), a declaration's verdict
 * (declVerdict) and a `#check` answer (checkedType), pinned where the first mutation run
 * (bench/results/mutation-2026-11-27T10-51-46-648Z.json) found them unguarded. The answer texts
 * are the shapes of lean4 v4.28.0 src/Lean/Elab/Print.lean, `printAxiomsOf`
 * (`'{constName}' does not depend on any axioms`), and of `#check` (`name : type`).
 */
import t from 'tap';
import type { LeanMessage, Origin } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { check } from '../../src/tools/check.ts';
import { checkedType, declVerdict } from '../../src/tools/decl-verdict.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

/** check of `theorem t : True := trivial`, with `#print axioms` answered by `answer`. */
async function checkWith(answer: (origin: Origin) => LeanMessage[]) {
  const lean = scriptedRunner((c) => (c.text.includes('#print axioms') ? { messages: answer(c.origin) } : {}));
  const req = parseToolRequest('check', { content: 'theorem t : True := trivial\n', environment: 'x' });
  return check.run(req, toolCtx(lean));
}

t.test('readAxioms: an answer counts only as an info message about this declaration', async (t) => {
  const clean = "'t' does not depend on any axioms";
  const ok = await checkWith((o) => [msg('info', o, clean)]);
  t.same(ok.failed_declarations, [], 'the answer itself passes t');
  const asError = await checkWith((o) => [msg('error', o, clean)]);
  t.same(asError.failed_declarations, ['t'], 'an error is not an answer');
  const other = await checkWith((o) => [msg('info', o, "'u' does not depend on any axioms")]);
  t.same(other.failed_declarations, ['t'], 'an answer about u is not one about t');
  t.same(other.tool_messages.warnings, ["Declaration 't': Lean did not say which axioms it uses (no answer)"]);
});

t.test('readAxioms: the refusal quoted is the first error, cut at 300 characters', async (t) => {
  const long = `boom ${'x'.repeat(400)}`;
  const r = await checkWith((o) => [msg('info', o, 'unrelated'), msg('error', o, long)]);
  t.same(r.failed_declarations, ['t']);
  t.same(r.tool_messages.warnings, [
    `Declaration 't': Lean did not say which axioms it uses (Lean refused #print axioms: ${long.slice(0, 300)})`,
  ]);
});

t.test('declVerdict without an axiomsUnanswered map', async (t) => {
  const file = parseSource('theorem t : True := trivial\n');
  const v = declVerdict({ file, messages: [], axioms: new Map([['t', []]]) }, file.decls[0]!);
  t.same(v, { axiomsUnanswered: undefined, hasErrors: false, usesSorry: false, foreignAxioms: [] });
});

t.test('checkedType: the first info message, the name and a leading colon removed', async (t) => {
  const at = { line: 1, column: 0 };
  const m = (severity: LeanMessage['severity'], text: string): LeanMessage => ({
    severity,
    pos: at,
    endPos: undefined,
    text,
  });
  t.equal(checkedType(undefined, 'x'), undefined);
  t.equal(checkedType([m('warning', 'x : Bool'), m('info', 'x : Nat')], 'x'), 'Nat');
  t.equal(checkedType([m('info', '@x : {α : Type} → α → α')], 'x'), '{α : Type} → α → α');
  // A text that does not start with the name is kept whole, its colons included.
  t.equal(checkedType([m('info', 'y : Nat')], 'x'), 'y : Nat');
});
