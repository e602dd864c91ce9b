/**
 * The recorded REPL's brain: answers a request only when a recording of the same tag holds it,
 * else refuses. A request matches a recorded one when:
 * - a header (no `env`): the service sends the header with its probe `#check Nat` after it
 *   (src/backend/session/header-probe.ts); the probe is the service's own and is removed. An
 *   empty header is Init, the environment every recorded command without `env` and without
 *   imports ran on [repl v4.28.0: REPL/Frontend.lean, `processInput`: no command state → `processHeader`
 *   of the input's own (empty) header]; any other header must be recorded as a request of its own
 *   (`{"cmd": "import Lean"}`). The answer is the recorded header's, so the probe's info `Nat : Type`
 *   (which the session never reads) is absent.
 * - a command on `env`: its text equals a request recorded on the recorded env that `env` stands
 *   for; on the Init env, a recorded request without `env` (the REPL elaborates the same commands on
 *   the header's command state either way [repl v4.28.0: REPL/Frontend.lean, `processInput`, both arms run
 *   `processCommandsWithInfoTrees`]). The backend's own heartbeat wrapper `set_option maxHeartbeats N in`
 *   (src/backend/deadline/heartbeats.ts, `withBudget`) is removed, and the answer's positions moved down
 *   by its line, as Lean reports them for the wrapped text.
 * - a request recorded with `allTactics` or `infotree` answers the plain request with the `tactics` /
 *   `infotree` field removed: those options only add that field to the response, after the command was
 *   elaborated the same way (info trees are always on) [repl v4.24.0, v4.28.0, v4.33.0-rc2: REPL/Main.lean,
 *   `runCommand`; REPL/Frontend.lean, `processCommandsWithInfoTrees` sets `infoState.enabled := true`].
 *   `rootGoals` adds sorries, so those recordings, proof steps and pickles never match. A plain recording
 *   is preferred.
 * The answer is the recorded response with the env renumbered to this process's own count, and its
 * sorries' proof states to this process's own (repl-proof-states.ts, which also answers tactics,
 * pickles and unpickles of proof states).
 */
import path from 'node:path';
import { HEADER_PROBE } from '../../src/backend/session/header-probe.ts';
import { WRAP_LINES } from '../../src/backend/deadline/heartbeats.ts';
import { readExchanges, transcriptFiles } from './repl-source.ts';
import { RecordedProofStates } from './repl-proof-states.ts';

/** A recorded env: the transcript and the env id it had there; `INIT` is the Init environment. */
const INIT = 'init';

interface Recorded {
  response: Record<string, unknown>;
  file: string;
  line: number;
  /** Recorded with `allTactics`/`infotree` (answers with the additions removed). */
  extra: boolean;
}

export type Answer =
  { kind: 'answer'; response: Record<string, unknown>; from: string } | { kind: 'refusal'; reason: string };

/** Request fields a recording may carry and still answer the service's plain `{cmd, env}`. */
const MATCHABLE = new Set(['cmd', 'env', 'allTactics', 'infotree']);

/** The response without what `allTactics` and `infotree` added. */
function withoutAdditions(r: Record<string, unknown>): Record<string, unknown> {
  const out = { ...r };
  delete out.tactics;
  delete out.infotree;
  return out;
}

const WRAPPER = /^set_option maxHeartbeats \d+ in(?: --[^\n]*)?\n/;
const HEADERFUL = /^\s*(?:import|prelude|module)\b/;

export class RecordedAnswers {
  /** `recordedEnv \0 cmd` → recordings, in file order. */
  #byInput = new Map<string, Recorded[]>();
  /** Service env id → the recorded envs it stands for. */
  #envs = new Map<number, string[]>();
  #nextEnv = 0;
  readonly files: number;
  readonly proofStates: RecordedProofStates;

  constructor(dir: string) {
    this.proofStates = new RecordedProofStates(dir);
    const files = transcriptFiles(dir);
    this.files = files.length;
    for (const f of files) {
      const name = path.relative(dir, f);
      for (const x of readExchanges(f)) {
        const keys = Object.keys(x.request);
        if (typeof x.request.cmd !== 'string' || keys.some((k) => !MATCHABLE.has(k))) continue;
        const on = typeof x.request.env === 'number' ? `${name}#${x.request.env}` : INIT;
        const k = `${on}\0${x.request.cmd}`;
        const list = this.#byInput.get(k) ?? [];
        const extra = keys.some((k) => k !== 'cmd' && k !== 'env');
        const response = extra ? withoutAdditions(x.response) : x.response;
        list.push({ response, file: name, line: x.line, extra });
        this.#byInput.set(k, list);
      }
    }
  }

  answer(request: Record<string, unknown>): Answer {
    // The REPL tries a proof step, then the pickles, before a command [repl v4.28.0: REPL/Main.lean, `parse`].
    if (typeof request.tactic === 'string') return this.proofStates.tactic(request);
    if (typeof request.pickleTo === 'string' && request.proofState !== undefined)
      return this.proofStates.pickle(request);
    if (typeof request.unpickleProofStateFrom === 'string')
      return this.proofStates.unpickle(request, (env) => this.#envs.get(env));
    const cmd = request.cmd;
    if (typeof cmd !== 'string') return refuse(`not a command request: ${JSON.stringify(request).slice(0, 200)}`);
    if (request.env === undefined) return this.#header(cmd);
    const on = typeof request.env === 'number' ? this.#envs.get(request.env) : undefined;
    if (!on) return refuse(`env ${String(request.env)} was not handed out by this recorded REPL`);
    const wrapped = WRAPPER.exec(cmd);
    const text = wrapped ? cmd.slice(wrapped[0].length) : cmd;
    if (on.includes(INIT) && HEADERFUL.test(text)) return refuse(`an import after the header: ${text.slice(0, 200)}`);
    const hits = on.flatMap((e) => this.#byInput.get(`${e}\0${text}`) ?? []);
    if (hits.length === 0)
      return refuse(`no recording of ${JSON.stringify(text.slice(0, 300))} on ${on.slice(0, 3).join(', ')}`);
    return this.#reply(hits, wrapped ? WRAP_LINES : 0);
  }

  #header(cmd: string): Answer {
    const probe =
      cmd === HEADER_PROBE
        ? ''
        : cmd.endsWith(`\n${HEADER_PROBE}`)
          ? cmd.slice(0, -HEADER_PROBE.length - 1)
          : undefined;
    if (probe === undefined) return refuse(`a header without the service's probe: ${cmd.slice(0, 200)}`);
    if (probe.trim() === '') {
      const env = this.#nextEnv++;
      this.#envs.set(env, [INIT]);
      return { kind: 'answer', response: { env }, from: 'the Init environment (empty header)' };
    }
    const hits = this.#byInput.get(`${INIT}\0${probe}`) ?? [];
    if (hits.length === 0) return refuse(`no recording of the header ${JSON.stringify(probe.slice(0, 200))}`);
    return this.#reply(hits, 0);
  }

  #reply(hits: Recorded[], shift: number): Answer {
    // Plain recordings first (stable): they are the very request the service sends.
    const first = [...hits].sort((a, b) => Number(a.extra) - Number(b.extra))[0]!;
    const env = this.#nextEnv++;
    const recEnvs = hits
      .filter((h) => typeof h.response.env === 'number')
      .map((h) => `${h.file}#${String(h.response.env)}`);
    this.#envs.set(env, recEnvs);
    const numbered = this.proofStates.numberCommand([first, ...hits.filter((h) => h !== first)]);
    const response = { ...shiftLines(numbered, shift), ...('env' in first.response ? { env } : {}) };
    return { kind: 'answer', response, from: `${first.file}:${first.line}` };
  }
}

const refuse = (reason: string): Answer => ({ kind: 'refusal', reason });

type Positioned = { pos?: { line: number; column: number }; endPos?: { line: number; column: number } | null };

/** The response with every message's and sorry's line moved down by `n` (the wrapper's lines). */
function shiftLines(r: Record<string, unknown>, n: number): Record<string, unknown> {
  if (n === 0) return r;
  const move = <T extends Positioned>(x: T): T => ({
    ...x,
    ...(x.pos && x.pos.line > 0 ? { pos: { ...x.pos, line: x.pos.line + n } } : {}),
    ...(x.endPos ? { endPos: { ...x.endPos, line: x.endPos.line + n } } : {}),
  });
  const out: Record<string, unknown> = { ...r };
  for (const k of ['messages', 'sorries'] as const) if (Array.isArray(r[k])) out[k] = (r[k] as Positioned[]).map(move);
  return out;
}
