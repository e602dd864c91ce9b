/**
 * Issue 23, item 10: an unterminated comment at the end of a file. Each reprint added a
 * newline (not idempotent), and after a theorem it was the tail of the theorem's body, so
 * theorem2sorry dropped it with the proof. Transformations are idempotent and never drop text.
 */
import t from 'tap';
import { reprint } from '../../src/tools/layout.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { theorem2sorry } from '../../src/tools/theorem2sorry.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const CASES = [
  'theorem a : True := trivial\n/-- doc',
  'theorem a : True := trivial\n/-- doc\n',
  'theorem a : True := by\n  trivial\n/-- doc\n',
  'theorem a : True := trivial\n/- c\n',
  '/-- doc\n',
];

t.test('reprint is idempotent on a trailing unterminated comment', async (t) => {
  for (const text of CASES) {
    const once = reprint(text);
    t.equal(reprint(once), once, JSON.stringify(text));
    t.equal(once.endsWith('\n\n'), false, `${JSON.stringify(text)}: no newline added`);
    t.equal(once.endsWith('\n'), text.endsWith('\n'), `${JSON.stringify(text)}: the final newline as in the input`);
  }
});

t.test('theorem2sorry keeps a trailing unterminated comment', async (t) => {
  for (const text of CASES.slice(0, 4)) {
    const req = parseToolRequest('theorem2sorry', { content: text, environment: 'x', reparse: false });
    const out = (await theorem2sorry.run(req, toolCtx(scriptedRunner(() => ({}))))).content;
    const comment = text.slice(text.lastIndexOf('/-')).trimEnd();
    t.ok(out.includes(comment), `${JSON.stringify(text)} → ${JSON.stringify(out)} keeps ${JSON.stringify(comment)}`);
    t.match(out, /theorem a : True := sorry/, 'and the proof is replaced');
  }
});
