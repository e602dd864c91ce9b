/**
 * Issue 27, defect 13 (the `open` part): the probes that restate a declaration elsewhere (verify_proof's
 * definitional-equality check, disprove's attempts) replay the `open` commands in force as written.
 * `open A (x)`, `open A hiding x`, `open A renaming x → y` and `open scoped A` are different commands from
 * `open A` [lean4 src/Lean/Parser/Command.lean, `openDecl := openHiding <|> openRenaming <|> openOnly <|>
 * openSimple <|> openScoped`]; replayed as `open A` they made names visible (or, for `open scoped`, all of
 * A's names) that the declaration itself could not see, so the probe could elaborate what the content did not.
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { openCommandTexts, parseSource } from '../../src/syntax/source.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { defeqCheck } from '../../src/tools/verify-proof.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const FORMS = ['open A (x)', 'open B hiding y', 'open C renaming z → w', 'open scoped D', 'open E F'];

const openLines = (probe: string) => probe.split('\n').filter((l) => /^open\b/.test(l));

t.test('the scope model keeps each `open` command as written, in order', async (t) => {
  const f = parseSource(`${FORMS.join('\n')}\ntheorem a : True := trivial\n`);
  t.same(openCommandTexts(f.scopes[f.decls[0]!.commandIndex]), FORMS);
});

t.test('an `open … in` prefix is kept without its `in`, for its own command only', async (t) => {
  const f = parseSource(
    'open A\nopen B (y) in\nopen scoped C in\ntheorem a : True := trivial\ntheorem b : True := trivial\n',
  );
  const [a, b] = f.decls;
  t.same(openCommandTexts(f.scopes[a!.commandIndex]), ['open A', 'open B (y)', 'open scoped C']);
  t.same(openCommandTexts(f.scopes[b!.commandIndex]), ['open A'], 'the prefixes applied to `a` only');
});

t.test('a scope takes the `open`s made inside it along when it ends; repeats are replayed once', async (t) => {
  const f = parseSource(
    [
      'open A hiding x',
      'section',
      'open scoped B',
      'open A hiding x',
      'theorem a : True := trivial',
      'end',
      'namespace N',
      'open C (z)',
      'theorem b : True := trivial',
      'end N',
      'theorem c : True := trivial',
    ].join('\n'),
  );
  const byName = Object.fromEntries(f.decls.map((d) => [d.name, openCommandTexts(f.scopes[d.commandIndex])]));
  t.same(byName, {
    a: ['open A hiding x', 'open scoped B'],
    b: ['open A hiding x', 'open C (z)'],
    c: ['open A hiding x'],
  });
});

t.test("verify_proof's definitional-equality probe replays the `open`s as written", async (t) => {
  const f = parseSource(`${FORMS.join('\n')}\ntheorem thm (n : Nat) : n = n := rfl\n`);
  const probe = defeqCheck(f, f.decls[0]!)!;
  t.same(openLines(probe), FORMS, 'not `open A B C D E F`');
  const g = parseSource('open A (x) in\ntheorem thm (n : Nat) : n = n := rfl\n');
  t.same(openLines(defeqCheck(g, g.decls[0]!)!), ['open A (x)'], 'an `open … in` prefix, as an `open` of the block');
});

t.test("disprove's attempts replay the `open`s as written", async (t) => {
  const r = scriptedRunner(() => ({}));
  const content = `namespace N\n${FORMS.join('\n')}\ntheorem wrong : 1 = 2 := sorry\nend N\n`;
  await disprove.run(
    parseToolRequest('disprove', { content, environment: 'x', terminal_tactics: ['decide'] }),
    toolCtx(r),
  );
  const probe = r.jobs[0]!.commands.find((c) => c.text.includes('axle_disprove_0 :'))!.text;
  t.match(probe, /^namespace N\n/, "in the theorem's namespace");
  t.same(openLines(probe), FORMS);
});
