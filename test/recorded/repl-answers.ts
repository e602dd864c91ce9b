/**
 * The recorded REPL's brain: answers a request only when a recording of the same tag holds it,
 * else refuses. A request matches a recorded one when:
 * - a header (no `env`): the service sends the header with its probe `#print List.cons` after it
 *   (src/backend/session/header-probe.ts). A fresh request must be recorded as sent: the empty header's
 *   probe alone is (the REPL's own options.in sends `{"cmd": "#print List.cons"}` at every tag); a header
 *   with imports is answered only if `<imports>\n#print List.cons` was recorded fresh, else refused (the
 *   header alone recorded is not the answer to the header and its probe). The probe's env stands for the Init
 *   environment too: `#print` only logs [lean4 v4.28.0: src/Lean/Elab/Print.lean, `elabPrint`], and a command
 *   without `env` runs on the command state of its own (empty) header, as commands after the probe do
 *   [repl v4.28.0: REPL/Frontend.lean, `processInput`: both arms run `processCommandsWithInfoTrees`].
 * - a command on `env`: its text equals a request recorded on the recorded env that `env` stands for; on the
 *   Init env, a recorded request without `env`. The backend's own heartbeat wrapper `set_option maxHeartbeats N in`
 *   (src/backend/heartbeats/max-heartbeats.ts, `withBudget`) is removed, and the answer's positions moved down by its
 *   line, as Lean reports them for the wrapped text, only when N is the limit the recording ran under (Lean's
 *   default, in a recorded chain that never set `maxHeartbeats`): `set_option o v in cmd` elaborates `cmd` with
 *   the option set [lean4 v4.28.0: src/Lean/Elab/BuiltinCommand.lean, `expandInCmd`], so with the limit in force
 *   it is the recorded run. Any other budget is refused: the recording cannot say whether the command fits it.
 * - the request's options (`allTactics`, `rootGoals`, `infotree`) are those of the recording, value for value,
 *   and the answer is the recording whole (its `tactics`/`infotree` included). A plain request may also be
 *   answered by a recording made with `allTactics` or `infotree`, with that field removed: those options only
 *   add the field after the command was elaborated the same way (info trees are always on) [repl v4.24.0,
 *   v4.28.0, v4.33.0-rc2: REPL/Main.lean, `runCommand`; REPL/Frontend.lean, `processCommandsWithInfoTrees` sets
 *   `infoState.enabled := true`]. `rootGoals` adds sorries, so it is never removed. A plain recording is preferred.
 *   An `infotree: "original"` request is also answered by a recording made with `infotree: "full"`, its tree cut
 *   down to the `original` one the REPL computes from the same trees (repl-infotree.ts, with the REPL source).
 * The answer is the recorded response with the env renumbered to this process's own count, and its
 * sorries' proof states to this process's own (repl-proof-states.ts, which also answers tactics,
 * pickles and unpickles of proof states).
 */
import path from 'node:path';
import { HEADER_PROBE } from '../../src/backend/session/header-probe.ts';
import { LEAN_DEFAULT_MAX_HEARTBEATS, sentBudget, WRAP_LINES } from '../../src/backend/heartbeats/max-heartbeats.ts';
import { readExchanges, transcriptFiles } from './repl-source.ts';
import { RecordedProofStates } from './repl-proof-states.ts';
import { originalFromFull } from './repl-infotree.ts';

/** A recorded env: the transcript and the env id it had there; `INIT` is the Init environment. */
const INIT = 'init';

interface Recorded {
  response: Record<string, unknown>;
  file: string;
  line: number;
  /** Recorded with `allTactics`/`infotree` (answers a plain request with the additions removed). */
  extra: boolean;
}

export type Answer =
  { kind: 'answer'; response: Record<string, unknown>; from: string } | { kind: 'refusal'; reason: string };

/** The request options that change an answer; a request and its recording must agree on each. */
const OPTIONS = ['allTactics', 'rootGoals', 'infotree'] as const;
/** The options whose only effect is a field of their own in the response (removable for a plain request). */
const ADDITIVE = new Set(['allTactics', 'infotree']);

/** A request's options as a key: `""` for a plain request. */
function optionsKey(request: Record<string, unknown>): string {
  const set = OPTIONS.filter((o) => request[o] !== undefined && request[o] !== false);
  return set.map((o) => `${o}=${JSON.stringify(request[o])}`).join(',');
}

/** The response without what `allTactics` and `infotree` added. */
function withoutAdditions(r: Record<string, unknown>): Record<string, unknown> {
  const out = { ...r };
  delete out.tactics;
  delete out.infotree;
  return out;
}

const WRAPPER = /^set_option maxHeartbeats \d+ in(?: --[^\n]*)?\n/;
const HEADERFUL = /^\s*(?:import|prelude|module)\b/;
const KNOWN_FIELDS = new Set(['cmd', 'env', ...OPTIONS]);

export class RecordedAnswers {
  /** `recordedEnv \0 options \0 cmd` → recordings, in file order. */
  #byInput = new Map<string, Recorded[]>();
  /** Recorded envs whose chain set `maxHeartbeats` (the limit in force there is not Lean's default). */
  #ownLimit = new Set<string>();
  /** Service env id → the recorded envs it stands for. */
  #envs = new Map<number, string[]>();
  #nextEnv = 0;
  readonly files: number;
  readonly proofStates: RecordedProofStates;

  constructor(dir: string) {
    this.proofStates = new RecordedProofStates(dir);
    const files = transcriptFiles(dir);
    this.files = files.length;
    for (const f of files) this.#read(path.relative(dir, f), f);
  }

  #read(name: string, file: string): void {
    for (const x of readExchanges(file)) {
      const keys = Object.keys(x.request);
      if (typeof x.request.cmd !== 'string' || keys.some((k) => !KNOWN_FIELDS.has(k))) continue;
      const on = typeof x.request.env === 'number' ? `${name}#${x.request.env}` : INIT;
      const opts = optionsKey(x.request);
      const response = x.response;
      this.#add(`${on}\0${opts}\0${x.request.cmd}`, { response, file: name, line: x.line, extra: false });
      // A recording made with additive options only also answers the plain request, without the additions.
      if (opts && keys.every((k) => k === 'cmd' || k === 'env' || ADDITIVE.has(k)))
        this.#add(`${on}\0\0${x.request.cmd}`, {
          response: withoutAdditions(response),
          file: name,
          line: x.line,
          extra: true,
        });
      // A `full` info tree holds the `original` one (repl-infotree.ts): the same command asked for that level.
      const original = opts === 'infotree="full"' ? originalFromFull(response) : undefined;
      if (original)
        this.#add(`${on}\0infotree="original"\0${x.request.cmd}`, {
          response: original,
          file: name,
          line: x.line,
          extra: true,
        });
      const limited = (on !== INIT && this.#ownLimit.has(on)) || /\bmaxHeartbeats\b/.test(x.request.cmd);
      if (limited && typeof response.env === 'number') this.#ownLimit.add(`${name}#${response.env}`);
    }
  }

  #add(key: string, r: Recorded): void {
    const list = this.#byInput.get(key);
    if (list) list.push(r);
    else this.#byInput.set(key, [r]);
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
    const unknown = Object.keys(request).filter((k) => !KNOWN_FIELDS.has(k));
    if (unknown.length) return refuse(`request fields no recording answers for: ${unknown.join(', ')}`);
    const opts = optionsKey(request);
    if (request.env === undefined) return this.#header(cmd, opts);
    const on = typeof request.env === 'number' ? this.#envs.get(request.env) : undefined;
    if (!on) return refuse(`env ${String(request.env)} was not handed out by this recorded REPL`);
    const wrapped = WRAPPER.exec(cmd);
    const text = wrapped ? cmd.slice(wrapped[0].length) : cmd;
    if (on.includes(INIT) && HEADERFUL.test(text)) return refuse(`an import after the header: ${text.slice(0, 200)}`);
    if (wrapped) {
      const budget = sentBudget(cmd);
      if (budget !== LEAN_DEFAULT_MAX_HEARTBEATS || on.some((e) => this.#ownLimit.has(e)))
        return refuse(
          `heartbeat budget ${String(budget)} is not the limit the recording ran under (${LEAN_DEFAULT_MAX_HEARTBEATS})`,
        );
    }
    const hits = on.flatMap((e) => this.#byInput.get(`${e}\0${opts}\0${text}`) ?? []);
    if (hits.length === 0) {
      const with_ = opts ? ` with ${opts}` : '';
      return refuse(`no recording of ${JSON.stringify(text.slice(0, 300))}${with_} on ${on.slice(0, 3).join(', ')}`);
    }
    return this.#reply(hits, wrapped ? WRAP_LINES : 0, []);
  }

  /**
   * For a typed double (repl-doubles.ts) only: a new env standing for the recorded envs `env` stands for, the answer
   * to a command of the service's own that the double says changes nothing the recordings depend on.
   */
  standIn(env: unknown): Answer {
    const on = typeof env === 'number' ? this.#envs.get(env) : undefined;
    if (!on) return refuse(`env ${String(env)} was not handed out by this recorded REPL`);
    const id = this.#nextEnv++;
    this.#envs.set(id, on);
    return { kind: 'answer', response: { env: id }, from: 'double' };
  }

  /** A fresh request (the service's: a header and its probe after it), answered only as recorded. */
  #header(cmd: string, opts: string): Answer {
    const hits = this.#byInput.get(`${INIT}\0${opts}\0${cmd}`) ?? [];
    if (hits.length === 0) {
      const probed = cmd === HEADER_PROBE || cmd.endsWith(`\n${HEADER_PROBE}`);
      return refuse(
        `no recording of the header${probed ? " with the service's probe" : ''} ${JSON.stringify(cmd.slice(0, 200))}`,
      );
    }
    // The empty header's probe leaves the Init environment (`#print` adds nothing): its env stands for Init too.
    return this.#reply(hits, 0, cmd === HEADER_PROBE ? [INIT] : []);
  }

  #reply(hits: Recorded[], shift: number, alsoStandsFor: string[]): Answer {
    // Plain recordings first (stable): they are the very request the service sends.
    const first = [...hits].sort((a, b) => Number(a.extra) - Number(b.extra))[0]!;
    const env = this.#nextEnv++;
    const recEnvs = hits
      .filter((h) => typeof h.response.env === 'number')
      .map((h) => `${h.file}#${String(h.response.env)}`);
    this.#envs.set(env, [...alsoStandsFor, ...recEnvs]);
    const numbered = this.proofStates.numberCommand([first, ...hits.filter((h) => h !== first)]);
    const response = { ...shiftLines(numbered, shift), ...('env' in first.response ? { env } : {}) };
    return { kind: 'answer', response, from: `${first.file}:${first.line}` };
  }
}

const refuse = (reason: string): Answer => ({ kind: 'refusal', reason });

type Positioned = { pos?: { line: number; column: number }; endPos?: { line: number; column: number } | null };

/** The response with every message's and sorry's line moved down by `n` (the wrapper's lines). */
export function shiftLines(r: Record<string, unknown>, n: number): Record<string, unknown> {
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
