/**
 * What works without Lean, as the README and docs/tools.md say it, checked against the daemon on an
 * environment that cannot run Lean: each tool's example request (with `"reparse": false` where the
 * tool takes it) is answered 200 exactly for the tools of the table below, and 409 for every other;
 * a 409 advises `"reparse": false` only where that works. The docs' rows are read and compared with
 * the same table, so a claim in either that the daemon does not keep fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { TOOL_EXAMPLES } from '../../src/contract/examples.ts';
import { TOOL_NAMES, TOOLS } from '../../src/contract/tools.ts';
import { PROJECT_ROOT } from '../../src/config.ts';
import { makeApp, UNAVAILABLE_ENV } from '../helpers.ts';

/** Tool → whether it answers without Lean (given `"reparse": false` when it takes `reparse`). */
const WITHOUT_LEAN: Record<(typeof TOOL_NAMES)[number], boolean> = {
  check: false,
  verify_proof: false,
  comparator: false,
  repair_proofs: false,
  simplify_theorems: false,
  theorem2sorry: true,
  theorem2lemma: true,
  rename: true,
  have2sorry: false,
  normalize: false,
  have2lemma: false,
  sorry2lemma: false,
  extract_decls: false,
  extract_theorems: false,
  extract_proof_states: false,
  merge: false,
  disprove: false,
};
const works = TOOL_NAMES.filter((n) => WITHOUT_LEAN[n]);

t.test('each tool on an environment without Lean: 200 for the table, 409 for the rest', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const tool of TOOL_NAMES) {
    const reparse = 'reparse' in TOOLS[tool].request.shape ? { reparse: false } : {};
    const r = await app.inject({
      method: 'POST',
      url: `/api/v1/${tool}`,
      payload: { ...TOOL_EXAMPLES[tool], ...reparse, environment: UNAVAILABLE_ENV },
    });
    t.equal(r.statusCode, WITHOUT_LEAN[tool] ? 200 : 409, `${tool}: ${r.body.slice(0, 200)}`);
    if (r.statusCode !== 409) continue;
    t.equal(r.json().error.code, 'environment_unavailable', tool);
    // The advice is followed above (reparse false was sent): it may only be given where it worked.
    t.notMatch(r.json().error.message, '"reparse": false', `${tool}: no advice that gets the same 409`);
  }
});

t.test('the 409 of a tool that works with "reparse": false says so', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  for (const tool of works) {
    const r = await app.inject({
      method: 'POST',
      url: `/api/v1/${tool}`,
      payload: { ...TOOL_EXAMPLES[tool], reparse: true, environment: UNAVAILABLE_ENV },
    });
    t.equal(r.statusCode, 409, tool);
    t.match(r.json().error.message, `${tool} still answers with "reparse": false`, tool);
  }
});

/** The tools named in backticks on the table rows of a markdown file that match `row`. */
function toolsOnRows(file: string, row: RegExp): Set<string> {
  const text = readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
  const lines = text.split('\n').filter((l) => l.startsWith('| `') && row.test(l));
  return new Set(lines.flatMap((l) => [...l.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!)));
}

t.test('README and docs/tools.md claim "no Lean" for exactly those tools', async (t) => {
  for (const file of ['README.md', 'docs/tools.md']) {
    t.same([...toolsOnRows(file, /no Lean|without Lean/)].sort(), [...works].sort(), `${file}: rows saying no Lean`);
    for (const tool of toolsOnRows(file, /need Lean|always elaborated/))
      t.equal(WITHOUT_LEAN[tool as keyof typeof WITHOUT_LEAN], false, `${file}: ${tool} needs Lean`);
  }
});
