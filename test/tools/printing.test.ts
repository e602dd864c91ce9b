/**
 * verbosity and delab_options: the preset table, and the options reaching the elaboration whose
 * goals become source (have2lemma, sorry2lemma) or are reported (disprove), not the re-elaboration
 * of the output. The scripted runner double prints a goal explicitly when the job set pp.explicit,
 * as Lean would under that option; no Lean result is invented for the product.
 */
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { have2lemma } from '../../src/tools/have2lemma.ts';
import { printingOptions, VERBOSITY_PRESETS } from '../../src/tools/printing.ts';
import { sorry2lemma } from '../../src/tools/sorry2lemma.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

t.test("presets: 0 is Lean's defaults, each level adds to the one below, delab_options win", async (t) => {
  t.same(printingOptions(0, undefined), {});
  t.same(printingOptions(undefined, undefined), {});
  for (const [k, v] of Object.entries(VERBOSITY_PRESETS[1]!))
    t.equal(VERBOSITY_PRESETS[2]![k] ?? v, v, `level 2 keeps ${k}`);
  t.equal(printingOptions(1, undefined)['pp.numericTypes'], true);
  t.equal(printingOptions(1, undefined)['pp.explicit'], undefined);
  t.equal(printingOptions(2, undefined)['pp.explicit'], true);
  t.equal(printingOptions(2, { 'pp.explicit': false })['pp.explicit'], false);
  t.same(printingOptions(0, { 'pp.all': true }), { 'pp.all': true });
});

function goalRunner() {
  const r = scriptedRunner((c, n) => {
    const explicit = r.jobs[n]!.commands.some((x) => x.text === 'set_option pp.explicit true');
    if (c.text.startsWith('set_option pp.bogus'))
      return { messages: [msg('error', c.origin, "unknown option 'pp.bogus'")] };
    if (!c.text.includes('sorry') || n > 0) return {};
    const col = c.text.split('\n').findIndex((l) => l.includes('sorry'));
    const line = c.text.split('\n')[col]!;
    return {
      sorries: [
        {
          pos: { line: col + 1, column: line.indexOf('sorry') },
          endPos: undefined,
          goal: explicit ? 'x : ℕ\n⊢ @Eq ℕ x x' : 'x : ℕ\n⊢ x = x',
          proofState: 0,
          origin: c.origin,
        },
      ] as never,
    };
  });
  return r;
}
const options = (r: ReturnType<typeof goalRunner>, job: number) =>
  r.jobs[job]!.commands.filter((c) => c.text.startsWith('set_option pp.')).map((c) => c.text);
const content = 'theorem t (x : ℕ) : x = x := by\n  have h : x = x := by rfl\n  exact h\n';

t.test(
  'have2lemma: verbosity 2 prints the goal explicitly into the lemma; the reparse runs without the options',
  async (t) => {
    const r = goalRunner();
    const res = await have2lemma.run(
      parseToolRequest('have2lemma', { content, environment: 'x', verbosity: 2 }),
      toolCtx(r),
    );
    t.ok(options(r, 0).includes('set_option pp.explicit true'));
    t.ok(options(r, 0).includes('set_option pp.universes true'));
    t.match(res.content, /theorem t\.h \(x : ℕ\) :\s+@Eq ℕ x x := by\s+sorry/);
    t.same(options(r, 1), [], 'the output is re-elaborated as written, with default printing');

    const plain = goalRunner();
    const res0 = await have2lemma.run(parseToolRequest('have2lemma', { content, environment: 'x' }), toolCtx(plain));
    // Only the options that make goals re-elaborate as lemma statements (GOAL_PRINTING_OPTIONS, issue 10).
    t.same(
      options(plain, 0),
      ['set_option pp.proofs true', 'set_option pp.numericTypes true'],
      'verbosity 0 without delab_options sets only the goal-printing options',
    );
    t.match(res0.content, /theorem t\.h \(x : ℕ\) :\s+x = x := by\s+sorry/);

    const over = goalRunner();
    await have2lemma.run(
      parseToolRequest('have2lemma', {
        content,
        environment: 'x',
        verbosity: 2,
        delab_options: { 'pp.explicit': false },
      }),
      toolCtx(over),
    );
    t.ok(options(over, 0).includes('set_option pp.explicit false'), 'delab_options override the preset');
    t.notOk(options(over, 0).includes('set_option pp.explicit true'));
  },
);

t.test('sorry2lemma honours verbosity; disprove honours verbosity and delab_options', async (t) => {
  const s = goalRunner();
  await sorry2lemma.run(
    parseToolRequest('sorry2lemma', {
      content: 'theorem t (x : ℕ) : x = x := by\n  sorry\n',
      environment: 'x',
      verbosity: 1,
    }),
    toolCtx(s),
  );
  t.ok(options(s, 0).includes('set_option pp.numericTypes true'));
  const d = goalRunner();
  await disprove.run(
    parseToolRequest('disprove', {
      content: 'theorem t (x : ℕ) : x = x := rfl\n',
      environment: 'x',
      delab_options: { 'pp.fullNames': true },
    }),
    toolCtx(d),
  );
  t.same(options(d, 0), ['set_option pp.fullNames true']);
});

t.test('an option Lean does not know is a tool error naming where it came from', async (t) => {
  const r = goalRunner();
  const res = await have2lemma.run(
    parseToolRequest('have2lemma', { content, environment: 'x', delab_options: { 'pp.bogus': true } }),
    toolCtx(r),
  );
  t.match(res.tool_messages.errors.join('\n'), /verbosity\/delab_options\.pp\.bogus: unknown option 'pp\.bogus'/);
});
