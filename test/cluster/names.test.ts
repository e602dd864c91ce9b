/** Routing keys and NATS names: pure functions, no server needed. */
import t from 'tap';
import { keyId, Names, requestHeader, token, workKey } from '../../src/cluster/names.ts';

t.test('the routing key: environment and canonical header', async (t) => {
  const a = workKey('lean-4.28.0', 'import Mathlib\n\n-- comment\nimport Aesop  \n');
  const b = workKey('lean-4.28.0', '  import Mathlib\nimport Aesop');
  t.same(a, b, 'blank lines, comments and indentation do not change the key');
  t.not(
    workKey('lean-4.28.0', 'import Mathlib').hash,
    workKey('core-4.28.0', 'import Mathlib').hash,
    'the environment is part of it',
  );
  t.not(
    workKey('e', 'import A\nimport B').hash,
    workKey('e', 'import B\nimport A').hash,
    'import order matters (Lean elaborates in order)',
  );
  t.match(a.hash, /^[0-9a-f]{16}$/);
  t.same(
    workKey('e', 'import Mathlib /- block\ncomment -/ import Aesop'),
    workKey('e', 'import Mathlib\nimport Aesop'),
    'the pool key rule: block comments and line breaks are trivia',
  );
});

t.test('the header a request elaborates first', async (t) => {
  t.equal(
    requestHeader({ content: 'import Foo\ntheorem x : True := trivial' }, 'import Mathlib'),
    'import Mathlib',
    'ignore_imports (default true): the environment header',
  );
  t.match(
    requestHeader({ content: 'import Foo\n\ntheorem x : True := trivial', ignore_imports: false }, 'import Mathlib'),
    /^import Foo\s*$/,
    "ignore_imports false: the content's own",
  );
  t.equal(
    requestHeader({ documents: ['a'] } as never, 'import Mathlib'),
    'import Mathlib',
    'no content: the environment header',
  );
});

t.test('subjects and consumer names are valid NATS tokens', async (t) => {
  const n = new Names('lean', 16);
  const k = workKey('lean-4.28.0', 'import Mathlib');
  t.equal(token('lean-4.28.0'), 'lean-4_28_0', 'dots would split the subject');
  t.equal(token('a b*>c'), 'a_b__c');
  t.match(n.bucketSubject(k), /^lean\.work\.lean-4_28_0\.b([0-9]|1[0-5])$/);
  t.equal(keyId(k), `lean-4_28_0.${k.hash}`);
  for (const s of [n.bucketSubject(k), n.workSubject('lean-4.28.0', 'any'), n.workSubject('lean-4.28.0', 'plain')]) {
    t.match(n.consumerOf(s), /^[A-Za-z0-9_-]+$/, 'durable names take no dots or wildcards');
    t.same(n.parseWork(s)?.envToken, 'lean-4_28_0');
  }
  t.equal(n.workSubject('lean-4.28.0', 'any'), 'lean.work.lean-4_28_0.any');
});

t.test('the work subjects are bounded: any number of headers falls into the same buckets', async (t) => {
  const n = new Names('lean', 16);
  const subjects = new Set<string>();
  for (let i = 0; i < 1000; i++) subjects.add(n.bucketSubject(workKey('e', `import H${i}`)));
  t.equal(subjects.size, 16, '1,000 headers, 16 subjects (hence 16 consumers) for the environment');
  t.equal(
    n.bucketSubject(workKey('e', 'import A\nimport B')),
    n.bucketSubject(workKey('e', '  import A\n\nimport B  ')),
    'one canonical header, one bucket',
  );
});
