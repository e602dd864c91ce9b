/**
 * Every request this daemon sends to the REPL, as one typed value [repl v4.24.0 … v4.33.0-rc2:
 * REPL/Main.lean, `inductive Input` and `parse`; REPL/JSON.lean, `Command`/`ProofStep`].
 * The REPL tries the shapes in order (ProofStep, pickles, Command, File), so a request must
 * carry exactly the fields of its shape; building them here, and only here, keeps that true.
 */

/** `{"cmd": …, "env"?: n}`: elaborate commands, on top of `env` (absent: a header, a fresh environment). */
export interface CommandRequest {
  cmd: string;
  env?: number;
  allTactics?: boolean;
  rootGoals?: boolean;
  infotree?: 'full' | 'tactics' | 'original' | 'substantive';
}

/** `{"tactic": …, "proofState": n}`: one tactic on a recorded proof state. */
export interface ProofStepRequest {
  tactic: string;
  proofState: number;
}

/** `{"pickleTo": path, "env": n}`: write an environment to a file (the response repeats `env`). */
export interface PickleRequest {
  pickleTo: string;
  env: number;
}

export type ReplRequest = CommandRequest | ProofStepRequest | PickleRequest;

/** A header (no `env`: the REPL parses imports and builds a new environment) or commands on `env`. */
export function commandRequest(cmd: string, env?: number, infotree?: 'original'): CommandRequest {
  const r: CommandRequest = env === undefined ? { cmd } : { cmd, env };
  if (infotree) r.infotree = infotree;
  return r;
}

export function proofStepRequest(tactic: string, proofState: number): ProofStepRequest {
  return { tactic, proofState };
}
