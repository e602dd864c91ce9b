/**
 * The daemon's "listening" log line: one line a person reads (where it listens, where the API
 * reference is, and what works on this machine) with the same facts as fields for machines.
 */

export interface LeanSummary {
  /** Every configured environment. */
  environments: string[];
  /** Those that can run Lean now. */
  ready: string[];
  /** Tools that answer without Lean with `"reparse": false`. */
  withoutLean: string[];
}

/** The message of the line: src/main.ts logs it with `address` and the summary as fields. */
export function listeningMessage(address: string, s: LeanSummary): string {
  const where = `lean tool service listening at ${address} (API reference: ${address}/docs)`;
  if (s.ready.length === s.environments.length) return `${where}; every environment can run Lean`;
  const without = s.withoutLean.length ? `; ${s.withoutLean.join(', ')} work with "reparse": false` : '';
  if (s.ready.length === 0)
    return `${where}; no environment can run Lean yet (warned above: \`npm run lean:setup\`): Lean-backed tools answer 409${without}`;
  const others = s.environments.length - s.ready.length;
  return `${where}; Lean runs in ${s.ready.join(', ')}; the ${others} other environment(s) answer 409 to Lean-backed tools (warned above)${without}`;
}
