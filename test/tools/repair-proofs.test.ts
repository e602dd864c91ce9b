/** repair_proofs' passes against a scripted runner double that reacts to the command text like Lean would. */
import t from 'tap';
import type { LeanMessage } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { repair_proofs } from '../../src/tools/repair-proofs.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

/** Where `needle` sits in a command, as a Lean position shifted to the content. */
function posOf(text: string, needle: string, origin: { line: number; column: number }) {
  const i = text.indexOf(needle);
  const before = text.slice(0, i).split('\n');
  const line = before.length;
  const column = before.at(-1)!.length;
  return line === 1 ? { line: origin.line, column: origin.column + column } : { line: origin.line + line - 1, column };
}

function runner() {
  return scriptedRunner((c) => {
    const m: LeanMessage[] = [];
    const err = (needle: string, text: string) => m.push(msg('error', posOf(c.text, needle, c.origin), text));
    if (/^set_option bogus/.test(c.text) || c.text.includes('set_option bogus.opt true in'))
      err('set_option', "unknown option 'bogus.opt'");
    // grind (the default terminal tactic) closes what intro_only leaves open.
    if (c.text.includes('intro_only') && !/sorry|grind/.test(c.text))
      err(
        'by',
        c.text.includes('two_goals') ? 'unsolved goals\ncase a\n⊢ P\ncase b\n⊢ Q' : 'unsolved goals\nh : P\n⊢ Q',
      );
    if (c.text.includes('extra_tac')) err('extra_tac', 'no goals to be proved');
    if (c.text.includes('bad_tac')) err('bad_tac', 'tactic failed');
    if (c.text.includes('decide +kernel') && c.text.includes('kernel_fails')) err('decide', 'maximum recursion depth');
    if (/\bsorry\b/.test(c.text)) m.push(msg('warning', c.origin, 'declaration uses `sorry`'));
    return { messages: m };
  });
}
const run = (content: string, extra: Record<string, unknown> = {}) =>
  repair_proofs.run(parseToolRequest('repair_proofs', { content, environment: 'x', ...extra }), toolCtx(runner()));

t.test('remove_unknown_options drops the command and unwraps `in`', async (t) => {
  const r = await run('set_option bogus.opt true\nset_option bogus.opt true in\ntheorem a : True := trivial\n');
  t.equal(r.content, 'theorem a : True := trivial\n', 'no gap left where the command was (AXLE layout)');
  t.same(r.repair_stats, { remove_unknown_options: 2 });
  t.equal(r.okay, true);
});

t.test(
  'insert_sorries: open goals get sorry (all_goals for several, `;` on one line); then terminal tactics replace it',
  async (t) => {
    const multi = await run('theorem b (h : P) : Q := by\n  intro_only\n', { repairs: ['insert_sorries'] });
    t.equal(multi.content, 'theorem b (h : P) : Q := by\n  intro_only\n  sorry\n');
    t.same(multi.repair_stats, { insert_sorries: 1 });
    const one = await run('theorem c : P ∧ Q := by intro_only two_goals\n', { repairs: ['insert_sorries'] });
    t.equal(one.content, 'theorem c : P ∧ Q := by intro_only two_goals; all_goals sorry\n');
    const full = await run('theorem b (h : P) : Q := by\n  intro_only\n');
    t.equal(
      full.content,
      'theorem b (h : P) : Q := by\n  intro_only\n  grind\n',
      'inserted, then proved by the default terminal tactic',
    );
    t.same(full.repair_stats, { insert_sorries: 1, apply_terminal_tactics: 1 });
    t.equal(full.okay, true);
  },
);

t.test('remove_extraneous_tactics truncates what follows a finished proof', async (t) => {
  const r = await run('theorem d : True := by\n  trivial\n  extra_tac\n  more\n');
  t.equal(r.content, 'theorem d : True := by\n  trivial\n');
  t.same(r.repair_stats, { remove_extraneous_tactics: 1 });
});

t.test('apply_terminal_tactics: the first tactic that works; a sorry none proves is a failed repair', async (t) => {
  const r = await run('theorem e : True := by\n  sorry\n', { terminal_tactics: ['bad_tac', 'grind'] });
  t.equal(r.content, 'theorem e : True := by\n  grind\n');
  const failed = await run('theorem f : True := by\n  sorry\n', { terminal_tactics: ['bad_tac'] });
  t.equal(failed.okay, false);
  t.match(
    failed.tool_messages.errors[0],
    /apply_terminal_tactics: no terminal tactic \(bad_tac\) proves the sorry in 'f' at line 2/,
  );
  t.equal(failed.content, 'theorem f : True := by\n  sorry\n');
});

t.test('replace_unsafe_tactics: native_decide → decide +kernel where Lean accepts it', async (t) => {
  const r = await run('theorem g : 2 + 2 = 4 := by\n  native_decide\n');
  t.equal(r.content, 'theorem g : 2 + 2 = 4 := by\n  decide +kernel\n');
  t.same(r.repair_stats, { replace_unsafe_tactics: 1 });
  const kept = await run('theorem h : kernel_fails := by\n  native_decide\n');
  t.match(kept.content, /native_decide/);
  t.equal(kept.okay, false);
  t.match(kept.tool_messages.errors[0], /cannot be safely replaced/);
});

t.test('replace_unsafe_tactics goes on past a refused native_decide to the next declaration', async (t) => {
  const r = await run(
    'theorem h : kernel_fails := by\n  native_decide\n\ntheorem g : 2 + 2 = 4 := by\n  native_decide\n',
  );
  t.equal(
    r.content,
    'theorem h : kernel_fails := by\n  native_decide\n\ntheorem g : 2 + 2 = 4 := by\n  decide +kernel\n',
  );
  t.same(r.repair_stats, { replace_unsafe_tactics: 1 });
  t.equal(r.tool_messages.errors.length, 1);
  t.match(r.tool_messages.errors[0], /native_decide in 'h'/);
});

t.test('relax_defeq_transparency is a no-op before Lean 4.29', async (t) => {
  const r = await run('theorem i : True := by\n  bad_tac\n', { repairs: ['relax_defeq_transparency'] });
  t.same(r.repair_stats, {});
  t.equal(r.okay, false);
});
