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

t.test('a name written with unneeded guillemets: the type after the name as Lean prints it', async (t) => {
  // Lean escapes a name component only when it is no identifier [lean4 src/Init/Meta.lean, `Name.escapePart`]:
  // `#check @«foo»` prints `foo : …` (or `@foo : …`), never `«foo» : …`.
  const info = (text: string) => [{ severity: 'info' as const, pos: { line: 1, column: 0 }, endPos: undefined, text }];
  t.equal(checkedType(info('foo : 1 = 1'), '«foo»'), '1 = 1');
  t.equal(checkedType(info('@foo : {n : ℕ} → n = n'), '«foo»'), '{n : ℕ} → n = n');
  t.equal(checkedType(info('foo : 1 = 1'), 'foo'), '1 = 1');
});
