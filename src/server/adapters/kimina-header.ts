/**
 * The header Kimina runs a snippet with [kimina-lean-server e2cdc1f: server/split.py
 * `split_snippet`]: the leading lines that are blank or `import …` are the header; any import
 * starting with `import Mathlib` (`import Mathlib.Tactic`, `import Mathlib.Data.Real.Basic`)
 * becomes one `import Mathlib` first, the other imports follow in their order without
 * duplicates. So a snippet importing part of Mathlib runs on the environment's `import Mathlib`
 * sessions, as on Kimina. The header keeps its number of lines (blank lines fill it), so Lean's
 * positions in the body are those of the snippet as sent.
 */
export function kiminaHeader(code: string): string {
  const lines = code.split('\n');
  let i = 0;
  while (i < lines.length && (lines[i]!.trim() === '' || lines[i]!.trim().startsWith('import '))) i++;
  const imports: string[] = [];
  const seen = new Set<string>();
  let mathlib = false;
  for (const raw of lines.slice(0, i)) {
    const line = raw.trim();
    if (!line.startsWith('import ')) continue;
    if (line.startsWith('import Mathlib')) mathlib = true;
    else if (!seen.has(line)) {
      seen.add(line);
      imports.push(line);
    }
  }
  if (!mathlib) return code;
  const header = ['import Mathlib', ...imports];
  while (header.length < i) header.push('');
  return [...header, ...lines.slice(i)].join('\n');
}
