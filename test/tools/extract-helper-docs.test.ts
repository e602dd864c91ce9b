/**
 * Issue 27, defect 12: extract_decls runs `#lint` (mathlib_options with Batteries) after its helper, and
 * Batteries' `docBlame` linter reports every definition of the current module without a docstring
 * [batteries Batteries/Tactic/Lint/Misc.lean, `docBlame`: "DEFINITIONS ARE MISSING DOCUMENTATION STRINGS:"], the helper's own included: each
 * declaration of lean/ExtractHelper.lean carries a doc comment, so the lint reports only the content's.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';

t.test('every declaration of the extract helper has a docstring', async (t) => {
  const lines = readFileSync(path.join(PROJECT_ROOT, 'lean', 'ExtractHelper.lean'), 'utf8').split('\n');
  let n = 0;
  lines.forEach((line, i) => {
    if (!/^(?:@\[[^\]]*\]\s*)?(?:private\s+|partial\s+)*(?:def|syntax|abbrev|structure|elab|macro)\b/.test(line))
      return;
    n++;
    t.match(lines[i - 1] ?? '', /-\/\s*$/, `line ${i + 1}: ${line.slice(0, 60)}`);
  });
  t.ok(n >= 8, `${n} declarations`);
});
