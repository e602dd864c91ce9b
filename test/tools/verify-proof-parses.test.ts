/**
 * One reading per request: verify_proof parses each of its two sources once, and its rules and the
 * elaboration share that parse (elaborateContent's `read`), with the environment's header in place
 * (ignore_imports true) and without it.
 */
import t from 'tap';
import * as source from '../../src/syntax/source.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

const env = environmentConfig.parse({
  name: 'x',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: 'import Mathlib',
  project_dir: '/tmp',
});

const statement = 'import Mathlib\n\ntheorem main (n : Nat) : n = n := by\n  sorry\n';
const candidate = 'import Mathlib\n\ntheorem main (n : Nat) : n = n := by\n  rfl\n';

type VerifyProof = (typeof import('../../src/tools/verify-proof.ts'))['verify_proof'];

/** verify_proof of `content` against the statement, Lean answering nothing (no Lean here). */
const verify = (tool: VerifyProof, content: string, ignoreImports: boolean) =>
  tool.run(
    parseToolRequest('verify_proof', {
      environment: 'x',
      formal_statement: statement,
      content,
      ignore_imports: ignoreImports,
    }),
    toolCtx(
      scriptedRunner(() => ({})),
      env,
    ),
  );

for (const ignoreImports of [true, false]) {
  t.test(`each source is parsed once (ignore_imports ${ignoreImports})`, async (t) => {
    const parsed: string[] = [];
    const { verify_proof } = await t.mockImport<typeof import('../../src/tools/verify-proof.ts')>(
      '../../src/tools/verify-proof.ts',
      {
        '../../src/syntax/source.ts': {
          ...source,
          parseSource: (text: string) => {
            parsed.push(text);
            return source.parseSource(text);
          },
        },
      },
    );
    const r = await verify(verify_proof, candidate, ignoreImports);
    t.equal(parsed.length, 2, 'two parses: the statement and the candidate');
    t.equal(parsed.filter((p) => p.includes('sorry')).length, 1, 'the statement once');
    t.equal(parsed.filter((p) => p.includes('rfl')).length, 1, 'the candidate once');
    t.equal(r.content, candidate);
  });
}

t.test('a refused notation is reported at its line in the candidate as submitted', async (t) => {
  const { verify_proof } = await import('../../src/tools/verify-proof.ts');
  // The environment's header is one line; the candidate's own header is five.
  const cand = 'import Mathlib\n\n\n\n\nnotation "X" => 1\ntheorem main (n : Nat) : n = n := by\n  rfl\n';
  for (const ignoreImports of [true, false]) {
    const r = await verify(verify_proof, cand, ignoreImports);
    t.match(r.tool_messages.errors[0], /\(notation at line 6\)/, `ignore_imports ${ignoreImports}`);
  }
});
