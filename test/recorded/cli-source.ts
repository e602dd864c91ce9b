/**
 * Command-line outputs → items: `lean file.lean` prints each message as
 * `file:line:col: severity: text`, newer versions with the end (`line:col-line:col`) and an error
 * code (`error(lean.unknownIdentifier)`) [lean4 v4.28.0: src/Lean/Message.lean, `mkErrorStringWithPos`,
 * `Message.toString`]. A message runs until the next line that starts another. The source beside an
 * output is mostly not recorded, so an item's input is the output's file name.
 */
import { classify, goalsOfUnsolved } from './classes.ts';
import type { RecordedItem, Severity } from './types.ts';

const HEAD = /^([^\s:]+\.lean):(\d+):(\d+)(?:-(\d+):(\d+))?: (error|warning|info|trace)(?:\(([^)]*)\))?: ?/;

/** The head line as printed, up to the text's first line. */
const l0 = (h: RegExpExecArray) => h.input;

export function cliItems(text: string, file: string, version: string): RecordedItem[] {
  const items: RecordedItem[] = [];
  const lines = text.split('\n');
  let cur: { head: RegExpExecArray; body: string[]; line: number } | undefined;
  const flush = () => {
    if (!cur) return;
    const h = cur.head;
    const severity = h[6] as Severity;
    const body = cur.body.join('\n').replace(/\n+$/, '');
    const goals = goalsOfUnsolved(body);
    items.push({
      source: 'cli',
      version,
      file,
      line: cur.line,
      input: h[1]!,
      messages: [
        {
          severity,
          text: body,
          pos: { line: Number(h[2]), column: Number(h[3]) },
          endPos: h[4] ? { line: Number(h[4]), column: Number(h[5]) } : undefined,
          printed: [l0(cur.head), ...cur.body.slice(1)].join('\n').replace(/\n+$/, ''),
          ...classify(severity, body),
        },
      ],
      goals,
    });
  };
  lines.forEach((l, i) => {
    const h = HEAD.exec(l);
    if (h) {
      flush();
      cur = { head: h, body: [l.slice(h[0].length)], line: i + 1 };
    } else if (cur) cur.body.push(l);
  });
  flush();
  return items;
}
