/** The structural tools over HTTP: reparse false needs no Lean; reparse true goes through the backend. */
import t from 'tap';
import { TOOLS } from '../../src/contract/tools.ts';
import { makeApp, TEST_ENV, UNAVAILABLE_ENV } from '../helpers.ts';

const post = (tool: string, body: Record<string, unknown>) => ({
  method: 'POST' as const,
  url: `/api/v1/${tool}`,
  payload: body,
});
const content = 'import Mathlib\n\ntheorem a : 1 = 1 := by rfl\n\ntheorem b : 2 = 2 := rfl\n';

t.test('without Lean: reparse false works, with the header substituted and no Lean messages', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = await app.inject(
    post('theorem2sorry', {
      content: 'import Aesop\ntheorem a : 1 = 1 := rfl\n',
      environment: UNAVAILABLE_ENV,
      reparse: false,
    }),
  );
  t.equal(r.statusCode, 200);
  t.same(
    r.json().content,
    'theorem a : 1 = 1 := sorry\n',
    'the unavailable environment has no imports: its empty header replaces the content’s',
  );
  t.same(r.json().lean_messages, { errors: [], warnings: [], infos: [] });
  t.ok(TOOLS.theorem2sorry.response.safeParse(r.json()).success);
  const l = await app.inject(
    post('theorem2lemma', { content, environment: UNAVAILABLE_ENV, reparse: false, indices: [-1] }),
  );
  t.equal(l.json().content, 'theorem a : 1 = 1 := by rfl\n\nlemma b : 2 = 2 := rfl\n');
  const n = await app.inject(
    post('rename', { content, environment: UNAVAILABLE_ENV, reparse: false, declarations: { a: 'a1' } }),
  );
  t.match(n.json().content, /theorem a1 : 1 = 1/);
  for (const [tool, body] of [
    ['theorem2sorry', { reparse: true }],
    ['have2sorry', {}],
    ['normalize', {}],
  ] as const) {
    const r2 = await app.inject(post(tool, { content, environment: UNAVAILABLE_ENV, ...body }));
    t.equal(r2.statusCode, 409, `${tool} needing Lean on an unavailable environment: permanent, not retried`);
    t.equal(r2.json().error.code, 'environment_unavailable');
  }
});

t.test('selection errors are tool errors; the rest of the work is done', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const r = (
    await app.inject(
      post('theorem2sorry', { content, environment: UNAVAILABLE_ENV, reparse: false, names: ['b', 'nope'] }),
    )
  ).json();
  t.same(r.tool_messages.errors, [
    "Declaration 'nope' not found among theorems (set theorems_only to false to select other kinds)",
  ]);
  t.equal(r.content, 'theorem a : 1 = 1 := by rfl\n\ntheorem b : 2 = 2 := sorry\n');
});

t.test(
  'with reparse, the output is elaborated (here by the fake REPL double) with the environment header',
  async (t) => {
    const app = await makeApp();
    t.teardown(() => app.close());
    const r = (await app.inject(post('theorem2sorry', { content, environment: TEST_ENV, names: ['a'] }))).json();
    t.equal(r.content, 'import Mathlib\n\ntheorem a : 1 = 1 := sorry\n\ntheorem b : 2 = 2 := rfl\n');
    for (const k of ['elaborate_ms', 'total_ms'] as const) {
      const v = r.timings[k];
      t.ok(Number.isFinite(v) && v >= 0 && v < 60_000, `timings.${k} is a duration in ms (${v})`);
    }
    const h = await app.inject(
      post('have2sorry', {
        content: 'theorem t : True := by\n  have h : True := trivial\n  exact h\n',
        environment: TEST_ENV,
      }),
    );
    t.equal(h.statusCode, 200);
    t.match(h.json().content, /have h : True := sorry/);
    const n = await app.inject(
      post('normalize', { content: 'namespace N\ntheorem x : True := trivial\nend N\n', environment: TEST_ENV }),
    );
    t.same(n.json().normalize_stats, { remove_sections: 2 });
    t.match(n.json().content, /theorem N\.x : True := trivial/);
  },
);
