/**
 * The adversarial input families of issue 11, each at a size the old code took many seconds
 * on (or overflowed the stack with a 500): every one must finish with the right result. Their
 * cost is measured in bench/scenarios/adversarial.ts (time per byte at 1×–64×, flat when
 * linear), not asserted here: a unit test asserts outcomes, never elapsed time (a loaded
 * machine makes any bound flaky); a return to quadratic code still shows here as tap's timeout.
 */
import t from 'tap';
import { lex } from '../../src/syntax/lexer.ts';
import { parseSource, printSource } from '../../src/syntax/source.ts';
import { normalizeSource } from '../../src/tools/normalize-source.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { theorem2sorry } from '../../src/tools/theorem2sorry.ts';
import { scriptedRunner, testEnv, toolCtx } from '../tools/runner.ts';

const ctx = toolCtx(scriptedRunner(() => ({})));

const sorried = (content: string, extra: Record<string, unknown> = {}) =>
  theorem2sorry.run(
    {
      content,
      environment: testEnv.name,
      ignore_imports: true,
      reparse: false,
      theorems_only: true,
      timeout_seconds: 60,
      ...extra,
    } as never,
    ctx,
  );

t.test('namespace a × 20,000 (old: ×4,000 took 32 s): parse, rename, theorem2sorry, normalize', async (t) => {
  const src = `${'namespace a\n'.repeat(20_000)}theorem t : True := trivial\ntheorem u : True := t\n`;
  const f = parseSource(src);
  t.equal(f.decls[0]!.fullName, `${'a.'.repeat(20_000)}t`);
  const r = renameInSource(src, { [f.decls[0]!.fullName!]: `${'a.'.repeat(20_000)}v` });
  t.ok(r.output.endsWith('theorem v : True := trivial\ntheorem u : True := v\n'));
  const out = await sorried(src);
  t.ok(out.content.endsWith('theorem t : True := sorry\n\ntheorem u : True := sorry\n'));
  const n = normalizeSource(src, ['remove_sections', 'expand_decl_names', 'remove_duplicates']);
  t.equal(n.stats.remove_sections, 20_000, 'every namespace removed');
});

t.test('section × 20,000 (old: ~98 KB took 8–11 s)', async (t) => {
  const src = `${'section\n'.repeat(20_000)}theorem t : True := trivial\n`;
  const out = await sorried(src);
  t.ok(out.content.endsWith('theorem t : True := sorry\n'));
  t.equal(renameInSource(src, { t: 'u' }).renamed, 1, 'renamed');
});

t.test('one dotted identifier a.a.a… of 200 KB (old: 100 KB took 16 s)', async (t) => {
  const src = `def a : Nat := 0\ntheorem t : True := ${'a.'.repeat(100_000)}a\n`;
  const r = renameInSource(src, { a: 'b' });
  // The longest prefix that resolves is `a` itself (the rest are projections of it).
  t.ok(r.output.startsWith(`def b : Nat := 0\ntheorem t : True := b.a.a`));
  t.type(normalizeSource(src, ['expand_decl_names']).output, 'string');
});

t.test('unterminated interpolated strings x!"{a" × 40,000 (old: 200 KB took 7 s)', async (t) => {
  const src = 'x!"{a"\n'.repeat(40_000);
  const f = parseSource(src);
  t.equal(printSource(f), src);
});

t.test('open a × 20,000 (old: 64 KB took 5 s)', async (t) => {
  const src = `${'open a\n'.repeat(20_000)}theorem t : True := trivial\n`;
  const f = parseSource(src);
  t.same(f.decls[0]!.opens, ['a'], 'opening the same namespace again adds nothing');
  t.equal(renameInSource(src, { t: 'u' }).renamed, 1, 'renamed');
});

t.test('nested s!"{ × 30,000 (old: 20 KB overflowed the stack)', async (t) => {
  const src = `def x := ${'s!"{'.repeat(30_000)}\n`;
  const toks = lex(src);
  t.equal(toks.map((k) => src.slice(k.start, k.end)).join(''), src);
  const closed = `def y := ${'s!"{'.repeat(30_000)}1${'}"'.repeat(30_000)}\n`;
  const f = parseSource(closed);
  t.equal(f.sig.kind.filter((k) => k === 'string').length, 1, 'a closed nesting is one string token');
});

t.test('rename map of 100,000 entries over 20,000 declarations (old: 9 s)', async (t) => {
  const src = Array.from({ length: 20_000 }, (_, i) => `theorem t${i} : True := trivial`).join('\n');
  const mapping = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`t${i}`, `u${i}`]));
  const r = renameInSource(src, mapping);
  t.equal(r.renamed, 20_000);
  t.equal(r.errors.length, 80_000);
  t.match(r.output, /^theorem u0 : True := trivial\ntheorem u1 /);
});

t.test('150,000 decreasing_by clauses (old: 500 from a spread into Math.max)', async (t) => {
  const src = `theorem t : True := trivial\n${'decreasing_by simp\n'.repeat(150_000)}`;
  const out = await sorried(src);
  t.equal(out.content, 'theorem t : True := sorry\n');
});

t.test('125,000 names or indices (old: 500 from a spread into push)', async (t) => {
  const src = Array.from({ length: 2_000 }, (_, i) => `theorem t${i} : True := trivial`).join('\n');
  const names = Array.from({ length: 125_000 }, (_, i) => `t${i}`);
  const byName = await sorried(src, { names });
  t.equal(byName.tool_messages.errors.length, 123_000);
  t.equal((byName.content.match(/:= sorry/g) ?? []).length, 2_000);
  const indices = Array.from({ length: 125_000 }, (_, i) => i);
  const byIndex = await sorried(src, { indices });
  t.equal(byIndex.tool_messages.errors.length, 123_000);
  // Many declarations sharing a short name: one ambiguity error lists a bounded number of candidates.
  const many = Array.from({ length: 5_000 }, (_, i) => `theorem N${i}.x : True := trivial`).join('\n');
  const amb = await sorried(many, { names: Array.from({ length: 20_000 }, () => 'x') });
  t.equal(amb.tool_messages.errors.length, 1);
  t.match(amb.tool_messages.errors[0], /ambiguous; candidates: N0\.x, .* and 4990 more$/);
});
