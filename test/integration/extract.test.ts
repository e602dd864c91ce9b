/**
 * extract_decls against a real Lean toolchain and REPL (the helper lean/ExtractHelper.lean
 * really elaborated). Runs when an environment of config/ is available; otherwise every test
 * is skipped and the reason printed.
 */
import t, { type Test } from 'tap';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { chooseEnvironment, config } from './harness.ts';

const { env: ready, skip } = chooseEnvironment(config.environments);
if (skip) t.comment(`SKIP extract_decls integration tests: ${skip}`);

async function app(t: Test): Promise<FastifyInstance> {
  const a = await buildApp({
    logger: false,
    config: { ...config, lean: { ...config.lean, minWarm: 0, maxSessions: 1 } },
  });
  await a.ready();
  t.teardown(() => a.close());
  return a;
}
const call = async (a: FastifyInstance, tool: string, body: Record<string, unknown>) =>
  (
    await a.inject({
      method: 'POST',
      url: `/api/v1/${tool}`,
      payload: { environment: ready?.name, timeout_seconds: 600, ...body },
    })
  ).json();

t.test('every semantic field on a small file', { skip }, async (t) => {
  const a = await app(t);
  const r = await call(a, 'extract_decls', {
    content:
      'def double (n : Nat) : Nat := 2 * n\n\ntheorem double_eq (n : Nat) : double n = n + n := by\n  unfold double\n  omega\n\ntheorem holey : 1 = 1 := by\n  sorry\n',
  });
  t.same(r.tool_messages.errors, [], 'the helper elaborated and answered');
  t.same(r.lean_messages.errors, []);
  const d = r.documents.double_eq;
  t.match(d.type, /double n = n \+ n/);
  t.equal(typeof d.type_hash, 'number');
  t.equal(typeof d.unfolded_type_hash, 'number');
  t.ok(d.type_depth > 0 && d.type_depth <= 255);
  t.ok(d.term_depth > 0 && d.term_depth <= 255);
  t.equal(d.is_sorry, false);
  t.same(d.local_type_dependencies, ['double']);
  t.ok(
    d.external_type_dependencies.includes('Eq') && d.external_type_dependencies.includes('HAdd.hAdd'),
    'immediate external constants of the type',
  );
  t.ok(d.external_value_dependencies.length > 0);
  t.ok(Number.isFinite(d.wall_ms) && d.wall_ms >= 0 && d.wall_ms < 600_000, `wall_ms is a duration (${d.wall_ms})`);
  t.ok(d.heartbeats > 0, 'an omega proof costs heartbeats');
  t.same(d.declaration_messages.errors, []);
  t.equal(r.documents.holey.is_sorry, true);
  t.match(
    r.documents.holey.declaration_messages.warnings.join('\n'),
    /^-:7:\d+(?:-\d+:\d+)?: warning: declaration uses .sorry./m,
    "at the user's position, not the wrapper's",
  );
  t.equal(r.documents.double.term_depth > 0, true);
  t.same(r.documents.double.local_value_dependencies, []);
});

t.test(
  'alpha-equivalent statements have equal type_hash; auxiliaries unfold to equal unfolded_type_hash',
  { skip },
  async (t) => {
    const a = await app(t);
    const r = await call(a, 'extract_decls', {
      content:
        [
          'theorem t1 : ∀ x : Nat, x + 0 = x := fun x => rfl',
          'theorem t2 : ∀ y : Nat, y + 0 = y := fun z => rfl',
          'theorem t3 : ∀ y : Nat, 0 + y = y := fun z => Nat.zero_add z',
          'theorem u1.{u} (α : Sort u) (a : α) : a = a := rfl',
          'theorem u2.{v} (β : Sort v) (b : β) : b = b := rfl',
          'def f (n : Nat) : Nat := match n with | 0 => 1 | _ => 2',
          'theorem m1 (n : Nat) : (match n with | 0 => 1 | _ => 2) = f n := rfl',
          'theorem m2 (n : Nat) : (match n with | 0 => 1 | _ => 2) = f n := rfl',
        ].join('\n\n') + '\n',
    });
    t.same(r.lean_messages.errors, []);
    const h = (n: string) => r.documents[n].type_hash;
    t.equal(h('t1'), h('t2'), 'bound variable names do not matter');
    t.not(h('t1'), h('t3'), 'a different statement');
    t.equal(h('u1'), h('u2'), 'universe parameter names do not matter');
    t.equal(r.documents.m1.unfolded_type_hash, r.documents.m2.unfolded_type_hash, 'matchers unfolded');
  },
);

t.test("a dependency chain: the last declaration's content compiles on its own", { skip }, async (t) => {
  const a = await app(t);
  const src =
    'namespace Chain\n\ndef base : Nat := 2\n\ndef twice : Nat := base + base\n\nend Chain\n\ndef unrelated : Nat := 7\n\nopen Chain in\ntheorem twice_eq : twice = 4 := by\n  decide\n';
  const r = await call(a, 'extract_decls', { content: src });
  const content = r.documents.twice_eq.content;
  t.notMatch(content, /unrelated/, 'only what it needs');
  t.same(r.documents.twice_eq.local_syntactic_dependencies, ['Chain.twice']);
  const c = await call(a, 'check', { content });
  t.equal(c.okay, true, 'compiles alone');
  t.same(c.lean_messages.errors, []);
});

t.test('extract_theorems and selection on a real toolchain', { skip }, async (t) => {
  const a = await app(t);
  const r = await call(a, 'extract_theorems', {
    content: 'def a : Nat := 1\n\ntheorem b : a = 1 := rfl\n\ntheorem c : a + 1 = 2 := rfl\n',
    names: ['c'],
  });
  t.same(Object.keys(r.documents), ['c']);
  t.equal(r.documents.c.content, '');
  t.same(r.documents.c.theorem_messages, r.documents.c.declaration_messages);
  t.match(r.documents.c.type, /a \+ 1 = 2/);
});
