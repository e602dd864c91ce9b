/**
 * The recorded REPL's proof states (issue 25): `{"tactic", "proofState"}`, `{"pickleTo", "proofState"}`
 * and `{"unpickleProofStateFrom"[, "env"]}` answered from recordings of one tag, or refused.
 *
 * Numbering is the REPL's: one counter for every proof snapshot recorded, in answer order
 * [repl v4.21.0 … v4.33.0-rc2: REPL/Main.lean, `recordProofSnapshot` takes `proofStates.size`]:
 * - a command answer records its sorries in order (`sorries` → `recordProofSnapshot` per sorry),
 *   then the `tactics` of `allTactics` (`runCommand`); the service never asks for those, and a
 *   recording made with them answers the plain request without them (repl-answers.ts), so only the
 *   sorries take ids here;
 * - a tactic answer records the sorries of its new info trees, then its own state
 *   (`createProofStepReponse`: `sorries …` before `recordProofSnapshot proofState`);
 * - a pickle answer is `createProofStepReponse` of the very snapshot pickled (`pickleProofSnapshot`),
 *   an unpickle one of the snapshot read back (`unpickleProofSnapshot`): each records a new id;
 * - an error answer (`{"message": …}`: an unknown state, a tactic's exception) records nothing
 *   (`runProofStep` returns `.inr` before `createProofStepReponse`).
 * So a live id stands for the recorded ids that answer at the same place of the same recorded
 * answer; when this process's count differs from the recording's (other commands ran before, as in
 * every session of the service), the live id is mapped, never the recorded number reused.
 *
 * A pickle copy (the id a pickle answer records, the id an unpickle of that file records) is the
 * same proof snapshot, so a tactic recorded on a copy answers on the original and the reverse: the
 * REPL pickles `ProofSnapshot` whole and `ProofSnapshot.unpickle` rebuilds it from those fields
 * [repl v4.28.0: REPL/Snapshots.lean, `ProofSnapshot.pickle`, `ProofSnapshot.unpickle`]. Copies are
 * read within one transcript (a pickle and the unpickle of its file).
 */
import { readExchanges, transcriptFiles } from './repl-source.ts';
import path from 'node:path';

/** A recorded proof state: `<transcript>@<recorded id>`. */
type Key = string;
const keyOf = (file: string, ps: unknown): Key | undefined => (typeof ps === 'number' ? `${file}@${ps}` : undefined);

interface Recording {
  file: string;
  line: number;
  response: Record<string, unknown>;
}

export type StateAnswer =
  { kind: 'answer'; response: Record<string, unknown>; from: string } | { kind: 'refusal'; reason: string };

type Json = Record<string, unknown>;
const num = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined);

/** The ids a response records, in the REPL's order: its sorries' then its own. */
function recordedIds(r: Json): (number | undefined)[] {
  const sorries = Array.isArray(r.sorries) ? (r.sorries as Json[]).map((s) => num(s.proofState)) : [];
  return 'goals' in r ? [...sorries, num(r.proofState)] : sorries;
}

/** The ids of an `allTactics` answer's tactics (recorded after its sorries). */
const tacticIds = (r: Json): (number | undefined)[] =>
  Array.isArray(r.tactics) ? (r.tactics as Json[]).map((t) => num(t.proofState)) : [];

/** The response with every proof state id blanked: two recordings that agree on all else are the same answer. */
const shape = (r: Json): string =>
  JSON.stringify(r, (k, v: unknown) => (k === 'proofState' && typeof v === 'number' ? 0 : v));

export class RecordedProofStates {
  /** `<key>\0<tactic>` → the recorded answers of that tactic on that state. */
  #steps = new Map<string, Recording[]>();
  /** `<key>` → the recorded pickles of that state (with the path they went to). */
  #pickles = new Map<Key, (Recording & { path: string })[]>();
  /** `<file>\0<path>` → the recorded unpickles of that file (with the env they named, if any). */
  #unpickles = new Map<string, (Recording & { env: number | undefined })[]>();
  /** Recorded copy → the recorded state it copies. */
  #copyOf = new Map<Key, Key>();
  /** The recorded answer to a tactic on an id its transcript never handed out. */
  #unknown: Recording | undefined;
  /** Live id → the recorded states it stands for. */
  #live = new Map<number, Key[]>();
  /** Pickle path this process was asked to write → `<file>\0<recorded path>` it stands for. */
  #pickledTo = new Map<string, string[]>();
  #next = 0;

  constructor(dir: string) {
    for (const f of transcriptFiles(dir)) this.#read(path.relative(dir, f), f);
  }

  #read(file: string, full: string): void {
    const handedOut = new Set<number>();
    const pickledFrom = new Map<string, Key>();
    for (const x of readExchanges(full)) {
      const q = x.request;
      const rec: Recording = { file, line: x.line, response: x.response };
      const on = keyOf(file, q.proofState);
      if (typeof q.tactic === 'string' && on) {
        if (!handedOut.has(q.proofState as number) && 'message' in x.response) this.#unknown ??= rec;
        else push(this.#steps, `${on}\0${q.tactic}`, rec);
      } else if (typeof q.pickleTo === 'string' && on) {
        push(this.#pickles, on, { ...rec, path: q.pickleTo });
        pickledFrom.set(q.pickleTo, on);
        const copy = keyOf(file, x.response.proofState);
        if (copy) this.#copyOf.set(copy, on);
      } else if (typeof q.unpickleProofStateFrom === 'string') {
        push(this.#unpickles, `${file}\0${q.unpickleProofStateFrom}`, { ...rec, env: num(q.env) });
        const from = pickledFrom.get(q.unpickleProofStateFrom);
        const copy = keyOf(file, x.response.proofState);
        if (from && copy) this.#copyOf.set(copy, from);
      }
      for (const id of [...recordedIds(x.response), ...tacticIds(x.response)]) if (id !== undefined) handedOut.add(id);
    }
  }

  /** Live ids for a command answer's sorries (`hits`: every recording of that input; the first is answered). */
  numberCommand(hits: readonly { file: string; response: Json }[]): Json {
    return this.#renumber(hits[0]!.response, hits);
  }

  tactic(q: Json): StateAnswer {
    const ps = num(q.proofState);
    const on = ps === undefined ? undefined : this.#live.get(ps);
    if (!on) {
      // The REPL's own answer to an index it never recorded [repl: REPL/Main.lean, `runProofStep`].
      if (this.#unknown) return { kind: 'answer', response: this.#unknown.response, from: where(this.#unknown) };
      return refuse(`proof state ${String(q.proofState)} was not handed out, and no recording shows that answer`);
    }
    const hits = this.#class(on).flatMap((k) => this.#steps.get(`${k}\0${String(q.tactic)}`) ?? []);
    if (hits.length === 0)
      return refuse(`no recording of the tactic ${JSON.stringify(String(q.tactic).slice(0, 200))} on ${on[0]}`);
    return this.#answer(hits);
  }

  pickle(q: Json): StateAnswer {
    const on = this.#live.get(num(q.proofState) ?? -1);
    if (!on) return refuse(`pickling proof state ${String(q.proofState)}, which was not handed out`);
    const hits = this.#class(on).flatMap((k) => this.#pickles.get(k) ?? []);
    if (hits.length === 0) return refuse(`no recording of a pickle of ${on[0]}`);
    this.#pickledTo.set(String(q.pickleTo), [...new Set(hits.map((h) => `${h.file}\0${h.path}`))]);
    return this.#answer(hits);
  }

  /** `envStandsFor`: the recorded envs a live env stands for (repl-answers.ts). */
  unpickle(q: Json, envStandsFor: (env: number) => string[] | undefined): StateAnswer {
    const from = this.#pickledTo.get(String(q.unpickleProofStateFrom));
    if (!from) return refuse(`unpickling ${String(q.unpickleProofStateFrom)}, which this process did not pickle`);
    const env = num(q.env);
    const envs = env === undefined ? undefined : envStandsFor(env);
    if (env !== undefined && !envs) return refuse(`env ${env} was not handed out by this recorded REPL`);
    const hits = from
      .flatMap((k) => this.#unpickles.get(k) ?? [])
      .filter((h) => (env === undefined ? h.env === undefined : envs!.includes(`${h.file}#${String(h.env)}`)));
    if (hits.length === 0) return refuse(`no recording of an unpickle of ${from[0]!} with env ${String(env)}`);
    return this.#answer(hits);
  }

  #answer(hits: readonly Recording[]): StateAnswer {
    return { kind: 'answer', response: this.#renumber(hits[0]!.response, hits), from: where(hits[0]!) };
  }

  /** `r` with its recorded ids replaced by this process's next ones, each standing for the same place in every agreeing hit. */
  #renumber(r: Json, hits: readonly { file: string; response: Json }[]): Json {
    const agree = hits.filter((h) => shape(h.response) === shape(r));
    const places = recordedIds(r).map((id, i) => {
      if (id === undefined) return undefined;
      const live = this.#next++;
      this.#live.set(
        live,
        agree.flatMap((h) => keyOf(h.file, recordedIds(h.response)[i]) ?? []),
      );
      return live;
    });
    const out: Json = { ...r };
    let i = 0;
    if (Array.isArray(r.sorries)) out.sorries = (r.sorries as Json[]).map((s) => withId(s, places[i++]));
    if ('goals' in r && places[i] !== undefined) out.proofState = places[i];
    return out;
  }

  /** The recorded states `keys` stand for, with every pickle copy of them and what they copy. */
  #class(keys: readonly Key[]): Key[] {
    const root = (k: Key) => {
      let x = k;
      for (let n = 0; n < 1000 && this.#copyOf.has(x); n++) x = this.#copyOf.get(x)!;
      return x;
    };
    const roots = new Set(keys.map(root));
    const out = new Set(keys);
    for (const k of this.#allKeys()) if (roots.has(root(k))) out.add(k);
    // States named directly first: a recording on the very state is preferred to one on a copy.
    return [...out];
  }

  *#allKeys(): Iterable<Key> {
    for (const k of this.#copyOf.keys()) yield k;
    for (const k of this.#copyOf.values()) yield k;
  }
}

function withId(x: Json, live: number | undefined): Json {
  return live === undefined ? x : { ...x, proofState: live };
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

const where = (r: Recording) => `${r.file}:${r.line}`;
const refuse = (reason: string): StateAnswer => ({ kind: 'refusal', reason });
