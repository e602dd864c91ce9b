/**
 * How the doctor judges what Lean answered, one pure function per assumption. Each
 * takes the messages of the commands a check sent (sent as production sends them) and says whether
 * the product's own reading of them holds; the same functions are unit-tested on recorded Lean output
 * (test/doctor/judges.test.ts), so a judge that would pass a wrong text fails there first.
 */
import { isKernelTimeout, stoppedByBudget } from '../backend/heartbeats/max-heartbeats.ts';
import { commentFreeForm } from '../syntax/comment-free.ts';
import { parseGoals } from '../tools/goals.ts';
import {
  NO_GOALS_RE,
  parseAxioms,
  UNKNOWN_NAME_RE,
  UNKNOWN_OPTION_RE,
  UNSOLVED_GOALS_RE,
  userConstName,
} from '../tools/lean-texts.ts';

export interface DoctorMessage {
  severity: string;
  data: string;
}

export interface Verdict {
  ok: boolean;
  detail: string;
}

const first = (m: DoctorMessage | undefined) => (m ? m.data.split('\n')[0]!.slice(0, 160) : '(none)');
const errors = (ms: readonly DoctorMessage[]) => ms.filter((m) => m.severity === 'error');

/** An error the product reads with `re` (repair_proofs' unknown option / unknown name / no goals). */
export function judgeErrorText(ms: readonly DoctorMessage[], re: RegExp, what: string): Verdict {
  const e = errors(ms).find((m) => re.test(m.data));
  return e
    ? { ok: true, detail: `${what}: ${first(e)}` }
    : { ok: false, detail: `no error matching ${re} among: ${errors(ms).map(first).join(' | ') || '(no errors)'}` };
}

export const judgeUnknownOption = (ms: readonly DoctorMessage[]) =>
  judgeErrorText(ms, UNKNOWN_OPTION_RE, 'unknown option');
export const judgeUnknownName = (ms: readonly DoctorMessage[]) => judgeErrorText(ms, UNKNOWN_NAME_RE, 'unknown name');
export const judgeNoGoals = (ms: readonly DoctorMessage[]) => judgeErrorText(ms, NO_GOALS_RE, 'no goals');

/** `unsolved goals` followed by goals the goal parser reads (hypotheses and `⊢`, `case` tags kept). */
export function judgeUnsolvedGoals(ms: readonly DoctorMessage[], wantTags: readonly string[] = []): Verdict {
  const e = errors(ms).find((m) => UNSOLVED_GOALS_RE.test(m.data));
  if (!e) return { ok: false, detail: `no "unsolved goals" error: ${errors(ms).map(first).join(' | ') || '(none)'}` };
  const goals = parseGoals(e.data.slice(e.data.indexOf('\n') + 1));
  const tags = goals.map((g) => g.tag ?? '');
  const ok = goals.length > 0 && goals.every((g) => g.target.trim() !== '') && wantTags.every((t) => tags.includes(t));
  return {
    ok,
    detail: `${goals.length} goal(s) parsed${tags.some(Boolean) ? `, cases ${tags.join(', ')}` : ''}: ${JSON.stringify(e.data.slice(0, 160))}`,
  };
}

/** The answer to the product's axioms question names `name` and lists only the expected axioms (full names). */
export function judgeAxiomsAnswer(ms: readonly DoctorMessage[], name: string, mustInclude: readonly string[]): Verdict {
  const answers = ms.filter((m) => m.severity === 'info').map((m) => parseAxioms(m.data));
  const a = answers.find((x) => x !== undefined);
  if (!a) return { ok: false, detail: `no #print axioms answer: ${ms.map(first).join(' | ') || '(none)'}` };
  const ok = a.name === userConstName(name) && mustInclude.every((x) => a.axioms.includes(x));
  return {
    ok,
    detail: `'${a.name}': [${a.axioms.join(', ')}]${ok ? '' : ` (wanted '${name}' with ${mustInclude.join(', ')})`}`,
  };
}

/** A command sent with `budget` stopped at it, as the backend recognises (elaborator or kernel stop). */
export function judgeBudgetStop(ms: readonly DoctorMessage[], budget: number): Verdict {
  const e = errors(ms).find((m) => stoppedByBudget(m.data, budget));
  if (!e)
    return {
      ok: false,
      detail: `no stop at ${budget} recognised: ${errors(ms).map(first).join(' | ') || '(no errors)'}`,
    };
  return { ok: true, detail: `${isKernelTimeout(e.data) ? 'kernel' : 'elaborator'} stop: ${first(e)}` };
}

/** No heartbeat stop at all (a limit that should no longer be in force). */
export function judgeNoStop(ms: readonly DoctorMessage[]): Verdict {
  const e = errors(ms).find((m) => /heartbeats|deterministic timeout/.test(m.data));
  return e ? { ok: false, detail: `stopped: ${first(e)}` } : { ok: true, detail: 'no heartbeat stop' };
}

/** Nothing mentions the service's own heartbeat wrap (Mathlib's maxHeartbeats style linter stays quiet). */
export function judgeNoWrapLint(ms: readonly DoctorMessage[]): Verdict {
  const w = ms.find((m) => m.severity !== 'info' && /maxHeartbeat/.test(m.data));
  return w ? { ok: false, detail: `linted: ${first(w)}` } : { ok: true, detail: 'no warning about the budget wrap' };
}

/** Commands that must elaborate without an error (a helper, a scoped statement). */
export function judgeNoErrors(ms: readonly DoctorMessage[], what: string): Verdict {
  const e = errors(ms);
  return e.length
    ? { ok: false, detail: `${what}: ${e.map(first).join(' | ')}` }
    : { ok: true, detail: `${what}: no errors` };
}

/** What lean:doctor read about the REPL an environment runs (lean/doctor-steps.ts, `replSourceRow`). */
export interface ReplSourceFacts {
  /** The environment's toolchain tag, `v4.32.2`. */
  toolchain: string;
  /** The REPL tag whose source lean:setup built (its `repl-source-tag` file); undefined when setup wrote none. */
  source: string | undefined;
  /** The clone's lean-toolchain file, as lean:setup left it. */
  cloneToolchain: string | undefined;
  /** What `#eval 1 + 1` printed in that REPL, and what `#eval Lean.versionString` printed. */
  trivial: string | undefined;
  version: string | undefined;
}

/**
 * A REPL built from another tag's source (a patch release the REPL has no tag for) serves the toolchain
 * only when it was built by that toolchain and runs: the clone pins it, the binary reports it as its Lean
 * version (a binary links the Lean it was built with), and a trivial command answers. Same-tag builds
 * pass on the last two alone.
 */
export function judgeReplSource(f: ReplSourceFacts): Verdict {
  const source = f.source ?? f.toolchain;
  const where = source === f.toolchain ? `REPL ${source}` : `REPL ${source} source built for ${f.toolchain}`;
  const pinned = f.cloneToolchain === undefined || f.cloneToolchain.endsWith(`:${f.toolchain}`);
  const failures = [
    ...(pinned ? [] : [`the clone's lean-toolchain is ${f.cloneToolchain}, not ${f.toolchain}`]),
    ...(f.version === f.toolchain.slice(1) ? [] : [`it reports Lean ${f.version ?? '(nothing)'}`]),
    ...(f.trivial === '2' ? [] : [`\`#eval 1 + 1\` answered ${f.trivial ?? '(nothing)'}`]),
  ];
  return failures.length
    ? { ok: false, detail: `${where}: ${failures.join('; ')}` }
    : { ok: true, detail: `${where}: runs Lean ${f.version}, \`#eval 1 + 1\` = 2` };
}

/** A message with the positions the REPL gives it. */
export interface PositionedMessage extends DoctorMessage {
  pos: { line: number; column: number };
  endPos?: { line: number; column: number } | null;
}

/**
 * The comment memo's assumption (src/backend/comment-memo.ts): `noisy`, which differs from `plain` only in comments
 * and blank lines, gets the same messages, each on the line the comment-free form maps its `plain` line to.
 */
export function judgeCommentVariant(
  plain: readonly PositionedMessage[],
  noisy: readonly PositionedMessage[],
  plainText: string,
  noisyText: string,
): Verdict {
  const p = commentFreeForm(plainText);
  const n = commentFreeForm(noisyText);
  if (!p || !n || p.text !== n.text) return { ok: false, detail: 'the two texts do not share a comment-free form' };
  if (plain.length === 0) return { ok: false, detail: 'Lean gave the plain text no message to compare' };
  if (plain.length !== noisy.length) return { ok: false, detail: `${plain.length} messages against ${noisy.length}` };
  const moved = (q: { line: number; column: number }) => ({
    line: n.from[p.lineOf[q.line - 1]! - 1]!,
    column: q.column,
  });
  const same = (a: { line: number; column: number } | null | undefined, b: typeof a) =>
    !a ? !b : !!b && moved(a).line === b.line && a.column === b.column;
  for (let i = 0; i < plain.length; i++) {
    const a = plain[i]!;
    const b = noisy[i]!;
    if (a.severity !== b.severity || a.data !== b.data || !same(a.pos, b.pos) || !same(a.endPos, b.endPos))
      return {
        ok: false,
        detail: `message ${i + 1} differs: ${first(a)} at ${a.pos.line}:${a.pos.column}, ${first(b)} at ${b.pos.line}:${b.pos.column}`,
      };
  }
  return { ok: true, detail: `${plain.length} message(s), the same on the moved lines: ${first(plain[0])}` };
}
