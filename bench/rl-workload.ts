/**
 * The `rl-workload` scenario's workload and its lower bound: N statements × K sampled candidate
 * proofs, as a reinforcement-learning loop sends them to a verifier. Every parameter is fixed here,
 * with its source in docs/rl-workload.md, before any comparison ran; never tuned after. The texts
 * are generated from a fixed seed, so every run and every server gets the same candidates in the same
 * order; what each costs is bench/cost-model.mjs's price of its text.
 */
import { MODEL, SCALE, limitMs, loadedModules, normalize, price } from './cost-model.mjs';

export const WORKLOAD = Object.freeze({
  /** Statements per run and candidates sampled per statement (pass@32: DeepSeek-Prover-V1.5's headline budget). */
  statements: 32,
  candidates: 32,
  /** Share of sampled candidates repeating an earlier candidate of the same statement (assumption). */
  duplicateRate: 0.3,
  /** Of those, the share differing from it only in comments (assumption). */
  commentVariantShare: 0.5,
  /** Share of candidates under one of the other headers (assumption). */
  otherHeaderRate: 0.05,
  /** Concurrent clients, one candidate per request. */
  clients: 8,
  /** The request timeout in real seconds (Kimina's client benchmark default), scaled when sent. */
  timeoutS: 60,
  seed: 38,
});

/**
 * The header every candidate shares: the miniF2F header of DeepSeek-Prover-V1.5 and Goedel-Prover
 * (deepseek-ai/DeepSeek-Prover-V1.5 datasets/minif2f.jsonl, `header`).
 */
export const SHARED_IMPORTS = 'import Mathlib\nimport Aesop';
const SHARED_HEADER = `${SHARED_IMPORTS}\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n`;
/** A few others: an extra import each (not a part of Mathlib, which Kimina would fold into `import Mathlib`). */
const OTHER_HEADERS = ['Batteries', 'Plausible', 'Qq'].map(
  (m) =>
    `${SHARED_IMPORTS}\nimport ${m}\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n`,
);

export interface Candidate {
  id: number;
  statement: number;
  header: string;
  proof: string;
  /** Header and proof: what is sent. */
  code: string;
}

/** mulberry32: a small seeded generator, so the workload is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const statement = (i: number) =>
  `theorem rl_${i} (x y : ℝ) (h₀ : 0 < x ∧ 0 < y) (h₁ : x + y = ${i + 2}) :\n    x * y ≤ ${(i + 2) ** 2} / 4 := by\n`;

const TACTICS = [
  (k: number) => `nlinarith [sq_nonneg (x - y), sq_nonneg (x + y - ${k})]`,
  (k: number) => `have h₂ : 0 ${k % 2 ? '<' : '≤'} x * y := by positivity`,
  (k: number) => `linarith [h₀.1, h₀.2, sq_nonneg (x - ${k})]`,
  () => 'field_simp',
  () => 'ring_nf',
  (k: number) => `norm_num [h₁, pow_two] at * <;> nlinarith [sq_nonneg (x * y - ${k})]`,
  (k: number) => `exact le_of_sub_nonneg (by nlinarith [sq_nonneg (x - y - ${k})])`,
];
const COMMENTS = [
  '-- AM-GM on x and y',
  '-- expand and compare',
  '-- the square is nonnegative',
  '-- close with nlinarith',
];

function freshProof(r: () => number, i: number): string {
  const lines = 1 + Math.floor(r() * 4);
  const body: string[] = [];
  for (let j = 0; j < lines; j++) {
    const t = TACTICS[Math.floor(r() * TACTICS.length)]!(Math.floor(r() * 100));
    body.push(r() < 0.3 ? `  ${t} ${COMMENTS[Math.floor(r() * COMMENTS.length)]!}` : `  ${t}`);
  }
  return `${statement(i)}${body.join('\n')}\n`;
}

/** The same proof with other comments: a new comment line at the top of the tactic block. */
const commentVariant = (proof: string, r: () => number) =>
  proof.replace(
    ':= by\n',
    `:= by\n  ${COMMENTS[Math.floor(r() * COMMENTS.length)]!} (sample ${Math.floor(r() * 1e6)})\n`,
  );

/** The run's candidates, in the order they are sent (statements' samples interleaved, as a sampler emits them). */
export function candidates(w = WORKLOAD): Candidate[] {
  const r = rng(w.seed);
  const per: Candidate[][] = Array.from({ length: w.statements }, () => []);
  const out: Candidate[] = [];
  for (let j = 0; j < w.candidates; j++)
    for (let i = 0; i < w.statements; i++) {
      const earlier = per[i]!;
      let header = r() < w.otherHeaderRate ? OTHER_HEADERS[Math.floor(r() * OTHER_HEADERS.length)]! : SHARED_HEADER;
      let proof: string;
      if (earlier.length > 0 && r() < w.duplicateRate) {
        const from = earlier[Math.floor(r() * earlier.length)]!;
        header = from.header;
        proof = r() < w.commentVariantShare ? commentVariant(from.proof, r) : from.proof;
      } else proof = freshProof(r, i);
      const c = { id: out.length, statement: i, header, proof, code: header + proof };
      earlier.push(c);
      out.push(c);
    }
  return out;
}

export interface LowerBound {
  /** Distinct checks (header, proof without comments) and distinct headers. */
  distinct: number;
  headers: number;
  /** Unavoidable REPL CPU (scaled seconds): every distinct check once, with what a timeout forces. */
  unavoidableCpuS: number;
  /** The same summed over every candidate (no duplicate ever recognised). */
  everyCandidateCpuS: number;
  /** Distinct checks that time out, and that Lean rejects or stops at the header's heartbeat limit. */
  timeouts: number;
  /** unavoidableCpuS ÷ cores: no server can finish sooner. */
  seconds: number;
}

/**
 * What one check costs at the least (scaled ms): its declaration's price and a command's fixed cost; one that
 * outlives the request's timeout costs the timeout and, since the REPL cannot be interrupted (leanprover-community/repl
 * issue 94), a fresh process and its import.
 */
export function checkCostMs(proof: string, timeoutMs: number): { ms: number; timedOut: boolean } {
  const p = price(proof);
  const cap = limitMs(400_000, p.ms);
  const want = Math.min(p.ms * SCALE, cap);
  const base = MODEL.baseMsPerCommand * SCALE;
  if (want > timeoutMs) return { ms: timeoutMs + MODEL.importCpuMs * SCALE + base, timedOut: true };
  return { ms: want + base, timedOut: false };
}

/** Whether every import `header` has beyond the shared ones is among `loaded`. */
function addedLoaded(header: string, loaded: Set<string>): boolean {
  const added = [...header.slice(SHARED_IMPORTS.length).matchAll(/^import\s+(\S+)/gm)].map((m) => m[1]!);
  return added.every((m) => loaded.has(m));
}

export function lowerBound(cands: Candidate[], cores: number, w = WORKLOAD): LowerBound {
  const timeoutMs = w.timeoutS * SCALE * 1000;
  const seen = new Map<string, number>();
  let every = 0;
  let timeouts = 0;
  for (const c of cands) {
    const key = `${c.header}\u0000${normalize(c.proof)}`;
    const cost = checkCostMs(c.proof, timeoutMs);
    every += cost.ms;
    if (seen.has(key)) continue;
    seen.set(key, cost.ms);
    if (cost.timedOut) timeouts++;
  }
  const all = new Set(cands.map((c) => c.header));
  const headers = all.size;
  // The shared header is imported before the run (both servers keep warm processes); every other one once,
  // unless it only adds modules the shared header loaded (src/backend/loaded-imports.ts): that one needs none.
  const shared = loadedModules(SHARED_IMPORTS);
  const importing = [...all].filter((h) => !h.startsWith(SHARED_IMPORTS) || !addedLoaded(h, shared)).length - 1;
  const unavoidable = [...seen.values()].reduce((a, b) => a + b, 0) + importing * MODEL.importCpuMs * SCALE;
  return {
    distinct: seen.size,
    headers,
    unavoidableCpuS: unavoidable / 1000,
    everyCandidateCpuS: every / 1000,
    timeouts,
    seconds: unavoidable / 1000 / cores,
  };
}
