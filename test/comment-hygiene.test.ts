/**
 * Comments in src/ say why, in words a reader without the tracker can follow: no internal issue
 * numbers (`issue 23`, `defect 4`, `(#38)`; another project's issue or pull request, named with its
 * repository or as `lean4 PR #N`, is a citation and stays), and no timing or throughput figure
 * (`~2 µs`, `~20% of throughput`, `3.2 → 1.4 ms`) without the bench/results file that measured it
 * on the same or an adjacent line. A duration the code sets (`every 500 ms`, `default 900 s`) is
 * a fact of the code, not a measurement, and is not a figure here. The lean:doctor checks' `assumption`
 * strings, printed to the user, name no internal issue either.
 */
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import ts from 'typescript';
import { CHECKS } from '../src/doctor/checks.ts';
import { TOOL_CHECKS } from '../src/doctor/tool-checks.ts';

const SRC = new URL('../src/', import.meta.url);

interface CommentLine {
  /** 1-based line of the file. */
  line: number;
  text: string;
}

/**
 * Every comment as its lines, with their line numbers (from the parser, so text in strings and
 * regexes is never taken for one). A run of whole-line `//` comments on consecutive lines is one
 * comment, as a reader reads it.
 */
export function comments(file: string, text: string): CommentLine[][] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const ranges = new Map<number, ts.CommentRange>();
  const add = (rs: ts.CommentRange[] | undefined) => rs?.forEach((r) => ranges.set(r.pos, r));
  const visit = (n: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, n.pos));
    add(ts.getTrailingCommentRanges(text, n.end));
    n.getChildren(sf).forEach(visit);
  };
  visit(sf);
  const out: CommentLine[][] = [];
  for (const r of [...ranges.values()].sort((a, b) => a.pos - b.pos)) {
    const at = sf.getLineAndCharacterOfPosition(r.pos);
    const lines = text
      .slice(r.pos, r.end)
      .split('\n')
      .map((l, i) => ({ line: at.line + 1 + i, text: l }));
    const whole = text.slice(r.pos - at.character, r.pos).trim() === '';
    const last = out.at(-1)?.at(-1);
    const joins =
      whole && r.kind === ts.SyntaxKind.SingleLineCommentTrivia && last?.line === at.line && last.text.startsWith('//');
    if (joins) out.at(-1)!.push(...lines);
    else out.push(lines);
  }
  return out;
}

/** Another project's issue or pull request: `owner/repo#12`, `owner/repo issue #12`, `lean4 PR #9968`. */
const EXTERNAL_REF = /[\w.-]+\/[\w.-]+(?:#| issue #| PR #)\d+|\bPR #\d+/g;
/** An internal tracker reference: `issue 23`, `issues 23`, `issue #23`, `defect 4`, `(#38)`. */
const ISSUE_REF = /\b(?:issues?|defects?)\s+#?\d+|(?<![\w`])#\d+\b/i;

/** The issue references of one comment, with the line each starts on (its lines are read joined, so one broken over two lines counts). */
export function issueRefs(comment: readonly CommentLine[]): { line: number; ref: string }[] {
  let joined = '';
  const starts: number[] = [];
  for (const c of comment) {
    starts.push(joined.length);
    joined += `${c.text.replace(/^\s*(?:\/\/+|\/\*+|\*+\/?)?/, '').trim()} `;
  }
  // External references are blanked, not removed, so offsets still point at their lines.
  joined = joined.replace(EXTERNAL_REF, (m) => ' '.repeat(m.length));
  return [...joined.matchAll(new RegExp(ISSUE_REF.source, 'gi'))].map((m) => {
    const i = starts.findLastIndex((s) => s <= m.index);
    return { line: comment[i]!.line, ref: m[0] };
  });
}

/** A measured time: µs or ns always; ms or s when approximate (`~`), a range, a change (`→`), or what something took or cost. */
const MICRO = /\d\s?(?:µs|us|ns)\b/;
const APPROX_TIME =
  /[~≈]\s?\d[\d.,]*\s?(?:ms|s)\b|\d\s?[–-]\s?\d[\d.,]*\s?(?:ms|s)\b|(?:→|->)\s?\d[\d.,]*\s?(?:ms|s)\b/;
const COST_WORD = /\b(?:took|takes|cost|costs|spent|measured|CPU|throughput|faster|slower|latency)\b/i;
const SECONDS = /\d\s?(?:ms|s)\b/;
const RATIO = /\d\s?[%×]/;

/** Whether a comment line holds a timing or throughput figure. */
export function hasTimingFigure(line: string): boolean {
  if (MICRO.test(line) || APPROX_TIME.test(line)) return true;
  return COST_WORD.test(line) && (SECONDS.test(line) || RATIO.test(line));
}

const CITATION = 'bench/results/';

/** `file:line: text` of each comment line with a timing figure and no bench/results citation on it or beside it. */
export function uncitedFigures(file: string, text: string): string[] {
  const lines = text.split('\n');
  const cited = (n: number) => [n - 2, n - 1, n].some((i) => lines[i]?.includes(CITATION));
  return comments(file, text)
    .flat()
    .filter((c) => hasTimingFigure(c.text) && !cited(c.line))
    .map((c) => `${file}:${c.line}: ${c.text.trim()}`);
}

/** `file:line: reference` of each internal issue reference in a comment. */
export function issueReferences(file: string, text: string): string[] {
  return comments(file, text).flatMap((c) => issueRefs(c).map((r) => `${file}:${r.line}: ${r.ref}`));
}

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ts|mjs)$/.test(f));
const read = (f: string) => readFileSync(new URL(f, SRC), 'utf8');
/** A file worth parsing for its comments: one with any text either check could find (parsing all of src/ takes seconds). */
const CANDIDATE = /\b(?:issues?|defects?)[\s*/]+#?\d|#\d|\d\s?(?:µs|us|ns|ms|s|%|×)(?!\w)/i;
const candidates = files.filter((f) => CANDIDATE.test(read(f)));

t.test('the scan finds issue numbers and uncited figures, and lets citations and code be', async (t) => {
  const sample = [
    '/**',
    ' * Refused early (issue 23): a long scan cost ~2 µs a request.',
    ' * Kimina misses on trivia (project-numina/kimina-lean-server issue #73); before lean4 PR #9968.',
    ' * A key `foo#3` is an index. See the',
    ' * issue',
    ' * 27, defect 4.',
    ' */',
    "const s = 'issue 23: ~3 µs'; // retries every 500 ms (default 900 s)",
    '// a global hook costs ~20% of throughput',
    '// (#38) and the build took 0.6–0.9 s',
    'f();',
    '// 34 → 29 ms a hit, measured (bench/results/2026-11-24T22-06-40-434Z.json)',
  ].join('\n');
  t.same(issueReferences('x.ts', sample), ['x.ts:2: issue 23', 'x.ts:5: issue 27', 'x.ts:6: defect 4', 'x.ts:10: #38']);
  t.same(uncitedFigures('x.ts', sample), [
    'x.ts:2: * Refused early (issue 23): a long scan cost ~2 µs a request.',
    'x.ts:9: // a global hook costs ~20% of throughput',
    'x.ts:10: // (#38) and the build took 0.6–0.9 s',
  ]);
  t.notOk(hasTimingFigure('Pings every 1.5 s, two unanswered'), 'a duration the code sets');
  t.notOk(hasTimingFigure('a retirement guard at 80% of RLIMIT_CPU'), 'a limit the code sets');
  t.ok(hasTimingFigure('A bare route costs ~1.3× a bare server'), 'a ratio of cost');
  t.ok(
    CANDIDATE.test(sample) && CANDIDATE.test('see the issue\n * 23'),
    'the files read hold what the checks look for',
  );
  t.notOk(CANDIDATE.test('const LIMIT = 60;'), 'a file without it is not parsed');
});

t.test('no src/ comment names an internal issue number', async (t) => {
  t.ok(files.length > 150, `${files.length} files of src/ read`);
  const found = candidates.flatMap((f) => issueReferences(f, read(f)));
  t.same(found, [], 'say the reason in words instead of the issue that asked for it');
});

t.test('no src/ comment gives a timing figure without the bench/results file behind it', async (t) => {
  const found = candidates.flatMap((f) => uncitedFigures(f, read(f)));
  t.same(found, [], `cite the result file beside the figure (${CITATION}<file>.json), or say the why without it`);
});

t.test("no lean:doctor check's assumption names an internal issue number", async (t) => {
  // Printed on every failing row of `npm run lean:doctor`: a reader there has no tracker to look a number up in.
  const checks = [...CHECKS, ...TOOL_CHECKS];
  t.ok(checks.length > 20, `${checks.length} checks read`);
  const found = checks.flatMap((c) => issueRefs([{ line: 1, text: c.assumption }]).map((r) => `${c.name}: ${r.ref}`));
  t.same(found, [], 'say what is assumed and where it was read instead');
  t.same(
    issueRefs([{ line: 1, text: 'defects 4, 5, 9, 11, gap: verify_proof probes' }]).map((r) => r.ref),
    ['defects 4'],
    'the scan finds the form these strings used',
  );
});
