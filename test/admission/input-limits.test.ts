/**
 * Input limits on the parsed body, field by field: the UTF-8 size of verify_proof's texts
 * (limits.contentBytes) and the number of globs in `permitted_sorries`, each refused with a 400
 * naming the field, directly and through HTTP.
 */
import t from 'tap';
import { checkInputLimits, DEFAULT_INPUT_LIMITS } from '../../src/admission/input-limits.ts';
import { MAX_PERMITTED_GLOBS } from '../../src/contract/tools.ts';
import { makeApp, testConfig, TEST_ENV } from '../helpers.ts';

const limits = { ...DEFAULT_INPUT_LIMITS, contentBytes: 30 };

/** The refusal's message, or undefined when the body is within the limits. */
function refusal(body: Record<string, unknown>, l = limits): string | undefined {
  try {
    checkInputLimits(body, l);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

t.test('limits.contentBytes: content and formal_statement measured in UTF-8 bytes', async (t) => {
  const over = 'content is larger than the limit of 30 bytes (limits.contentBytes)';
  t.equal(refusal({ content: 'a'.repeat(30) }), undefined, 'at the limit');
  t.equal(refusal({ content: 'a'.repeat(31) }), over, 'one byte over');
  t.equal(refusal({ content: '€'.repeat(10) }), undefined, '10 three-byte characters: 30 bytes');
  t.equal(refusal({ content: '€'.repeat(11) }), over, '11 characters, 33 bytes');
  t.equal(refusal({ content: 'é'.repeat(16) }), over, '16 characters, 32 bytes');
  t.equal(
    refusal({ content: 'ok', formal_statement: 'x'.repeat(31) }),
    'formal_statement is larger than the limit of 30 bytes (limits.contentBytes)',
  );
  t.match(refusal({ documents: ['ok', 'y'.repeat(31)] }), /^documents\.1 is larger than the limit of 30 bytes/);
});

t.test(`permitted_sorries: at most ${MAX_PERMITTED_GLOBS} globs, any number of exact names`, async (t) => {
  const globs = (n: number) => Array.from({ length: n }, (_, i) => `thm${i}._native.native_decide.*`);
  const names = Array.from({ length: 5000 }, (_, i) => `thm${i}`);
  t.equal(refusal({ permitted_sorries: [...globs(MAX_PERMITTED_GLOBS), ...names] }), undefined);
  t.equal(
    refusal({ permitted_sorries: [...names, ...globs(MAX_PERMITTED_GLOBS + 1)] }),
    `permitted_sorries holds ${MAX_PERMITTED_GLOBS + 1} glob patterns (entries with \`*\`); ` +
      `the limit is ${MAX_PERMITTED_GLOBS} (exact names are not limited by it)`,
  );
  t.equal(refusal({ permitted_sorries: 'a*' }), undefined, 'a wrong type is left to validation');
});

t.test('over HTTP, verify_proof past either limit is a 400 naming the field', async (t) => {
  const app = await makeApp({ config: testConfig({ limits: { contentBytes: 64 } }) });
  t.teardown(() => app.close());
  const post = (body: Record<string, unknown>) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/verify_proof',
      payload: { environment: TEST_ENV, formal_statement: 'theorem foo : True := sorry\n', ...body },
    });
  const big = await post({ content: `theorem foo : True := trivial -- ${'€'.repeat(12)}\n` });
  t.equal(big.statusCode, 400, '46 characters, 70 bytes');
  t.equal(big.json().error.code, 'invalid_request');
  t.equal(big.json().error.message, 'content is larger than the limit of 64 bytes (limits.contentBytes)');
  const globs = Array.from({ length: MAX_PERMITTED_GLOBS + 1 }, (_, i) => `${'a*'.repeat(10)}${i}`);
  const many = await post({ content: 'theorem foo : True := trivial\n', permitted_sorries: globs });
  t.equal(many.statusCode, 400);
  t.match(many.json().error.details, [{ field: 'permitted_sorries', message: /glob patterns/ }]);
});
