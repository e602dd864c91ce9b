/**
 * A source whose model would cost more than its budget (namespaces opened one command at a
 * time, see SCOPE_ENTRY_BUDGET) is answered 400 invalid_request, quickly, on a worker thread and on
 * the main thread alike; a real-sized file of the same shape still parses.
 */
import t from 'tap';
import { SCOPE_ENTRY_BUDGET, parseSource, SourceLimitError } from '../../src/syntax/source.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { scriptedRunner } from '../tools/runner.ts';

/** n distinct namespaces opened one at a time, a declaration after each. */
const distinctOpens = (n: number) =>
  Array.from({ length: n }, (_, i) => `open a${i}\ntheorem t${i} : True := trivial\n`).join('');

t.test('the parser refuses distinct opens past the budget, fast, and accepts what real files do', async (t) => {
  // Refused by counting, before the lists are built (the old code built them: 7 s and 2 GB); the
  // budget is an entry count, so the refusal is checked by outcome here, its cost in bench/.
  t.throws(() => parseSource(distinctOpens(16_000)), SourceLimitError);
  const n = Math.floor(Math.sqrt(SCOPE_ENTRY_BUDGET)); // n opens cost about n²/2 entries: half the budget
  const f = parseSource(distinctOpens(n));
  t.equal(f.decls.length, n);
  t.equal(f.decls.at(-1)!.opens.length, n, 'every namespace stays in force');
  const one = `open ${Array.from({ length: 100_000 }, (_, i) => `b${i}`).join(' ')}\ntheorem t : True := trivial\n`;
  t.equal(parseSource(one).decls[0]!.opens.length, 100_000, 'many namespaces in one command cost one list');
});

t.test('over HTTP: 400 invalid_request from a worker thread and from the main thread', async (t) => {
  const app = await makeApp({ lean: scriptedRunner(() => ({})) });
  t.teardown(() => app.close());
  const content = distinctOpens(16_000);
  for (const [tool, extra, where] of [
    ['theorem2sorry', { reparse: false }, 'structural, on a worker thread'],
    ['check', {}, 'Lean-backed, parsed on the main thread'],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/${tool}`,
      payload: { content, environment: TEST_ENV, ...extra },
    });
    t.equal(res.statusCode, 400, where);
    t.equal(res.json().error.code, 'invalid_request', where);
    t.match(
      res.json().error.message,
      /^a Lean source in this request is too costly to model: it opens namespaces or declares variables one command at a time/,
      where,
    );
  }
  const fine = await app.inject({
    method: 'POST',
    url: '/api/v1/theorem2sorry',
    payload: { content: distinctOpens(100), environment: TEST_ENV, reparse: false },
  });
  t.equal(fine.statusCode, 200, 'the daemon serves the next request');
});
