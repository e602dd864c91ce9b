/**
 * Issue 27, defect 11: every recorded `#check @name` output (../shared/recorded, through the recorded
 * index) yields the type alone, whether Lean printed `@name : …` (implicit arguments) or `name : …`.
 */
import t from 'tap';
import { checkedType } from '../../src/tools/decl-verdict.ts';
import { recordedIndexFor } from '../recorded/index.ts';

t.test('recorded #check @name outputs give the bare type', (t) => {
  const items = recordedIndexFor(t);
  if (!items) return;
  let n = 0;
  for (const it of items) {
    const name = /^#check @([^\s:()]+)\s*$/.exec(it.input.trim())?.[1];
    const info = it.messages.find((m) => m.severity === 'info');
    if (!name || !info || !info.text.replace(/^@/, '').startsWith(`${name} :`)) continue;
    n++;
    const type = checkedType(
      [{ severity: 'info', pos: { line: 1, column: 0 }, endPos: undefined, text: info.text }],
      name,
    );
    t.ok(type !== undefined && !type.startsWith('@') && !type.startsWith(name), `${it.file}:${it.line}: ${type}`);
  }
  t.ok(n >= 3, `${n} recorded #check @ outputs`);
  t.end();
});
