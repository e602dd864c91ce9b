/**
 * A scripted test double of the Lean backend for the tools' own logic: `respond` decides,
 * per command text, what a Lean run would report. It produces no Lean results for the
 * product; what Lean itself answers is covered by test/integration.
 */
import { pino } from 'pino';
import type { ElabJob, ElabResult, LeanMessage, LeanRunner, Origin } from '../../src/backend/index.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import type { ToolContext } from '../../src/tools/types.ts';

export const testEnv = environmentConfig.parse({
  name: 'x',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/tmp',
});

export type Respond = (
  cmd: { text: string; origin: Origin },
  job: number,
) => {
  messages?: LeanMessage[];
  sorries?: ElabResult['commands'][number]['sorries'];
  tactics?: ElabResult['commands'][number]['tactics'];
};

export function scriptedRunner(respond: Respond): LeanRunner & { jobs: ElabJob[] } {
  const jobs: ElabJob[] = [];
  return {
    jobs,
    async elaborate(_env, job, { signal }) {
      // As the backend does: an aborted request reaches no REPL (src/backend/index.ts, pool/pool.ts).
      if (signal.aborted) throw signal.reason;
      const n = jobs.push(job) - 1;
      return {
        headerMessages: [],
        session: 1,
        reused: 0,
        sent: job.commands.length,
        commands: job.commands.map((c) => {
          const r = answerEach(respond, c, n);
          return {
            messages: r.messages ?? [],
            sorries: r.sorries ?? [],
            ...(r.tactics ? { tactics: r.tactics } : {}),
            // The questions chained to a command (ElabCommand.tail) answered as an input of their own.
            ...(c.tail ? { tail: answerEach(respond, c.tail, n).messages ?? [] } : {}),
            cached: false,
            ms: 0,
          };
        }),
      };
    },
  };
}

/**
 * The questions the tools send, as a double recognises them (each capture is the declaration's name). Built in
 * src/tools: `#check @name` after the printing options' `set_option … in` lines (decl-verdict.ts, printedCheck);
 * the axioms question (lean-texts.ts, printAxiomsCommand); verify_proof's definitional-equality probe
 * (verify-proof.ts, defeqCheck), whose capture is the candidate's constant.
 */
export const CHECK_QUESTION = /^(?:set_option [^\n]* in\n)*#check @(\S+)$/;
export const AXIOMS_QUESTION = /^set_option pp\.fullNames true in #print axioms _root_\.(.+)$/;
export const DEFEQ_PROBE = /#check \(@_root_\.(\S+) : type_of%/;

/**
 * The tools ask every declaration's axioms in one input, a `#print axioms` a line (elaboration-plan.ts,
 * planQuestions). The REPL answers each command of an input at its own line; so does this double:
 * each line is `respond`ed to as a command of its own, at its line.
 */
const AXIOMS_LINE = /^set_option pp\.fullNames true in #print axioms /;
function answerEach(respond: Respond, c: { text: string; origin: Origin }, job: number): ReturnType<Respond> {
  const lines = c.text.split('\n');
  if (!lines.every((l) => AXIOMS_LINE.test(l))) return respond(c, job);
  const answers = lines.map((text, k) =>
    respond({ text, origin: k ? { line: c.origin.line + k, column: 0 } : c.origin }, job),
  );
  return { messages: answers.flatMap((a) => a.messages ?? []), sorries: answers.flatMap((a) => a.sorries ?? []) };
}

export const toolCtx = (lean: LeanRunner, env = testEnv): ToolContext => ({
  env,
  signal: new AbortController().signal,
  log: pino({ level: 'silent' }),
  lean,
  progress: () => {},
});

export const msg = (severity: LeanMessage['severity'], pos: Origin, text: string): LeanMessage => ({
  severity,
  pos,
  endPos: undefined,
  text,
});
