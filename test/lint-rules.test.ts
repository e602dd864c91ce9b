/**
 * The regex rules of eslint.config.js hold where they should: over src/, a pattern that can
 * backtrack or rescan super-linearly is refused, and so is a RegExp built at run time outside
 * the one helper (src/util/regex.ts). Linted as text under a file name, nothing is written.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import t from 'tap';

const ROOT = path.join(import.meta.dirname, '..');

async function rulesHit(code: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [r] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return [...new Set(r!.messages.map((m) => m.ruleId ?? m.message))].sort();
}

t.test('src/: super-linear patterns and run-time RegExp are refused, except in the helper', async (t) => {
  t.same(await rulesHit('export const f = (s: string) => new RegExp(s);\n', 'src/tools/x.ts'), [
    'no-restricted-syntax',
  ]);
  t.same(await rulesHit('export const f = (s: string) => RegExp(s);\n', 'src/tools/x.ts'), ['no-restricted-syntax']);
  t.same(await rulesHit('export const f = (s: string) => new RegExp(s);\n', 'src/util/regex.ts'), []);
  t.same(await rulesHit("export const f = (s: string) => s.replace(/\\s+$/, '');\n", 'src/tools/x.ts'), [
    'regexp/no-super-linear-move',
  ]);
  t.same(await rulesHit('export const f = (s: string) => /^a.*a.*b$/.test(s);\n', 'src/tools/x.ts'), [
    'regexp/no-super-linear-backtracking',
  ]);
  t.same(await rulesHit("export const f = (s: string) => s.trimEnd() + '';\n", 'src/tools/x.ts'), []);
});

t.test('outside src/ (tests, bench) a RegExp may be built at run time', async (t) => {
  t.same(await rulesHit('export const f = (s: string) => new RegExp(s);\n', 'test/x.ts'), []);
});
