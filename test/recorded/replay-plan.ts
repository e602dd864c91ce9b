/**
 * What the replay (replay.test.ts) sends: every chain of plain command requests of a recorded REPL
 * transcript (the first without `env`, each next on the env the one before answered), as one `check`
 * content, when the service would send exactly those commands for it. The service's own plan is asked
 * (the real `check` tool on a Lean double that only notes the job): the header must be the empty one
 * and the content's units the recorded commands, one for one; after them (or chained to the last, on its next
 * lines) only the axiom questions the service asks about named declarations (its helper, never recorded) may follow.
 */
import path from 'node:path';
import { pino } from 'pino';
import type { ElabJob } from '../../src/backend/index.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import { check } from '../../src/tools/check.ts';
import { printAxiomsCommand } from '../../src/tools/lean-texts.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { readExchanges, transcriptFiles, type Exchange } from './repl-source.ts';

/** One axiom question as the service asks it, for any name. */
const AXIOM_LINE = printAxiomsCommand('X')
  .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  .replace(/X$/, '\\S+');

/**
 * The helper commands the replay lets the recorded REPL refuse without ending: the service's axiom questions, one
 * input of one or more lines (the service may ask several declarations' axioms in one input, a question a line).
 */
export const AXIOM_QUESTION = new RegExp(`^${AXIOM_LINE}(?:\\n${AXIOM_LINE})*$`);

/** The blank line between the recorded commands in the content (each command starts a line). */
export const JOIN = '\n\n';

export interface Chain {
  /** Transcript path relative to the corpus directory. */
  file: string;
  /** The chain's exchanges, in order. */
  steps: Exchange[];
  content: string;
  /** Why the service would not send these commands as recorded, or undefined. */
  unsendable: string | undefined;
}

/**
 * A command request the service's plain `{cmd, env}` stands for: plain, or recorded with `allTactics`/`infotree`
 * only, which the recorded REPL answers without the field they add (repl-answers.ts says why that is the answer).
 */
const plain = (x: Exchange) =>
  typeof x.request.cmd === 'string' &&
  Object.keys(x.request).every((k) => k === 'cmd' || k === 'env' || k === 'allTactics' || k === 'infotree');

/** Every root-to-leaf chain of plain command requests in one transcript. */
function chainsOf(xs: Exchange[]): Exchange[][] {
  const producer = new Map<number, number>();
  xs.forEach((x, i) => {
    if (typeof x.response.env === 'number') producer.set(x.response.env, i);
  });
  const children = new Map<number, number[]>();
  const roots: number[] = [];
  xs.forEach((x, i) => {
    if (!plain(x)) return;
    if (x.request.env === undefined) return roots.push(i);
    const p = producer.get(x.request.env as number);
    if (p !== undefined && plain(xs[p]!)) children.set(p, [...(children.get(p) ?? []), i]);
  });
  const out: Exchange[][] = [];
  const walk = (i: number, acc: Exchange[]) => {
    const next = [...acc, xs[i]!];
    const c = children.get(i) ?? [];
    if (c.length === 0) out.push(next);
    for (const j of c) walk(j, next);
  };
  for (const r of roots) walk(r, []);
  return out;
}

const ENV = environmentConfig.parse({
  name: 'plan',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/nonexistent',
});
const silent = pino({ level: 'silent' });

/** The job the real `check` would hand the backend for `content` (the double notes it and stops the run). */
export async function plannedJob(content: string): Promise<ElabJob | undefined> {
  let job: ElabJob | undefined;
  const lean = {
    elaborate: (_env: unknown, j: ElabJob) => {
      job = j;
      return Promise.reject(new Error('planned'));
    },
  };
  const ctx: ToolContext = { env: ENV, signal: new AbortController().signal, log: silent, lean, progress: () => {} };
  await check.run(parseToolRequest('check', { environment: 'plan', content }), ctx).catch(() => undefined);
  return job;
}

/** Why the service would not send `cmds` as they were recorded, or undefined. */
export async function unsendable(cmds: string[], content: string): Promise<string | undefined> {
  if (cmds.some((c) => /\bmaxHeartbeats\b/.test(c))) return 'sets maxHeartbeats (the budget would follow it)';
  const job = await plannedJob(content);
  if (!job) return 'no Lean job';
  if (job.header !== '') return 'a header of imports (never recorded with the probe)';
  const texts = job.commands.map((c) => c.text);
  if (texts.length < cmds.length) return 'fewer units than recorded commands';
  if (cmds.some((c, i) => texts[i] !== c)) return 'units differ from the recorded commands';
  if (texts.slice(cmds.length).some((x) => !AXIOM_QUESTION.test(x))) return 'asks Lean more than axiom questions';
  if (job.commands.some((c) => c.tail && !AXIOM_QUESTION.test(c.tail.text)))
    return 'chains more than axiom questions to a unit';
  return undefined;
}

/** Every chain of every transcript under `dir`, with why it cannot be replayed. */
export async function replayChains(dir: string): Promise<Chain[]> {
  const out: Chain[] = [];
  for (const f of transcriptFiles(dir)) {
    for (const steps of chainsOf(readExchanges(f))) {
      const cmds = steps.map((x) => x.request.cmd as string);
      const content = cmds.join(JOIN);
      out.push({ file: path.relative(dir, f), steps, content, unsendable: await unsendable(cmds, content) });
    }
  }
  return out;
}
