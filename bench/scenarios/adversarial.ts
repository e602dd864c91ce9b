/**
 * Adversarial input families (issue 11) at 1×, 4×, 16×, 64× of a base size, through the
 * source model, the structural tools and the per-declaration statement work of the Lean tools
 * (piType, inDeclScope, scopeCommands) in-process: time per byte must stay flat (linear).
 * The table gives µs per KB at each size and the 64×/4× ratio ("flatness"; 1.0 = linear,
 * 16 = quadratic), both sizes warm. Then issue 23's findings through the daemon (adversarial-http.ts):
 * request time at 1× and 64×, and the status endpoint's p99 meanwhile.
 */
import { parseSource, SourceLimitError } from '../../src/syntax/source.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { normalizeSource } from '../../src/tools/normalize-source.ts';
import { round, type ScenarioResult } from '../lib.ts';
import { selectDeclarations } from '../../src/tools/selection.ts';
import { inDeclScope, piType, scopeCommands } from '../../src/syntax/statements.ts';
import { adversarialHttpRows } from './adversarial-http.ts';

/** Each family: a text generator for n repetitions and the base n (the 1× size). */
export const FAMILIES: Record<string, { base: number; gen: (n: number) => string }> = {
  'namespace a': { base: 1000, gen: (n) => `${'namespace a\n'.repeat(n)}theorem t : True := trivial\n` },
  section: { base: 1000, gen: (n) => `${'section\n'.repeat(n)}theorem t : True := trivial\n` },
  'open a': { base: 1000, gen: (n) => `${'open a\n'.repeat(n)}theorem t : True := t\n` },
  'open a_i (distinct)': {
    base: 100,
    gen: (n) => Array.from({ length: n }, (_, i) => `open a${i}\ntheorem t${i} : True := t${i}\n`).join(''),
  },
  'dotted a.a.a…': { base: 2000, gen: (n) => `def a : Nat := 0\ntheorem t : True := ${'a.'.repeat(n)}a\n` },
  'x!"{a" (unterminated)': { base: 1000, gen: (n) => 'x!"{a"\n'.repeat(n) },
  's!"{ (nested)': { base: 1000, gen: (n) => `def x := ${'s!"{'.repeat(n)}\n` },
  'brackets ((((': { base: 2000, gen: (n) => `theorem t : True := ${'('.repeat(n)}\n` },
  'long line simp; …': { base: 2000, gen: (n) => `theorem t : True := by ${'simp; '.repeat(n)}\n` },
  'decreasing_by ×n': { base: 1000, gen: (n) => `theorem t : True := trivial\n${'decreasing_by simp\n'.repeat(n)}` },
  'have ×n': { base: 500, gen: (n) => `theorem t : True := by\n${'  have h : True := trivial\n'.repeat(n)}` },
  // Issue 23, item 4: a run of modifiers with no command after it (the prefix skip restarted per modifier).
  'private\\n ×n (no command)': { base: 1000, gen: (n) => 'private\n'.repeat(n) },
  '@[simp] ×n before a theorem': { base: 1000, gen: (n) => `${'@[simp] '.repeat(n)}theorem t : True := trivial\n` },
  '/-- d -/ ×n (no command)': { base: 1000, gen: (n) => '/-- d -/\n'.repeat(n) },
  // Issue 23, item 9: many declarations sharing their last name component, each referenced.
  'N_i.foo ×n referenced': {
    base: 100,
    gen: (n) =>
      Array.from(
        { length: n },
        (_, i) => `namespace N${i}\ndef foo : Nat := ${i}\ntheorem t : foo = ${i} := rfl\nend N${i}\n`,
      ).join(''),
  },
  'declarations ×n': {
    base: 500,
    gen: (n) => Array.from({ length: n }, (_, i) => `theorem t${i} : True := t${i > 0 ? i - 1 : 0}`).join('\n'),
  },
};

const SCALES = [1, 4, 16, 64];

function timeOnce(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

/** Median of 5 runs after one warm-up. */
function median(fn: () => void): number {
  fn();
  const xs = [timeOnce(fn), timeOnce(fn), timeOnce(fn), timeOnce(fn), timeOnce(fn)].sort((a, b) => a - b);
  return xs[2]!;
}

export async function adversarialScenario(): Promise<ScenarioResult> {
  const table: [string, string, string][] = [];
  const figures: Record<string, unknown> = {};
  let worst = 0;
  let worstName = '';
  for (const [name, f] of Object.entries(FAMILIES)) {
    const perKb: number[] = [];
    let kb64 = 0;
    const refusedAt: number[] = [];
    for (const k of SCALES) {
      const text = f.gen(f.base * k);
      // Past its budget the source model refuses the input (SourceLimitError, a 400 for the caller):
      // the time measured is then the time to refuse.
      let refused = false;
      const ms = median(() => {
        try {
          const g = parseSource(text);
          if (g.text !== text) throw new Error('not lossless');
          renameInSource(text, { t: 'u', a: 'b' });
          selectDeclarations(g, { names: ['t', 'a'] });
          // What the Lean tools do per declaration (verify_proof, disprove, merge): its statement and scope.
          for (const d of g.decls) inDeclScope(g, d, [piType(g, d) ?? ''], scopeCommands(g, d));
          normalizeSource(text, ['remove_sections', 'expand_decl_names', 'remove_duplicates']);
        } catch (e) {
          if (!(e instanceof SourceLimitError)) throw e;
          refused = true;
        }
      });
      if (refused) refusedAt.push(k);
      perKb.push((ms * 1000) / (text.length / 1024));
      kb64 = text.length / 1024;
    }
    // Between two warm sizes (64× ÷ 4×): the 1× input is tiny and first, its per-KB time mostly warm-up and noise.
    const flat = perKb[3]! / perKb[1]!;
    if (flat > worst) {
      worst = flat;
      worstName = name;
    }
    figures[name] = { usPerKb: perKb.map((x) => round(x, 1)), flatness: round(flat, 2), refusedAt };
    const refusal = refusedAt.length ? `; refused at ${refusedAt.map((k) => `${k}×`).join(', ')} (over budget)` : '';
    table.push([
      name,
      perKb.map((x) => round(x, 0)).join(' / '),
      `${round(flat, 2)} (64× = ${round(kb64, 0)} KB${refusal})`,
    ]);
  }
  // Issue 23: the findings through the daemon, with the status endpoint's p99 meanwhile.
  const http = await adversarialHttpRows();
  figures.http = http.figures;
  for (const row of http.rows) table.push(row);
  return {
    name: 'adversarial',
    summary: `parse + rename + select + statements + normalize per family: µs/KB at 1×/4×/16×/64×; worst 64×/4× ratio ${round(worst, 2)} (${worstName})`,
    figures,
    table,
  };
}
