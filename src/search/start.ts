/**
 * What `goal.start` sends: the content's body as one REPL command on the header's env, and
 * which of the `sorry`s the REPL reports become states. The REPL records a proof state at
 * every `sorry` of a command, tactic-mode and term-mode with an expected type alike
 * [repl v4.28.0: REPL/Main.lean, `sorries`: only `.term _ none` is dropped], and lists them
 * in the `sorries` of its answer with their positions.
 *
 * With a theorem named, its proof is replaced by `by sorry` (unless it already is exactly
 * that) and the text ends there: later commands cannot change its statement, and the one
 * state is the `sorry` at that known position.
 */
import type { ReplSorry } from '../backend/protocol/schema.ts';
import type { EnvironmentConfig } from '../envs/config.ts';
import { serviceError } from '../errors.ts';
import { headerEnd } from '../syntax/header-end.ts';
import { LineIndex, type LeanPosition } from '../syntax/positions.ts';
import { parseSource, type SourceDecl } from '../syntax/source.ts';

/** Plain data (it crosses from the plan worker, plan-pool.ts). */
export interface StartPlan {
  header: string;
  /** The command sent. */
  text: string;
  /** Where `text` starts in the content (to move REPL positions back onto the content). */
  origin: LeanPosition;
  /** With a theorem: where in `text` the one `sorry` that is its state is. */
  sorryAt?: LeanPosition | undefined;
}

/** Which of the REPL's sorries are states (indexes into its `sorries`): every one with a proof state, or the theorem's. */
export function pickSorries(plan: StartPlan, sorries: readonly ReplSorry[]): number[] {
  const at = plan.sorryAt;
  return sorries.flatMap((s, i) =>
    typeof s.proofState === 'number' && (!at || (s.pos?.line === at.line && s.pos.column === at.column)) ? [i] : [],
  );
}

const PROOF_BY_SORRY = /^by\s+sorry\s*$/;

export function planStart(
  content: string,
  env: Pick<EnvironmentConfig, 'imports'>,
  ignoreImports: boolean,
  theorem: string | undefined,
): StartPlan {
  const end = headerEnd(content);
  let bodyStart = end;
  while (bodyStart < content.length && /\s/.test(content[bodyStart]!)) bodyStart++;
  const header = ignoreImports ? env.imports : content.slice(0, end);
  const body = content.slice(bodyStart);
  // Only the header's lines are indexed: without a theorem, the work is the header's, not the content's.
  const origin = new LineIndex(content.slice(0, bodyStart)).toLean(bodyStart);
  if (theorem === undefined) return { header, text: body, origin };
  const d = findDecl(body, theorem);
  const { text, sorryAt } = statementWithSorry(body, d);
  return { header, text, origin, sorryAt: new LineIndex(text).toLean(sorryAt) };
}

function findDecl(body: string, name: string): SourceDecl {
  const decls = parseSource(body).decls;
  const d = decls.find((x) => x.fullName === name) ?? decls.find((x) => x.name === name);
  if (!d) throw serviceError('invalid_request', 'no_declaration', { name: JSON.stringify(name.slice(0, 100)) });
  return d;
}

/** The text up to `d`'s proof, with the proof `by sorry`, and the offset of that `sorry`. */
function statementWithSorry(body: string, d: SourceDecl): { text: string; sorryAt: number } {
  const span = d.bodySpan;
  if (span && d.assignSpan) {
    const proof = body.slice(span.start, span.end);
    if (PROOF_BY_SORRY.test(proof)) {
      const text = body.slice(0, span.end).trimEnd();
      return { text, sorryAt: span.start + proof.lastIndexOf('sorry') };
    }
    return { text: `${body.slice(0, span.start)}by sorry`, sorryAt: span.start + 3 };
  }
  // Equations or `where` (no `:=`), or no body at all: the statement gets one.
  const head = body.slice(0, d.signatureSpan.end).trimEnd();
  return { text: `${head} := by sorry`, sorryAt: head.length + ' := by '.length };
}
