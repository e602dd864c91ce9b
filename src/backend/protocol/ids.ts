/**
 * The ids the REPL hands out, predicted from its rules [repl v4.28.0: REPL/Main.lean]: every
 * recorded command snapshot takes the next `env`, every recorded proof snapshot the next
 * `proofState`; in a command response sorries are recorded first, then tactics, then
 * the env; in a proof-step response sorries first, then its own state; an error records
 * nothing; pickling an env returns the same id.
 */
import type { ReplResponse } from './schema.ts';

export class IdTracker {
  nextEnv = 0;
  nextProofState = 0;

  /** Check a response against the ids the REPL must have assigned; returns a list of mismatches. */
  observe(request: Record<string, unknown>, response: ReplResponse): string[] {
    const problems: string[] = [];
    const expectProof = (got: number | null | undefined, what: string) => {
      if (got === null || got === undefined) return;
      if (got !== this.nextProofState) problems.push(`${what}: proofState ${got}, expected ${this.nextProofState}`);
      this.nextProofState = got + 1;
    };
    if (response.type === 'error') return problems;
    if (response.type === 'proofStep') {
      for (const s of response.value.sorries) expectProof(s.proofState, 'sorry');
      expectProof(response.value.proofState, 'proof step');
      return problems;
    }
    const v = response.value;
    if ('pickleTo' in request && 'env' in request) {
      if (v.env !== request.env) problems.push(`pickle: env ${v.env}, expected ${String(request.env)}`);
      return problems;
    }
    for (const s of v.sorries) expectProof(s.proofState, 'sorry');
    for (const t of v.tactics) expectProof(t.proofState, 'tactic');
    if (v.env !== this.nextEnv) problems.push(`command: env ${v.env}, expected ${this.nextEnv}`);
    this.nextEnv = v.env + 1;
    return problems;
  }
}
