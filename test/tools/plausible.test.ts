/**
 * The reader of Plausible's answers (src/tools/plausible.ts) on what Plausible printed, as recorded
 * by `#guard_msgs` in its own tests and in Mathlib's (../shared/recorded/plausible/<tag>/Test/Tactic.lean,
 * ../shared/recorded/mathlib/MathlibTest/slim_check.lean), and disprove's report of a recorded
 * counter-example (a scripted runner answering the search probe with the recorded text).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { disprove } from '../../src/tools/disprove.ts';
import { readSearch } from '../../src/tools/plausible.ts';
import { guardMsgsItems } from '../recorded/guard-msgs-source.ts';
import type { RecordedItem } from '../recorded/types.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { msg, scriptedRunner, toolCtx } from './runner.ts';

const FILES = [
  'plausible/v4.21.0/Test/Tactic.lean',
  'plausible/v4.28.0/Test/Tactic.lean',
  'mathlib/MathlibTest/slim_check.lean',
];
const origin = { line: 1, column: 0 };

function recorded(rel: string): RecordedItem[] | string {
  const root = sharedPath('recorded');
  if (!root) return sharedSkip('recorded') as string;
  const file = path.join(root, rel);
  if (!existsSync(file)) return `no ${file}`;
  // Only the commands that run the tactic, with every message recorded (no `(drop …)` filter).
  return guardMsgsItems(readFileSync(file, 'utf8'), rel, rel).filter(
    (i) => /\bplausible\b/.test(i.input) && !/^\s*#(eval|sample|test)/m.test(i.input) && i.filter === undefined,
  );
}

for (const rel of FILES) {
  const items = recorded(rel);
  t.test(
    `each recorded plausible answer is read as what it says (${rel})`,
    { skip: typeof items === 'string' && items },
    async (t) => {
      const kinds = new Set<string>();
      for (const item of items as RecordedItem[]) {
        const at = `${rel}:${item.line}`;
        const o = readSearch(
          item.messages.map((m) => msg(m.severity === 'trace' ? 'info' : m.severity, origin, m.text)),
        );
        const errors = item.messages.filter((m) => m.severity === 'error');
        const found = errors.find((m) => m.text.includes('Found a counter-example!'));
        if (found) {
          t.equal(o?.kind, 'counterexample', `${at}: a counter-example`);
          if (o?.kind !== 'counterexample') continue;
          const shrinks = /\((\d+) shrinks\)/.exec(found.text)?.[1];
          t.equal(o.shrinks, shrinks === undefined ? undefined : Number(shrinks), `${at}: its shrinks`);
          t.same(
            o.issues,
            [...found.text.matchAll(/^issue: (.*)$/gm)].map((m) => m[1]),
            `${at}: its issues`,
          );
          t.ok(o.report.includes('Found a counter-example!'), `${at}: the report is Plausible's text`);
        } else if (errors.length > 0) t.equal(o?.kind, 'failed', `${at}: another error: plausible could not test`);
        else if (item.messages.some((m) => m.text.startsWith('Gave up after'))) t.equal(o?.kind, 'gave-up', at);
        else if (item.messages.some((m) => m.text === 'Unable to find a counter-example')) t.equal(o?.kind, 'none', at);
        else continue;
        kinds.add(o!.kind);
      }
      t.ok(kinds.has('counterexample'), 'the file records counter-examples');
    },
  );
}

// Mathlib's recorded answer for `example (f : ℤ → ℤ) : Injective f := by plausible (config := { randomSeed := some 257 })`.
const slim = recorded('mathlib/MathlibTest/slim_check.lean');
t.test(
  'disprove reports a recorded counter-example with its issue and shrinks, not as a disproof',
  { skip: typeof slim === 'string' && slim },
  async (t) => {
    const items = slim as RecordedItem[];
    const item = items.find((i) => i.input.includes('example (f : ℤ → ℤ) : Injective f := by'));
    if (!item) return t.fail('the recorded Injective example is missing');
    const answer = item.messages.map((m) => msg(m.severity === 'trace' ? 'info' : m.severity, origin, m.text));
    const runner = scriptedRunner((c) =>
      c.text.includes('plausible (config')
        ? { messages: answer }
        : /theorem axle_disprove/.test(c.text)
          ? { messages: [msg('error', c.origin, 'grind failed')] }
          : {},
    );
    const content = 'theorem inj (f : ℤ → ℤ) : Function.Injective f := sorry\n';
    const res = await disprove.run(parseToolRequest('disprove', { content, environment: 'x' }), toolCtx(runner));
    const search = runner.jobs[0]!.commands.find((c) => c.text.includes('plausible'))!.text;
    t.match(
      search,
      /^section\nexample : ∀ \(f : ℤ → ℤ\), Function\.Injective f := by\n {2}plausible /,
      'plausible on the theorem itself',
    );
    t.same(res.disproved_theorems, [], 'a counter-example is not a proof of the negation');
    t.match(
      res.results.inj,
      /^Disprove: plausible found a counter-example, but no terminal tactic proved the negation \(grind: grind failed\)/,
    );
    t.match(res.results.inj, /issue: 0 = 1 does not hold\n\(5 shrinks\)/, 'the issue text and the number of shrinks');
  },
);
