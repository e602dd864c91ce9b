// The cost model of a Lean REPL verifying prover output, for benchmarks only (bench/cost-repl.mjs
// speaks the REPL's protocol with it; bench/scenarios/rl-workload.ts prices the same workload with
// it to get the lower bound). It knows no Lean: a declaration's cost is drawn from a heavy-tailed
// distribution keyed by its text with comments and blank space removed, so every server pays the
// same CPU for the same proof whatever it strips, splits or wraps around it.
//
// Every figure is a real-world one (seconds of one core, MB); SCALE shrinks time and memory alike
// so that a run fits a shared 2-core machine. Sources, and what is an assumption, in
// docs/rl-workload.md. Fixed before any comparison ran; never tuned after.
import { createHash } from 'node:crypto';

/** Real seconds and MB are multiplied by this (1/30: a 60 s timeout becomes 2 s). */
export const SCALE = 1 / 30;

export const MODEL = Object.freeze({
  /** CPU of `import Mathlib` per process (published range 8–75 s; docs/rl-workload.md). */
  importCpuMs: 20_000,
  /** Resident memory an `import Mathlib` process holds (~6.5 GB). */
  importMb: 6_500,
  /** Memory a REPL keeps per command (assumption: 0.1 % of the import). */
  growMbPerCommand: 6.5,
  /** Every command's fixed CPU (assumption). */
  baseMsPerCommand: 10,
  /** Median and log-sd of a finishing declaration's CPU (lognormal; mean 2.3 s, from Kimina's published run). */
  medianMs: 1_120,
  sigma: 1.2,
  /** Share of distinct declarations that never finish (Kimina's run: 17 of 1,000 at 60 s). */
  timeoutRate: 0.017,
  /**
   * The heartbeats such a declaration counts per CPU second, as a share of the nominal rate: Kimina's
   * run saw 60 s timeouts under `maxHeartbeats 400000` (20 s at the nominal rate), so ≤ 1/3 (assumption: 1/10).
   */
  slowHeartbeatShare: 0.1,
  /** Share of distinct declarations Lean rejects (assumption for sampled RL candidates). */
  errorRate: 0.5,
  /** Heartbeats (maxHeartbeats units, thousands) per CPU second: the daemon's default assumption. */
  heartbeatsPerSecond: 20_000,
  /** Lean's default maxHeartbeats (lean4 v4.28.0 src/Lean/CoreM.lean, `maxHeartbeats`). */
  defaultMaxHeartbeats: 200_000,
  /** CPU of a module probe's `#eval` (src/backend/session/module-probe.ts): charged as a median declaration (assumption). */
  probeMs: 1_120,
});

/**
 * The modules a header's process has loaded, as far as the model knows them: its own imports, `Init.Prelude`
 * (every header without `prelude` imports `Init`), and for `import Mathlib` the roots Mathlib imports that the
 * workload's other headers name: `Aesop`, `Qq` and `Plausible` (leanprover-community/mathlib4
 * Mathlib/Tactic/Common.lean imports all three). Whether Mathlib loads the `Batteries` root was not
 * established (it imports `Batteries.*` submodules): the model says it does not.
 */
export function loadedModules(header) {
  const own = [...header.matchAll(/^import\s+(\S+)/gm)].map((m) => m[1]);
  const loaded = new Set(['Init.Prelude', ...own]);
  if (own.includes('Mathlib')) for (const m of ['Aesop', 'Qq', 'Plausible']) loaded.add(m);
  return loaded;
}

/** The module a probe asks about (src/backend/session/module-probe.ts `moduleProbe`), or undefined. */
export const probedModule = (text) =>
  /^#eval show Lean\.CoreM Bool from do return \(\(← Lean\.getEnv\)\.getModuleIdx\? `(.+)\)\.isSome$/.exec(
    text.trim(),
  )?.[1];

/** Words that begin a command at column 0 (enough for the workload's texts). */
const HEAD =
  /^(?:theorem|lemma|example|def|abbrev|instance|set_option|open|namespace|section|end|variable|noncomputable|private|protected|@\[|#[a-z])/;
const DECL =
  /^(?:@\[[^\]]*\]\s*)?(?:noncomputable\s+|private\s+|protected\s+)*(?:theorem|lemma|example|def|abbrev|instance)\b/;

/** Comments removed (line, block, doc; nested blocks), blank space collapsed. */
export function normalize(text) {
  let out = '';
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('/-', i)) {
      depth++;
      i++;
    } else if (depth > 0 && text.startsWith('-/', i)) {
      depth--;
      i++;
    } else if (depth === 0 && text.startsWith('--', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (depth === 0) out += text[i];
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** The `set_option maxHeartbeats N in` a command may be wrapped in: the limit and the rest. */
export function unwrap(text) {
  const m = /^set_option maxHeartbeats (\d+) in\b[^\n]*\n/.exec(text);
  return m ? { limit: Number(m[1]), text: text.slice(m[0].length) } : { limit: undefined, text };
}

/** A command's units: each starts on a line whose column 0 holds a command word; `line` is 1-based. */
export function units(text) {
  const lines = text.split('\n');
  const out = [];
  let cur;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (
      HEAD.test(l) &&
      !(cur && /^set_option maxHeartbeats \d+ in\b/.test(cur.text) && cur.text.split('\n').length === 1)
    ) {
      cur = { line: i + 1, text: l };
      out.push(cur);
    } else if (cur) cur.text += `\n${l}`;
  }
  return out;
}

export const isDeclaration = (text) => DECL.test(text);

/** A standalone `set_option maxHeartbeats N` (not `… in`): the limit it sets. */
export function scopeLimit(text) {
  const m = /^set_option maxHeartbeats (\d+)\s*$/.exec(normalize(text));
  return m ? Number(m[1]) : undefined;
}

function uniforms(key) {
  const h = createHash('sha256').update(key).digest();
  return [0, 1, 2].map((k) => (h.readUInt32BE(4 * k) + 0.5) / 2 ** 32);
}

/**
 * What Lean would do with this declaration (real milliseconds): `ms` of CPU, Infinity when it never
 * finishes; `error` when it is rejected. Keyed by the normalized text alone.
 */
export function price(declText) {
  const [a, b, c] = uniforms(normalize(declText));
  if (a < MODEL.timeoutRate) return { ms: Infinity, error: false };
  const z = Math.sqrt(-2 * Math.log(b)) * Math.cos(2 * Math.PI * c);
  return {
    ms: MODEL.medianMs * Math.exp(MODEL.sigma * z),
    error: (a - MODEL.timeoutRate) / (1 - MODEL.timeoutRate) < MODEL.errorRate,
  };
}

/** Scaled CPU milliseconds a heartbeat limit allows a declaration costing `ms` (Infinity for 0: no limit). */
export function limitMs(limit, ms) {
  if (limit === 0) return Infinity;
  const share = ms === Infinity ? MODEL.slowHeartbeatShare : 1;
  return (limit / (MODEL.heartbeatsPerSecond * share)) * 1000 * SCALE;
}
