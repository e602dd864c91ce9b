/**
 * Typed doubles for the service's own commands, which no recording can hold, on the recorded REPL
 * (recorded-repl.ts). A test turns each on by name (recordedLean's `doubles`) and asserts which ones answered
 * (`rec.doubles()`): such a test rests only partly on recordings, and says so. A double is tried only when no
 * recording answers the request, and none prints a Lean message of its own: each answers with a recording, or with
 * an env and nothing printed. Each stands for an assumption about Lean that lean:doctor checks on a machine with Lean.
 * - `probe`: a header recorded fresh on its own, sent with the service's probe `#print List.cons` after it
 *   (src/backend/session/header-probe.ts), is answered as the header was recorded alone, and its env stands for the
 *   recorded header's envs (`#print` adds nothing to the environment [lean4 v4.28.0: src/Lean/Elab/Print.lean,
 *   `elabPrint`]). The probe's own answer is left out: in a loaded environment an info the service never reads; only an
 *   error would say the imports did not load, and the recordings' later commands on that env show they loaded.
 *   Assumed: the probe after these imports errs nowhere (lean:doctor's `header imports` check).
 * - `pass`: these exact command texts (the extraction helper, lean/ExtractHelper.lean) are answered as elaborated
 *   with nothing printed: a new env standing for the same recorded envs. The helper declares names under
 *   `_lean_tool_extract` and two `#lean_tool_…` commands only, which no recorded command uses. Assumed: it elaborates
 *   without a message (lean:doctor's `lean/ExtractHelper.lean elaborates`).
 * - `unwrap`: a command `<line>\n<cmd>` (`<line>` the helper's `#lean_tool_measure`, src/tools/extract-lean.ts
 *   `wrapCommand`, at column 0) is answered as `<cmd>` was recorded on that env, one line down, without the
 *   wrapper's own info (its wall time and heartbeats: no recording can give them). Assumed: `elabMeasure` elaborates
 *   `<cmd>` with the messages Lean gives it alone (it runs `elabCommand` on it; lean:doctor's
 *   `extract_decls: a declaration's messages under #lean_tool_measure are its own`).
 */
import { HEADER_PROBE } from '../../src/backend/session/header-probe.ts';
import { shiftLines, type Answer, type RecordedAnswers } from './repl-answers.ts';

export interface Doubles {
  probe?: boolean;
  pass?: readonly string[];
  unwrap?: string;
}

export type DoubleName = 'probe' | 'pass' | 'unwrap';

/** The doubles' answer to a request no recording answered, with the double's name; undefined: none applies. */
export function doubleAnswer(
  answers: RecordedAnswers,
  request: Record<string, unknown>,
  doubles: Doubles,
): { answer: Answer; double: DoubleName } | undefined {
  const cmd = request.cmd;
  if (typeof cmd !== 'string') return undefined;
  if (request.env === undefined) {
    const probed = `\n${HEADER_PROBE}`;
    if (!doubles.probe || !cmd.endsWith(probed)) return undefined;
    const answer = answers.answer({ ...request, cmd: cmd.slice(0, -probed.length) });
    return answer.kind === 'answer' ? { answer, double: 'probe' } : undefined;
  }
  if (doubles.pass?.includes(cmd)) {
    const answer = answers.standIn(request.env);
    return answer.kind === 'answer' ? { answer, double: 'pass' } : undefined;
  }
  const head = doubles.unwrap && `${doubles.unwrap}\n`;
  if (head && cmd.startsWith(head) && !/^\s/.test(cmd.slice(head.length))) {
    const answer = answers.answer({ ...request, cmd: cmd.slice(head.length) });
    if (answer.kind === 'refusal') return undefined;
    return { answer: { ...answer, response: shiftLines(answer.response, 1) }, double: 'unwrap' };
  }
  return undefined;
}

/** The doubles a test turned on, as the recorded REPL's environment carries them ($RECORDED_REPL_DOUBLES). */
export const doublesFromEnv = (json: string | undefined): Doubles | undefined =>
  json ? (JSON.parse(json) as Doubles) : undefined;
