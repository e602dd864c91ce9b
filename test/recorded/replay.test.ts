/**
 * The recordings replayed through the service: every chain of recorded REPL commands the service would
 * send as it stands (replay-plan.ts) goes out as one `check` over HTTP (inject: admission, the pool, the
 * session, the header probe, the heartbeat budgets, the framing, the message mapping) to the recorded REPL
 * of its tag, and the service's messages and sorries must be the recorded ones, their positions mapped to
 * the content (each recorded command starts a line of it). One daemon for every tag (an environment per
 * tag). The deadline is long, so every budget is the limit in scope and the backend sends no wrap
 * (src/backend/heartbeats/budgets.ts, `prepare`); a smaller budget would be refused (the recording cannot say
 * whether a command fits it). The service's axiom questions about named declarations (its own helper, never
 * recorded) are refused by the recorded REPL without ending it and are never compared; lean:doctor checks
 * `#print axioms` on a machine with Lean. Prints `recorded exchanges exercised: N of M` and the counts per tag.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { makeApp, testConfig } from '../helpers.ts';
import { replCorpora, RECORDED_SKIP } from './index.ts';
import { leanTagOf, readRefusals, recordedLaunch, recordedTagDir } from './recorded-launch.ts';
import { AXIOM_QUESTION, JOIN, replayChains, type Chain } from './replay-plan.ts';
import { readExchanges, transcriptFiles } from './repl-source.ts';
import { RecordedAnswers } from './repl-answers.ts';
import { probedHeader } from '../../src/backend/session/header-probe.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MIN_EXERCISED = 1000;
/** Tags replayed at once (each its own recorded REPL process). */
const PARALLEL = 3;

type Json = Record<string, unknown>;
interface Pos {
  line: number;
  column: number;
}
const envName = (label: string) => `rec-${label.replace(/[^A-Za-z0-9.-]/g, '-')}`;

/** A recorded position moved down to the content line its command starts on. */
const down = (p: Pos, from: number): Pos => ({ line: p.line + from - 1, column: p.column });

/** The text `[pos, endPos)` spans on one line of `cmd`, if any. */
function spelled(cmd: string, pos: Pos, end: Pos | undefined): string | undefined {
  if (!end || end.line !== pos.line) return undefined;
  return cmd.split('\n')[pos.line - 1]?.slice(pos.column, end.column);
}

const UNUSED = /^(?:unused variable `([^`]+)`|Variable name `([^`]+)` is not explicitly referenced)/;

/**
 * The input a message is about: its own, except an unused-variable warning whose range does not spell the name it
 * reports there but does in an earlier `variable` input (the REPL answers it with the next input, at the earlier
 * input's offsets: variables.in at every tag).
 */
function inputOf(steps: Chain['steps'], j: number, m: Json): number {
  const name = UNUSED.exec(String(m.data));
  const at = (i: number) => spelled(steps[i]!.request.cmd as string, m.pos as Pos, m.endPos as Pos | undefined);
  if (!name || at(j) === (name[1] ?? name[2])) return j;
  for (let i = j - 1; i >= 0; i--)
    if (/^variable\b/.test(steps[i]!.request.cmd as string) && at(i) === (name[1] ?? name[2])) return i;
  return j;
}

/** The recorded messages and sorries of the chain, as `check` reports them (`structured`), on content positions. */
function expected(chain: Chain): { messages: Json[]; sorries: Json[] } {
  const messages: Json[] = [];
  const sorries: Json[] = [];
  // The content line each recorded command starts on (the commands are joined by a blank line).
  const starts: number[] = [];
  let line = 1;
  for (const x of chain.steps) {
    starts.push(line);
    line += (x.request.cmd as string).split('\n').length + JOIN.split('\n').length - 2;
  }
  chain.steps.forEach((x, j) => {
    for (const m of (x.response.messages ?? []) as Json[]) {
      const from = starts[inputOf(chain.steps, j, m)]!;
      const endPos = m.endPos ? { endPos: down(m.endPos as Pos, from) } : {};
      messages.push({ severity: m.severity, pos: down(m.pos as Pos, from), ...endPos, data: m.data });
    }
    for (const s of (x.response.sorries ?? []) as Json[]) {
      const endPos = s.endPos ? { endPos: down(s.endPos as Pos, starts[j]!) } : {};
      sorries.push({ ...(s.pos ? { pos: down(s.pos as Pos, starts[j]!) } : {}), ...endPos, goal: s.goal });
    }
  });
  return { messages, sorries };
}

interface TagOutcome {
  label: string;
  chains: number;
  sent: number;
  exercised: Set<string>;
  disagreements: string[];
  failures: string[];
  skipped: Map<string, number>;
}

async function replayTag(app: FastifyInstance, label: string): Promise<TagOutcome> {
  const chains = await replayChains(recordedTagDir(label)!);
  const out: TagOutcome = {
    label,
    chains: chains.length,
    sent: 0,
    exercised: new Set(),
    disagreements: [],
    failures: [],
    skipped: new Map(),
  };
  for (const c of chains) {
    if (c.unsendable) {
      out.skipped.set(c.unsendable, (out.skipped.get(c.unsendable) ?? 0) + 1);
      continue;
    }
    out.sent++;
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/check',
      payload: { content: c.content, environment: envName(label), structured: true, timeout_seconds: 600 },
    });
    const body = res.json<Json>();
    const where = `${label} ${c.file}:${c.steps[0]!.line}`;
    const errors = ((body.tool_messages as { errors?: string[] } | undefined)?.errors ?? []).join('; ');
    if (res.statusCode !== 200 || errors) {
      out.failures.push(`${where}: ${res.statusCode} ${errors || JSON.stringify(body).slice(0, 300)}`);
      continue;
    }
    const want = expected(c);
    const got = body.structured as { messages: Json[]; sorries: Json[] };
    if (JSON.stringify(got.messages) !== JSON.stringify(want.messages))
      out.disagreements.push(
        `${where}: messages ${JSON.stringify(got.messages)} ≠ recorded ${JSON.stringify(want.messages)}`,
      );
    else if (JSON.stringify(got.sorries) !== JSON.stringify(want.sorries))
      out.disagreements.push(
        `${where}: sorries ${JSON.stringify(got.sorries)} ≠ recorded ${JSON.stringify(want.sorries)}`,
      );
    for (const x of c.steps) out.exercised.add(`${label}|${c.file}|${x.line}`);
  }
  return out;
}

/** Distinct REPL exchanges recorded for the corpora (the `M` of the figure). */
function recordedExchanges(labels: readonly string[]): number {
  let n = 0;
  for (const l of labels) for (const f of transcriptFiles(recordedTagDir(l)!)) n += readExchanges(f).length;
  return n;
}

t.test(
  'recorded REPL commands replayed through check give the recorded messages',
  { skip: RECORDED_SKIP },
  async (t) => {
    // A corpus without the empty header's probe recorded cannot open a session (the recorded REPL refuses it).
    const all = replCorpora().filter((l) => recordedTagDir(l));
    const labels = all.filter(
      (l) => new RecordedAnswers(recordedTagDir(l)!).answer({ cmd: probedHeader('').cmd }).kind === 'answer',
    );
    t.comment(
      `not replayed (no recording of the header probe): ${all.filter((l) => !labels.includes(l)).join(', ') || 'none'}`,
    );
    const tmp = mkdtempSync(path.join(tmpdir(), 'replay-'));
    const refusalsOf = (label: string) => path.join(tmp, `${envName(label)}.jsonl`);
    const environments = labels.map((l) => ({
      name: envName(l),
      lean_toolchain: `leanprover/lean4:${leanTagOf(l)}`,
      imports: '',
      project_dir: ROOT,
    }));
    const byEnv = new Map(labels.map((l) => [envName(l), l]));
    const app = await makeApp({
      config: testConfig({ environments, lean: { minWarm: 0, maxSessions: 1, maxProcesses: PARALLEL + 1 } }),
      probe: () => ({ available: true }),
      launch: (env) => recordedLaunch(byEnv.get(env.name)!, refusalsOf(byEnv.get(env.name)!), AXIOM_QUESTION),
    });
    t.teardown(async () => {
      await app.close();
      rmSync(tmp, { recursive: true, force: true });
    });
    const outcomes: TagOutcome[] = [];
    const queue = [...labels];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let l = queue.shift(); l; l = queue.shift()) outcomes.push(await replayTag(app, l));
      }),
    );
    outcomes.sort((a, b) => labels.indexOf(a.label) - labels.indexOf(b.label));
    const exercised = outcomes.reduce((n, o) => n + o.exercised.size, 0);
    t.comment(`recorded exchanges exercised: ${exercised} of ${recordedExchanges(all)}`);
    for (const o of outcomes) {
      const r = readRefusals(refusalsOf(o.label));
      t.comment(
        `${o.label}: ${o.exercised.size} exchanges in ${o.sent} of ${o.chains} chains; ${r.helper.length} axiom questions refused (helper); ` +
          `not sent: ${[...o.skipped].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
      );
      t.same(r.hard, [], `${o.label}: every command the service sent was recorded`);
      t.same(
        r.helper.filter((x) => !/#print axioms/.test(x)),
        [],
        `${o.label}: only axiom questions refused as helpers`,
      );
      t.same(o.failures, [], `${o.label}: no Lean failure`);
      t.same(o.disagreements, [], `${o.label}: the service's messages are the recorded ones`);
    }
    t.ok(exercised >= MIN_EXERCISED, `${exercised} distinct recorded exchanges exercised (at least ${MIN_EXERCISED})`);
  },
);
