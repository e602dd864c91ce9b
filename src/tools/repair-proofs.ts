/**
 * repair_proofs: the spec's repair passes, in its order, each driven by what Lean reports.
 *   remove_unknown_options   `set_option` naming an unknown option: dropped (`… in` unwrapped)
 *   enable_autoImplicit      with autoImplicit turned off in the file, a declaration failing on
 *                            unknown identifiers gets `set_option autoImplicit true in`
 *   relax_defeq_transparency Lean ≥ 4.29 only: `set_option backward.isDefEq.respectTransparency
 *                            false in` kept where it clears the errors or moves the first later
 *   insert_sorries           a tactic proof ending with open goals gets `sorry` (`all_goals sorry`
 *                            for several; `;` on one-line proofs); an empty proof becomes `sorry`;
 *                            a block aborted by a failing tactic is left unchanged
 *   remove_extraneous_tactics tactics after the proof is complete ("no goals") are truncated
 *   apply_terminal_tactics   each tactic `sorry` is replaced by the first terminal tactic that
 *                            Lean accepts there
 *   replace_unsafe_tactics   `native_decide` → `decide +kernel` where Lean accepts it
 * A repair found necessary that no change fixes is a failed repair (tool error; okay false).
 * Each pass is the function of the same name below, run in this order (PASSES).
 */
import { NO_GOALS_RE, UNKNOWN_NAME_RE, UNKNOWN_OPTION_RE, UNSOLVED_GOALS_RE } from './lean-texts.ts';
import type { LeanMessage } from '../backend/index.ts';
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { toolchainTag } from '../envs/config.ts';
import { applyEdits, insert, remove, replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl } from '../syntax/source.ts';
import { findSorries, parseTacticBlock } from '../syntax/tactics.ts';
import { elaborateContent, requestElabOptions, type Elaborated } from './elaborate.ts';
import { messagesIn, sameDecl } from './decl-verdict.ts';
import { reprint } from './layout.ts';
import { parseGoals } from './goals.ts';
import { declName, selectDeclarations } from './selection.ts';
import type { ToolRequest } from '../contract/tools.ts';
import type { ToolContext, ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

const errorsIn = (r: Elaborated, d: SourceDecl): LeanMessage[] => messagesIn(r, d, (m) => m.severity === 'error');
const sorryCount = (r: Elaborated, d: SourceDecl) =>
  d.bodySig ? findSorries(r.file.sig, d.bodySig[0], d.bodySig[1]).length : 0;
/** The trial removed a sorry (new errors are checked separately: a tactic that fails or leaves goals adds one). */
const fewerSorries = (t: Elaborated, td: SourceDecl, r: Elaborated, d: SourceDecl) =>
  sorryCount(t, td) < sorryCount(r, d);

/** One repair run: the text as repaired so far and Lean's latest answer on it, with the statistics and failures. */
class RepairRun {
  r!: Elaborated;
  text = '';
  readonly stats: Record<string, number> = {};
  readonly failures: string[] = [];
  constructor(
    readonly req: ToolRequest<'repair_proofs'>,
    readonly ctx: ToolContext,
  ) {}

  elab(text: string): Promise<Elaborated> {
    return elaborateContent(text, requestElabOptions(this.req), this.ctx);
  }

  /** Apply a pass's edits at once and elaborate the result. */
  async step(edits: TextEdit[]): Promise<void> {
    if (edits.length === 0) return;
    // AXLE's layout (tools/layout.ts), kept after each pass (a removed command leaves no gap).
    this.text = reprint(applyEdits(this.text, edits));
    this.accept(await this.elab(this.text));
  }

  /** A trial that helped becomes the current state. */
  accept(t: Elaborated): void {
    this.r = t;
    this.text = t.content;
  }

  selected(): SourceDecl[] {
    return selectDeclarations(this.r.file, this.req).decls;
  }

  bump(k: string): void {
    this.stats[k] = (this.stats[k] ?? 0) + 1;
  }
}

/** The passes in the spec's order; each runs when requested and Lean could elaborate the text. */
const PASSES: [ToolRequest<'repair_proofs'>['repairs'][number], (run: RepairRun) => Promise<void>][] = [
  ['remove_unknown_options', removeUnknownOptions],
  ['enable_autoImplicit', enableAutoImplicit],
  ['relax_defeq_transparency', relaxDefeqTransparency],
  ['insert_sorries', insertSorries],
  ['remove_extraneous_tactics', removeExtraneousTactics],
  ['apply_terminal_tactics', applyTerminalTactics],
  ['replace_unsafe_tactics', replaceUnsafeTactics],
];

export const repair_proofs: ToolImpl<'repair_proofs'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const run = new RepairRun(req, ctx);
    run.accept(await run.elab(reprint(req.content)));
    const on = new Set(req.repairs);
    for (const [name, pass] of PASSES) if (on.has(name) && !run.r.failure) await pass(run);

    const { r } = run;
    const lean = toMessageSet(r.messages);
    const tool = emptyMessages();
    pushAll(tool.errors, r.toolErrors, run.failures, selectDeclarations(r.file, req).errors);
    pushAll(tool.warnings, r.toolWarnings);
    return {
      content: r.content,
      lean_messages: lean,
      tool_messages: tool,
      repair_stats: run.stats,
      okay: tool.errors.length === 0 && lean.errors.length === 0 && !r.failure,
      timings: { parse_ms: Math.round(r.parseMs), total_ms: Math.round(performance.now() - startedAt) },
    };
  },
};

/** remove_unknown_options: a `set_option` Lean rejects is dropped (an `… in` prefix unwrapped). */
async function removeUnknownOptions(run: RepairRun): Promise<void> {
  const { r } = run;
  const edits: TextEdit[] = [];
  r.commands.forEach((c) => {
    const unknown = c.messages.some((m) => m.severity === 'error' && UNKNOWN_OPTION_RE.test(m.text));
    if (!unknown) return;
    const cmd = c.command;
    if (cmd.kind === 'set_option') edits.push(remove(cmd.start, cmd.end));
    for (const p of cmd.prefixes)
      if (p.keyword === 'set_option') edits.push(remove(p.start, r.file.sig.start[p.sigEnd] ?? p.end));
    run.bump('remove_unknown_options');
  });
  await run.step(edits);
}

/** enable_autoImplicit: with autoImplicit off in the file, a declaration failing on unknown identifiers gets it back. */
async function enableAutoImplicit(run: RepairRun): Promise<void> {
  if (!/set_option\s+(relaxed)?autoImplicit\s+false/.test(run.text)) return;
  const edits = run
    .selected()
    .filter((d) => errorsIn(run.r, d).some((m) => UNKNOWN_NAME_RE.test(m.text)))
    .map((d) => insert(d.command.start, 'set_option autoImplicit true in\n'));
  for (const _ of edits) run.bump('enable_autoImplicit');
  await run.step(edits);
}

/** relax_defeq_transparency: the option, per failing declaration, kept where it clears the errors or moves the first later. */
async function relaxDefeqTransparency(run: RepairRun): Promise<void> {
  // The option exists from Lean 4.29 on; earlier it is a no-op.
  const [, major, minor] = /^v(\d+)\.(\d+)/.exec(toolchainTag(run.ctx.env.lean_toolchain) ?? '') ?? [];
  const atLeast429 = Number(major) > 4 || (Number(major) === 4 && Number(minor) >= 29);
  if (!atLeast429) return;
  for (const d of run.selected().filter((x) => errorsIn(run.r, x).length > 0)) {
    const before = errorsIn(run.r, d);
    const trial = applyEdits(run.text, [
      insert(d.command.start, 'set_option backward.isDefEq.respectTransparency false in\n'),
    ]);
    const t = await run.elab(trial);
    const td = sameDecl(t, d);
    const after = td ? errorsIn(t, td) : before;
    if (after.length === 0 || (after[0] && before[0] && after[0].pos.line - 1 > before[0].pos.line)) {
      run.accept(t);
      run.bump('relax_defeq_transparency');
    }
  }
}

/** insert_sorries: a tactic proof that ran to its end with open goals is closed with `sorry`. */
async function insertSorries(run: RepairRun): Promise<void> {
  const { r, text } = run;
  const edits: TextEdit[] = [];
  for (const d of run.selected()) {
    if (d.bodyForm === 'none' && d.assignSpan) continue;
    const errs = errorsIn(r, d);
    if (d.bodyForm === 'tactic' && d.bodySpan && d.bodySig) {
      const byPos = r.file.lines.toLean(d.bodySpan.start);
      const unsolved = errs.find(
        (m) => UNSOLVED_GOALS_RE.test(m.text) && m.pos.line === byPos.line && m.pos.column === byPos.column,
      );
      // Only a block that ran to its end: any other error inside means a tactic failed and aborted it.
      if (!unsolved || errs.length > 1) continue;
      const goals = parseGoals(unsolved.text.slice(unsolved.text.indexOf('\n') + 1)).length;
      const closing = goals > 1 ? 'all_goals sorry' : 'sorry';
      const body = text.slice(d.bodySpan.start, d.bodySpan.end);
      if (/^by\s*$/.test(body)) edits.push(replace(d.bodySpan.start, d.bodySpan.end, 'by sorry'));
      else if (!body.includes('\n')) edits.push(insert(d.bodySpan.end, `; ${closing}`));
      else {
        const block = parseTacticBlock(r.file.sig, d.bodySig[0], d.bodySig[1]);
        edits.push(insert(d.bodySpan.end, `\n${' '.repeat(block.column)}${closing}`));
      }
      run.bump('insert_sorries');
    }
  }
  await run.step(edits);
}

/** remove_extraneous_tactics: tactics after the proof is complete ("no goals") are truncated. */
async function removeExtraneousTactics(run: RepairRun): Promise<void> {
  const { r } = run;
  const edits: TextEdit[] = [];
  for (const d of run.selected()) {
    if (d.bodyForm !== 'tactic' || !d.bodySig) continue;
    const extra = errorsIn(r, d).find((m) => NO_GOALS_RE.test(m.text));
    if (!extra) continue;
    const at = r.file.lines.fromLean(extra.pos);
    const block = parseTacticBlock(r.file.sig, d.bodySig[0], d.bodySig[1]);
    const i = block.items.findIndex((it) => it.start <= at && at < it.end + 1);
    if (i <= 0) continue;
    const prevEnd = block.items[i - 1]!.end;
    edits.push(remove(prevEnd, block.end));
    run.bump('remove_extraneous_tactics');
  }
  await run.step(edits);
}

/** apply_terminal_tactics: each tactic `sorry` is replaced by the first terminal tactic Lean accepts there. */
async function applyTerminalTactics(run: RepairRun): Promise<void> {
  const { req } = run;
  const tried = new Set<string>();
  for (let guard = 0; guard < 200; guard++) {
    // The next tactic sorry in a selected declaration (rescanned after each change).
    let site: { d: SourceDecl; at: number } | undefined;
    for (const d of run.selected()) {
      if (d.bodyForm !== 'tactic' || !d.bodySig) continue;
      const s = findSorries(run.r.file.sig, d.bodySig[0], d.bodySig[1]).find(
        (x) => !tried.has(`${declName(d, run.r.file)}:${x.start}`),
      );
      if (s) {
        site = { d, at: s.start };
        break;
      }
    }
    if (!site) break;
    tried.add(`${declName(site.d, run.r.file)}:${site.at}`);
    let fixed = false;
    for (const tac of req.terminal_tactics) {
      const t = await run.elab(applyEdits(run.text, [replace(site.at, site.at + 5, tac)]));
      const td = sameDecl(t, site.d);
      const before = errorsIn(run.r, site.d).length;
      if (td && !t.failure && errorsIn(t, td).length <= before && fewerSorries(t, td, run.r, site.d)) {
        run.accept(t);
        tried.clear();
        run.bump('apply_terminal_tactics');
        fixed = true;
        break;
      }
    }
    if (!fixed)
      run.failures.push(
        `apply_terminal_tactics: no terminal tactic (${req.terminal_tactics.join(', ')}) ` +
          `proves the sorry in '${declName(site.d, run.r.file)}' at line ${run.r.file.lines.toLean(site.at).line}`,
      );
  }
}

/** The first `native_decide` in a selected declaration's body not yet refused (each body's tokens read once). */
function nextNativeDecide(run: RepairRun, skipped: Set<number>): { d: SourceDecl; k: number } | undefined {
  const { sig } = run.r.file;
  for (const d of run.selected()) {
    if (!d.bodySig) continue;
    for (let k = d.bodySig[0]; k < d.bodySig[1]; k++)
      if (sig.text[k] === 'native_decide' && !skipped.has(sig.start[k]!)) return { d, k };
  }
  return undefined;
}

/** replace_unsafe_tactics: `native_decide` → `decide +kernel` where Lean accepts it. */
async function replaceUnsafeTactics(run: RepairRun): Promise<void> {
  const skipped = new Set<number>();
  for (let guard = 0; guard < 200; guard++) {
    const { r } = run;
    const hit = nextNativeDecide(run, skipped);
    if (!hit) break;
    const at = r.file.sig.start[hit.k]!;
    const t = await run.elab(applyEdits(run.text, [replace(at, at + 'native_decide'.length, 'decide +kernel')]));
    const td = sameDecl(t, hit.d);
    if (td && !t.failure && errorsIn(t, td).length <= errorsIn(r, hit.d).length) {
      run.accept(t);
      run.bump('replace_unsafe_tactics');
    } else {
      skipped.add(at);
      run.failures.push(
        `replace_unsafe_tactics: native_decide in '${declName(hit.d, r.file)}' at line ${r.file.lines.toLean(at).line} ` +
          'cannot be safely replaced by decide +kernel',
      );
    }
  }
}
