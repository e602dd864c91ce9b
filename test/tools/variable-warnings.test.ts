/**
 * Issue 27, defect 10, on the REPL's own recording of it: ../shared/recorded/repl/<tag>/variables.in and
 * .expected.out. Each recorded input is one content command; the scripted runner answers each with the
 * recorded response (positions moved to the command's place in the content, as the backend does), and the
 * `unused variable` warning the REPL sent with the second input must land on `y` of the first.
 */
import path from 'node:path';
import t from 'tap';
import { shiftPos, type LeanMessage } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { check } from '../../src/tools/check.ts';
import { recordedSkip, recordedTagDir } from '../recorded/recorded-launch.ts';
import { readExchanges } from '../recorded/repl-source.ts';
import { scriptedRunner, toolCtx } from './runner.ts';

type Recorded = { severity: LeanMessage['severity']; pos: { line: number; column: number }; data: string };

for (const tag of ['v4.28.0', 'v4.31.0']) {
  t.test(`${tag}: a variable's unused warning that arrives with the next input lands on the variable`, async (t) => {
    const skip = recordedSkip(tag);
    if (skip) {
      t.comment(`skipped: ${skip}`);
      return;
    }
    const x = readExchanges(path.join(recordedTagDir(tag)!, 'variables.in'));
    const inputs = x.map((e) => e.request.cmd as string);
    const content = `${inputs.join('\n\n')}\n`;
    let n = 0;
    const lean = scriptedRunner((c) => {
      const i = inputs.indexOf(c.text);
      if (i < 0) return {};
      n++;
      const recorded = (x[i]!.response.messages ?? []) as Recorded[];
      return {
        messages: recorded.map((m) => ({
          severity: m.severity,
          pos: shiftPos(m.pos, c.origin),
          endPos: undefined,
          text: m.data,
        })),
      };
    });
    const env = { ...toolCtx(lean).env, lean_toolchain: `leanprover/lean4:${tag}` };
    const r = await check.run(parseToolRequest('check', { content, environment: 'x' }), { ...toolCtx(lean), env });
    t.equal(n, 3, 'each recorded input was sent as one command');
    const w = r.lean_messages.warnings.find((m) => /`y`/.test(m));
    t.ok(w, 'the unused-variable warning is reported');
    // `variable (x y : Nat)` is the content's line 1; `y` stands at column 12.
    t.match(w, /(?:^|[^\d])1:12: warning: /, 'on `y` of the first input, not on line 3 of the second');
  });
}
