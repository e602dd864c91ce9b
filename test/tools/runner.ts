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
          const r = respond(c, n);
          return {
            messages: r.messages ?? [],
            sorries: r.sorries ?? [],
            ...(r.tactics ? { tactics: r.tactics } : {}),
            cached: false,
            ms: 0,
          };
        }),
      };
    },
  };
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
