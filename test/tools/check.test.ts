/** check with a scripted runner double: how Lean's messages and `#print axioms` answers become failed_declarations. */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { check } from '../../src/tools/check.ts';
import { elaborateContent } from '../../src/tools/elaborate.ts';
import { namedDecls } from '../../src/tools/selection.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const lean = scriptedRunner((c) => {
  const ax = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/.exec(c.text);
  if (ax)
    return {
      messages: [
        msg(
          'info',
          c.origin,
          ax[1] === 'odd'
            ? `'odd' depends on axioms: [propext, myAxiom]`
            : ax[1] === 'holey'
              ? `'holey' depends on axioms: [sorryAx]`
              : `'${ax[1]}' does not depend on any axioms`,
        ),
      ],
    };
  if (/\bsorry\b/.test(c.text)) return { messages: [msg('warning', c.origin, 'declaration uses `sorry`')] };
  if (c.text.includes('ERR')) return { messages: [msg('error', c.origin, 'boom')] };
  return {};
});
const content =
  'theorem good : True := trivial\n\ntheorem holey : True := sorry\n\ntheorem odd : True := trivial\n\ntheorem bad : True := ERR\n';

t.test('errors, sorry and foreign axioms mark their declarations; standard axioms do not', async (t) => {
  const r = await check.run(parseToolRequest('check', { content, environment: 'x' }), toolCtx(lean));
  t.same([...r.failed_declarations].sort(), ['bad', 'holey', 'odd']);
  t.equal(r.okay, false, 'an error makes the content not okay');
  t.match(r.tool_messages.warnings.join('\n'), /Declaration 'holey' uses 'sorry'/);
  t.match(r.tool_messages.warnings.join('\n'), /In 'odd': axiom 'myAxiom' is not in the allowed set/);
  t.notMatch(r.tool_messages.warnings.join('\n'), /propext/);
  t.equal(
    r.tool_messages.warnings.filter((w) => w.includes("'holey'")).length,
    1,
    'one sorry warning, though both the message and sorryAx report it',
  );
});

t.test('structured: Lean’s messages and sorries with their positions, only when asked', async (t) => {
  const withSorry = scriptedRunner((c) =>
    /\bsorry\b/.test(c.text)
      ? {
          messages: [
            { ...msg('warning', c.origin, 'declaration uses `sorry`'), endPos: { line: c.origin.line, column: 13 } },
          ],
          sorries: [
            {
              goal: '⊢ True',
              pos: { line: 1, column: 23 },
              endPos: { line: 1, column: 28 },
              origin: c.origin,
            },
          ],
        }
      : {},
  );
  const text = 'theorem good : True := trivial\n\ntheorem holey : True := sorry\n';
  const plain = await check.run(parseToolRequest('check', { content: text, environment: 'x' }), toolCtx(withSorry));
  t.equal(plain.structured, undefined, 'absent by default');
  const r = await check.run(
    parseToolRequest('check', { content: text, environment: 'x', structured: true }),
    toolCtx(withSorry),
  );
  t.same(r.structured?.messages, [
    {
      severity: 'warning',
      pos: { line: 3, column: 0 },
      endPos: { line: 3, column: 13 },
      data: 'declaration uses `sorry`',
    },
  ]);
  // The sorry's positions were the command's (line 1): moved to the content's line 3.
  t.same(r.structured?.sorries, [{ pos: { line: 3, column: 23 }, endPos: { line: 3, column: 28 }, goal: '⊢ True' }]);
});

t.test('each elaboration has axiom and probe maps of its own; one that asks nothing has empty ones', async (t) => {
  // elaborate.ts shares one empty map until the first answer: an answer must never land in another run's map.
  const asked = await elaborateContent('theorem good : True := trivial\n', { ignore_imports: true }, toolCtx(lean), {
    axiomsOf: namedDecls,
    probes: () => [{ key: 'p', text: '#check good' }],
  });
  const none = await elaborateContent('example : True := trivial\n', { ignore_imports: true }, toolCtx(lean), {
    axiomsOf: namedDecls,
  });
  t.same([...asked.axioms], [['good', []]]);
  t.same([...asked.probes.keys()], ['p']);
  t.equal(none.axioms.size + none.axiomsUnanswered.size + none.probes.size, 0, 'nothing asked, nothing answered');
  // A Lean that answers nothing: the axioms question goes unanswered.
  const silent = scriptedRunner(() => ({}));
  const refused = await elaborateContent('theorem bad : True := trivial\n', { ignore_imports: true }, toolCtx(silent), {
    axiomsOf: namedDecls,
  });
  t.same([...refused.axiomsUnanswered.keys()], ['bad']);
  t.equal(asked.axiomsUnanswered.size + none.axiomsUnanswered.size, 0, 'the unanswered map is the refused run’s own');
});

t.test('AXLE v1.4.0 contract: sorry, foreign axioms and unsafe are warnings; okay means "compiles"', async (t) => {
  const text =
    'theorem holey : True := sorry\n\ntheorem odd : True := trivial\n\nunsafe def risky : Nat := 0\n\nexample : True := sorry\n';
  const r = await check.run(parseToolRequest('check', { content: text, environment: 'x' }), toolCtx(lean));
  t.equal(r.okay, true, 'no Lean error: okay, though every declaration fails validation');
  t.same(r.tool_messages.errors, []);
  t.same(r.failed_declarations, ['holey', 'odd', 'risky', '_example_7_0'], 'anonymous example named by position');
  t.match(r.tool_messages.warnings.join('\n'), /Unsafe function 'risky' detected/);
  t.match(r.tool_messages.warnings.join('\n'), /Declaration '_example_7_0' uses 'sorry'/);
});
