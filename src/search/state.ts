/**
 * What the daemon knows of a proof search state. The REPL's own index (`proofState`) is only
 * where the state happens to live now: a state is defined by its root (the command that
 * opened it and which of that command's `sorry`s) and the tactics applied since, so it can be
 * made again on any process by replaying that path.
 */
import { createHash, randomBytes } from 'node:crypto';

/** The command that opened one or more root states, and where it may be replayed. */
export interface RootGroup {
  /** Environment and canonical header the command runs on (the pool key). */
  environment: string;
  header: string;
  /** The command text sent (the content, header removed, the theorem's proof replaced when one was named). */
  text: string;
  /** The sorries the REPL reported for `text`, by their place in its answer: which of them are states. */
  sorryIndexes: number[];
  key: string;
  /** Where its sorries are on a generation of its host (shared by its root states). */
  placed?: { gen: number; proofStates: (number | undefined)[]; goals: string[] } | undefined;
}

export interface Placement {
  /** The lease generation of the host the REPL index belongs to. */
  gen: number;
  proofState: number;
}

export interface SearchState {
  readonly id: string;
  readonly group: RootGroup;
  /** Index among the command's sorries (roots), or the root's (descendants). */
  readonly sorry: number;
  readonly parent: SearchState | undefined;
  readonly tactic: string | undefined;
  /** Tactics from the root, for replay: `parent.depth + 1`. */
  readonly depth: number;
  /** Identifies (root, path): equal keys are the same state, whatever process holds it. */
  readonly pathKey: string;
  readonly goals: readonly string[];
  /** Where the REPL holds it now; undefined until made on the current process (a cache hit, a dead process). */
  placement: Placement | undefined;
  live: boolean;
  touchedAt: number;
}

const sha = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 32);

export function rootGroup(environment: string, header: string, text: string, sorryIndexes: number[]): RootGroup {
  return { environment, header, text, sorryIndexes, key: sha(`${environment}\0${header}\0${text}`) };
}

/** Opaque ids: a random prefix per daemon (ids of a restarted daemon never collide) and a counter. */
export class StateIds {
  #prefix = randomBytes(6).toString('base64url');
  #next = 0;

  next(): string {
    return `st_${this.#prefix}${(this.#next++).toString(36)}`;
  }
}

export function rootPathKey(group: RootGroup, sorry: number): string {
  return sha(`${group.key}\0root\0${sorry}`);
}

/** The key of `tactic` applied to the state of `parentKey`: the step cache's key and the child's pathKey. */
export function stepKey(parentKey: string, tactic: string): string {
  return sha(`${parentKey}\0${tactic}`);
}

export function newRoot(
  ids: StateIds,
  group: RootGroup,
  sorry: number,
  goals: readonly string[],
  placement: Placement | undefined,
): SearchState {
  return {
    id: ids.next(),
    group,
    sorry,
    parent: undefined,
    tactic: undefined,
    depth: 0,
    pathKey: rootPathKey(group, sorry),
    goals,
    placement,
    live: true,
    touchedAt: Date.now(),
  };
}

export function newChild(
  ids: StateIds,
  parent: SearchState,
  tactic: string,
  goals: readonly string[],
  placement: Placement | undefined,
): SearchState {
  return {
    id: ids.next(),
    group: parent.group,
    sorry: parent.sorry,
    parent,
    tactic,
    depth: parent.depth + 1,
    pathKey: stepKey(parent.pathKey, tactic),
    goals,
    placement,
    live: true,
    touchedAt: Date.now(),
  };
}

/** The tactics from the root to `s`, root first (iterative: paths may be long). */
export function pathOf(s: SearchState): string[] {
  const out: string[] = [];
  for (let x: SearchState | undefined = s; x?.tactic !== undefined; x = x.parent) out.push(x.tactic);
  return out.reverse();
}
