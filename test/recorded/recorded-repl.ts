/**
 * The recorded REPL (issue 27 §2): a process that speaks the REPL's framing (a JSON request per
 * blank-line-ended block, pretty JSON and a blank line back [repl v4.28.0: REPL/Main.lean, `getLines`,
 * `printFlush`]) and answers only what the transcripts of one tag recorded (repl-answers.ts). Anything
 * else is refused loudly: the refusal is appended to $RECORDED_REPL_REFUSALS (if set), written to
 * stderr, and the process exits 86, so the backend reports a Lean failure and a test can never
 * pass on an invented answer.
 *   RECORDED_REPL_DIR: the transcripts (../shared/recorded/repl/<tag>)
 *   RECORDED_REPL_HELPERS: a pattern (regular expression source) of the service's own helper commands, which no
 *     recording can hold (`#print axioms` of a declaration of the content). Such a command, unrecorded, is refused
 *     without ending the process: the answer is the REPL's error shape `{"message": "recorded-repl: …"}` [repl
 *     v4.28.0: REPL/JSON.lean, `Error`], which the service reads as Lean not answering (fail closed). Logged with
 *     `helper: true`; a test that sets it asserts which helpers were refused and never reads their outcome. Such
 *     questions on the last lines of a recorded command (chained to it) are left unanswered: the recorded answer to
 *     the command alone comes back, so the service reads no answer on their lines (fail closed; it then sends the
 *     command and its questions apart, src/tools/elaborate.ts).
 *   RECORDED_REPL_DOUBLES: the typed doubles a test turned on (JSON, repl-doubles.ts), tried only where no recording
 *     answers; each use is logged with `double: <name>`, and the test asserts which answered.
 * Started by recorded-launch.ts through the product's launch path.
 *
 * Typed process faults, for what no recording can show (a kill at a deadline, a crash), never an
 * answer: RECORDED_REPL_HANG=<tactic> never answers that tactic, RECORDED_REPL_CRASH=<tactic> exits
 * on it (code 70). With RECORDED_REPL_ONCE_FILE naming a file that does not exist yet, only the
 * process that creates it misbehaves (the replacement a recovery starts answers as recorded); that process
 * appends a line `hanging` to it once it holds the tactic it never answers.
 */
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { RecordedAnswers } from './repl-answers.ts';
import { doubleAnswer, doublesFromEnv } from './repl-doubles.ts';

const REFUSAL_EXIT = 86;

const dir = process.env.RECORDED_REPL_DIR;
if (!dir) {
  process.stderr.write('recorded-repl: RECORDED_REPL_DIR is not set\n');
  process.exit(2);
}
const answers = new RecordedAnswers(dir);
const refusals = process.env.RECORDED_REPL_REFUSALS;
const helpers = process.env.RECORDED_REPL_HELPERS ? new RegExp(process.env.RECORDED_REPL_HELPERS) : undefined;
const doubles = doublesFromEnv(process.env.RECORDED_REPL_DOUBLES);
const WRAPPER = /^set_option maxHeartbeats \d+ in(?: --[^\n]*)?\n/;
const once = process.env.RECORDED_REPL_ONCE_FILE;
const misbehave = (process.env.RECORDED_REPL_HANG || process.env.RECORDED_REPL_CRASH) && (!once || !existsSync(once));
if (once && misbehave) writeFileSync(once, String(process.pid));
/** Appended to the once file when the misbehaving process receives the tactic it never answers. */
const HANGING = '\nhanging';

let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buf += chunk;
  let end: number;
  while ((end = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, end).trim();
    buf = buf.slice(end + 2);
    if (block) handle(block);
  }
});
process.stdin.on('end', () => process.exit(0));

function handle(block: string): void {
  let request: Record<string, unknown>;
  try {
    request = JSON.parse(block) as Record<string, unknown>;
  } catch {
    return refuse(`not JSON: ${block.slice(0, 200)}`);
  }
  if (misbehave && typeof request.tactic === 'string') {
    // Never answers; says so in the once file, so a test can act while the tactic runs rather than after a guess.
    if (request.tactic === process.env.RECORDED_REPL_HANG) return void (once && appendFileSync(once, HANGING));
    if (request.tactic === process.env.RECORDED_REPL_CRASH) process.exit(70);
  }
  const chained = helpers && typeof request.cmd === 'string' ? helperTail(request.cmd, helpers) : undefined;
  if (chained) {
    const own = answers.answer({ ...request, cmd: chained.own });
    if (own.kind === 'answer') {
      logHelper(`helper questions chained to a recorded command: ${chained.tail.slice(0, 200)}`);
      return void process.stdout.write(`${JSON.stringify(own.response, null, 2)}\n\n`);
    }
  }
  let a = answers.answer(request);
  const d = a.kind === 'refusal' && doubles ? doubleAnswer(answers, request, doubles) : undefined;
  if (d) {
    if (refusals)
      appendFileSync(
        refusals,
        `${JSON.stringify({ reason: a.kind === 'refusal' ? a.reason : '', double: d.double })}\n`,
      );
    a = d.answer;
  }
  if (
    a.kind === 'refusal' &&
    helpers &&
    typeof request.cmd === 'string' &&
    helpers.test(request.cmd.replace(WRAPPER, ''))
  )
    return refuseHelper(a.reason);
  if (a.kind === 'refusal') return refuse(a.reason);
  process.stdout.write(`${JSON.stringify(a.response, null, 2)}\n\n`);
}

function refuse(reason: string): void {
  if (refusals) appendFileSync(refusals, `${JSON.stringify({ reason })}\n`);
  process.stderr.write(`recorded-repl: refused (no recording): ${reason}\n`);
  process.exit(REFUSAL_EXIT);
}

function logHelper(reason: string): void {
  if (refusals) appendFileSync(refusals, `${JSON.stringify({ reason, helper: true })}\n`);
}

/**
 * A command followed by the service's helper questions on its last lines (the axiom questions it chains to the last
 * unit: src/tools/elaboration-plan.ts): the command and the questions apart, undefined when there are none.
 */
function helperTail(cmd: string, helpers: RegExp): { own: string; tail: string } | undefined {
  const lines = cmd.split('\n');
  let k = lines.length;
  while (k > 1 && helpers.test(lines[k - 1]!)) k--;
  if (k === lines.length) return undefined;
  return { own: lines.slice(0, k).join('\n'), tail: lines.slice(k).join('\n') };
}

function refuseHelper(reason: string): void {
  logHelper(reason);
  process.stdout.write(
    `${JSON.stringify({ message: `recorded-repl: a helper command no recording holds: ${reason}` }, null, 2)}\n\n`,
  );
}
