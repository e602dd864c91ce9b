/**
 * simplify_theorems: shrink proofs while Lean still accepts them, repeated until nothing
 * changes (the iteration count is reported in tool_messages.infos).
 *   remove_unused_tactics  drop a tactic of a proof when the proof still checks without it
 *                          (the second branch of `rfl <;> rfl`, a useless `try`, …)
 *   remove_unused_haves    drop `have h : T := …` when `h` is never mentioned later and the
 *                          proof still checks
 *   rename_unused_vars     the binder Lean's linter reports as unused becomes `_` (the binder
 *                          stays, so the signature does not change)
 * A candidate edit is kept only if the declaration has no more errors and no more sorry
 * warnings than before. Each simplification is the function of the same name below; every
 * declaration goes through rename_unused_vars, remove_unused_haves, remove_unused_tactics (PASSES).
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { applyEdits, remove, replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl } from '../syntax/source.ts';
import { findHaves, parseTacticBlock } from '../syntax/tactics.ts';
import { elaborateContent, requestElabOptions, type Elaborated } from './elaborate.ts';
import { isSorryWarning, messagesIn, sameDecl } from './decl-verdict.ts';
import { reprint } from './layout.ts';
import { selectDeclarations } from './selection.ts';
import { unusedVariableName } from './lean-texts.ts';
import type { ToolRequest } from '../contract/tools.ts';
import type { ToolContext, ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';
import { regex } from '../util/regex.ts';

const badness = (r: Elaborated, d: SourceDecl) =>
  messagesIn(r, d, (m) => m.severity === 'error' || isSorryWarning(m)).length;

/** Removal of a span together with the line break before it, when it is alone on its lines. */
function removeLine(text: string, start: number, end: number): TextEdit {
  const lineStart = text.lastIndexOf('\n', start - 1);
  return text.slice(lineStart + 1, start).trim() === '' && lineStart >= 0 ? remove(lineStart, end) : remove(start, end);
}

/** One simplification run: Lean's latest answer on the simplified text, and the statistics. */
class SimplifyRun {
  r!: Elaborated;
  readonly stats: Record<string, number> = {};
  constructor(
    readonly req: ToolRequest<'simplify_theorems'>,
    readonly ctx: ToolContext,
  ) {}

  elab(text: string): Promise<Elaborated> {
    return elaborateContent(text, requestElabOptions(this.req), this.ctx);
  }

  /** Lean failed while checking a trial (crash, memory): reported, and no further trial is sent. */
  trialFailure: string | undefined;

  /** Try one edit in one declaration; keep it when that declaration is no worse. */
  async attempt(d: SourceDecl, edit: TextEdit, name: string): Promise<boolean> {
    if (this.trialFailure) return false;
    const t = await this.elab(applyEdits(this.r.content, [edit]));
    if (t.failure) {
      // Not a verdict on the edit: Lean did not answer. Saying nothing would report a finished simplification.
      this.trialFailure = t.toolErrors.join('; ');
      return false;
    }
    const td = sameDecl(t, d);
    if (!td || badness(t, td) > badness(this.r, d)) return false;
    this.r = t;
    this.stats[name] = (this.stats[name] ?? 0) + 1;
    return true;
  }
}

/** The simplifications, in the order each declaration goes through them; each says whether it changed something. */
const PASSES: [
  ToolRequest<'simplify_theorems'>['simplifications'][number],
  (run: SimplifyRun, d0: SourceDecl) => Promise<boolean>,
][] = [
  ['rename_unused_vars', renameUnusedVars],
  ['remove_unused_haves', removeUnusedHaves],
  ['remove_unused_tactics', removeUnusedTactics],
];

export const simplify_theorems: ToolImpl<'simplify_theorems'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const on = new Set(req.simplifications);
    const run = new SimplifyRun(req, ctx);
    run.r = await run.elab(reprint(req.content)); // AXLE's layout (tools/layout.ts)
    let iterations = 0;
    for (let changed = !run.r.failure; changed && !run.trialFailure && iterations < 20;) {
      changed = false;
      iterations++;
      for (const d0 of selectDeclarations(run.r.file, req).decls) {
        for (const [name, pass] of PASSES) if (on.has(name) && (await pass(run, d0))) changed = true;
      }
    }
    const { r } = run;
    const tool = emptyMessages();
    pushAll(tool.errors, r.toolErrors, selectDeclarations(r.file, req).errors);
    if (run.trialFailure) tool.errors.push(`while checking a simplification: ${run.trialFailure}`);
    pushAll(tool.warnings, r.toolWarnings);
    tool.infos.push(`simplification finished after ${iterations} iteration${iterations === 1 ? '' : 's'}`);
    return {
      content: r.content,
      lean_messages: toMessageSet(r.messages),
      tool_messages: tool,
      simplification_stats: run.stats,
      timings: { parse_ms: Math.round(r.parseMs), total_ms: Math.round(performance.now() - startedAt) },
    };
  },
};

/** rename_unused_vars: each binder Lean's linter reports as unused becomes `_`. */
async function renameUnusedVars(run: SimplifyRun, d0: SourceDecl): Promise<boolean> {
  const toolchain = run.ctx.env.lean_toolchain;
  let changed = false;
  for (;;) {
    const { r } = run;
    const d = sameDecl(r, d0);
    const unused =
      d && messagesIn(r, d, (m) => m.severity === 'warning' && unusedVariableName(m.text, toolchain) !== undefined)[0];
    if (!d || !unused) break;
    const name = unusedVariableName(unused.text, toolchain)!;
    const at = r.file.lines.fromLean(unused.pos);
    if (r.content.slice(at, at + name.length) !== name) break;
    if (!(await run.attempt(d, replace(at, at + name.length, '_'), 'rename_unused_vars'))) break;
    changed = true;
  }
  return changed;
}

/** remove_unused_haves: a `have h : T := …` whose `h` is never mentioned later goes, when the proof still checks. */
async function removeUnusedHaves(run: SimplifyRun, d0: SourceDecl): Promise<boolean> {
  let changed = false;
  for (let progress = true; progress;) {
    progress = false;
    const { r } = run;
    const d = sameDecl(r, d0);
    if (!d?.bodySig) break;
    for (const h of findHaves(r.file.sig, d.bodySig[0], d.bodySig[1])) {
      const name = h.binder ? r.content.slice(h.binder.start, h.binder.end).trim() : 'this';
      if (h.keyword !== 'have' || !/^[^\s⟨(]+$/.test(name)) continue;
      const rest = r.content.slice(h.end, d.bodySpan!.end);
      // One pattern per `have` binder: a literal name between non-identifier characters.
      if (regex`(?:^|[^\w.'?!])${name}(?:$|[^\w'?!])`.test(rest)) continue;
      if (await run.attempt(d, removeLine(r.content, h.start, h.end), 'remove_unused_haves')) {
        progress = changed = true;
        break;
      }
    }
  }
  return changed;
}

/** remove_unused_tactics: a tactic of the proof's main sequence, or the `<;> t` part of one, goes when the proof still checks. */
async function removeUnusedTactics(run: SimplifyRun, d0: SourceDecl): Promise<boolean> {
  let changed = false;
  for (let progress = true; progress;) {
    progress = false;
    const d = sameDecl(run.r, d0);
    if (d?.bodyForm !== 'tactic' || !d.bodySig) break;
    // Whole tactics of the proof's main sequence (a nested piece alone would leave `try ` or `· ` behind).
    const items = [...parseTacticBlock(run.r.file.sig, d.bodySig[0], d.bodySig[1]).items];
    // Try the last tactics first: removing a finishing tactic fails fast.
    for (const it of items.reverse()) {
      if (it.head === 'sorry' || it.head === 'have') continue;
      const edit = removeLine(run.r.content, it.start, it.end);
      if (await run.attempt(d, edit, 'remove_unused_tactics')) {
        progress = changed = true;
        break;
      }
    }
    // `t₁ <;> t₂` where t₂ contributes nothing: try dropping `<;> t₂`.
    if (!progress && (await removeUnusedAllGoalsTails(run, d, items))) progress = changed = true;
  }
  return changed;
}

async function removeUnusedAllGoalsTails(
  run: SimplifyRun,
  d: SourceDecl,
  items: ReturnType<typeof parseTacticBlock>['items'][number][],
): Promise<boolean> {
  for (let k = d.bodySig![0]; k < d.bodySig![1]; k++) {
    const { r } = run;
    if (r.file.sig.text[k] !== '<;>') continue;
    const item = items.find((it) => it.sigStart <= k && k < it.sigEnd);
    if (!item) continue;
    if (
      await run.attempt(
        d,
        remove(r.file.sig.start[k]! - (r.content[r.file.sig.start[k]! - 1] === ' ' ? 1 : 0), item.end),
        'remove_unused_tactics',
      )
    )
      return true;
  }
  return false;
}
