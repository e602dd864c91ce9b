/**
 * AXLE's reprint layout for the output of every transforming tool: the header, then each
 * top-level command, separated by exactly one blank line (AXLE reprints from Lean's syntax
 * tree, and its recorded outputs read `import Mathlib\n\ntheorem a …\n\ntheorem b …`). Text
 * inside a command is left byte-identical. Comments between commands are kept: glued to the
 * command on the same line before them, or to the command directly below them (no blank
 * line between), and otherwise standing alone. The output ends with a newline exactly
 * when the input did (AXLE's examples: no final newline in, none out).
 */
import { parseSource, type SourceFile } from '../syntax/source.ts';

const isBlank = (s: string) => s.trim() === '';

/** The spaces and tabs before `at` on its line when nothing else precedes it there, else ''. */
function indentOf(text: string, at: number): string {
  let i = at;
  while (i > 0 && (text[i - 1] === ' ' || text[i - 1] === '\t')) i--;
  return i === 0 || text[i - 1] === '\n' ? text.slice(i, at) : '';
}

export function reprint(text: string, file: SourceFile = parseSource(text)): string {
  // Top-level spans in order: the header (all imports, one block) and each command.
  const spans: { start: number; end: number }[] = [];
  if (file.header.end > file.header.start) spans.push({ start: file.header.start, end: file.header.end });
  for (const c of file.commands) spans.push({ start: c.start, end: c.end });
  if (spans.length === 0) return text;

  const pieces: string[] = [];
  let prevEnd = 0;
  let pending = ''; // comments that belong to the next command
  for (let i = 0; i <= spans.length; i++) {
    const gap = text.slice(prevEnd, i < spans.length ? spans[i]!.start : text.length);
    if (!isBlank(gap)) {
      const a = gap.length - gap.trimStart().length;
      const b = gap.trimEnd().length;
      const before = gap.slice(0, a);
      let comments = indentOf(text, prevEnd + a) + gap.slice(a, b);
      const after = gap.slice(b);
      if (pieces.length > 0 && !before.includes('\n')) {
        // `rfl -- note`: the comment ends the previous command's line; anything after it stands apart.
        const nl = comments.indexOf('\n');
        const sameLine = nl < 0 ? comments : comments.slice(0, nl);
        pieces[pieces.length - 1] += before + sameLine;
        comments = nl < 0 ? '' : comments.slice(nl + 1).trim();
      }
      if (comments) {
        const gluedBelow = i < spans.length && after.split('\n').length - 1 <= 1;
        if (gluedBelow) pending = `${comments}\n`;
        else pieces.push(comments);
      }
    }
    if (i < spans.length) {
      // The command's own indentation, kept for every command alike (the indentation
      // was dropped before a command's first line but kept inside it, after a doc comment or an
      // `open … in` prefix, so commands of one scope came out at different columns).
      const piece = indentOf(text, spans[i]!.start) + text.slice(spans[i]!.start, spans[i]!.end);
      // A span that runs to the end of the text (an unterminated comment) holds the final newline,
      // which the join below adds once more: without this, every reprint added one.
      pieces.push(pending + (spans[i]!.end === text.length ? piece.trimEnd() : piece));
      pending = '';
      prevEnd = spans[i]!.end;
    }
  }
  return pieces.join('\n\n') + (text.endsWith('\n') ? '\n' : '');
}
