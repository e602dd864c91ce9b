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
 */
import type { LeanMessage } from '../backend/index.ts';
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { toolchainTag } from '../envs/config.ts';
import { applyEdits, insert, remove, replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl } from '../syntax/source.ts';
import { findSorries, parseTacticBlock } from '../syntax/tactics.ts';
import { elaborateContent, messagesIn, sameDecl, type Elaborated } from './elaborate.ts';
import { parseGoals } from './goals.ts';
import { declName, selectDeclarations } from './selection.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

const errorsIn = (r: Elaborated, d: SourceDecl): LeanMessage[] => messagesIn(r, d, (m) => m.severity === 'error');
const sorryCount = (r: Elaborated, d: SourceDecl) => (d.bodySig ? findSorries(r.file.sig, d.bodySig[0], d.bodySig[1]).length : 0);
/** The trial removed a sorry (new errors are checked separately: a tactic that fails or leaves goals adds one). */
const fewerSorries = (t: Elaborated, td: SourceDecl, r: Elaborated, d: SourceDecl) => sorryCount(t, td) < sorryCount(r, d);

export const repair_proofs: ToolImpl<'repair_proofs'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const stats: Record<string, number> = {};
    const failures: string[] = [];
    const bump = (k: string) => { stats[k] = (stats[k] ?? 0) + 1; };
    const tried = new Set<string>();
    const skipped = new Set<number>();
    const on = new Set(req.repairs);
    const opts = { ignore_imports: req.ignore_imports, mathlib_options: req.mathlib_options, global_options: req.global_options };
    const elab = (text: string) => elaborateContent(text, opts, ctx);
    let r = await elab(req.content);
    let text = r.content;
    const step = async (edits: TextEdit[]) => {
      if (edits.length === 0) return;
      text = applyEdits(text, edits);
      r = await elab(text);
      text = r.content;
    };
    const selected = () => selectDeclarations(r.file, req).decls;

    if (on.has('remove_unknown_options') && !r.failure) {
      const edits: TextEdit[] = [];
      r.commands.forEach((c) => {
        const unknown = c.messages.some((m) => m.severity === 'error' && /unknown option|invalid option|unknown configuration option/i.test(m.text));
        if (!unknown) return;
        const cmd = c.command;
        if (cmd.kind === 'set_option') edits.push(remove(cmd.start, cmd.end));
        for (const p of cmd.prefixes) if (p.keyword === 'set_option') edits.push(remove(p.start, r.file.sig.start[p.sigEnd] ?? p.end));
        bump('remove_unknown_options');
      });
      await step(edits);
    }

    if (on.has('enable_autoImplicit') && !r.failure && /set_option\s+(relaxed)?autoImplicit\s+false/.test(text)) {
      const edits = selected().filter((d) => errorsIn(r, d).some((m) => /unknown identifier|unknown universe level/i.test(m.text)))
        .map((d) => insert(d.command.start, 'set_option autoImplicit true in\n'));
      edits.forEach(() => bump('enable_autoImplicit'));
      await step(edits);
    }

    // The option exists from Lean 4.29 on; earlier it is a no-op.
    const [, major, minor] = /^v(\d+)\.(\d+)/.exec(toolchainTag(ctx.env.lean_toolchain) ?? '') ?? [];
    const atLeast429 = Number(major) > 4 || (Number(major) === 4 && Number(minor) >= 29);
    if (on.has('relax_defeq_transparency') && atLeast429 && !r.failure) {
      for (const d of selected().filter((x) => errorsIn(r, x).length > 0)) {
        const before = errorsIn(r, d);
        const trial = applyEdits(text, [insert(d.command.start, 'set_option backward.isDefEq.respectTransparency false in\n')]);
        const t = await elab(trial);
        const td = sameDecl(t, d);
        const after = td ? errorsIn(t, td) : before;
        if (after.length === 0 || (after[0] && before[0] && after[0].pos.line - 1 > before[0].pos.line)) {
          r = t;
          text = t.content;
          bump('relax_defeq_transparency');
        }
      }
    }

    if (on.has('insert_sorries') && !r.failure) {
      const edits: TextEdit[] = [];
      for (const d of selected()) {
        if (d.bodyForm === 'none' && d.assignSpan) continue;
        const errs = errorsIn(r, d);
        if (d.bodyForm === 'tactic' && d.bodySpan && d.bodySig) {
          const byPos = r.file.lines.toLean(d.bodySpan.start);
          const unsolved = errs.find((m) => m.text.startsWith('unsolved goals') && m.pos.line === byPos.line && m.pos.column === byPos.column);
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
          bump('insert_sorries');
        }
      }
      await step(edits);
    }

    if (on.has('remove_extraneous_tactics') && !r.failure) {
      const edits: TextEdit[] = [];
      for (const d of selected()) {
        if (d.bodyForm !== 'tactic' || !d.bodySig) continue;
        const extra = errorsIn(r, d).find((m) => /^no goals( to be proved)?/i.test(m.text));
        if (!extra) continue;
        const at = r.file.lines.fromLean(extra.pos);
        const block = parseTacticBlock(r.file.sig, d.bodySig[0], d.bodySig[1]);
        const i = block.items.findIndex((it) => it.start <= at && at < it.end + 1);
        if (i <= 0) continue;
        const prevEnd = block.items[i - 1]!.end;
        edits.push(remove(prevEnd, block.end));
        bump('remove_extraneous_tactics');
      }
      await step(edits);
    }

    if (on.has('apply_terminal_tactics') && !r.failure) {
      for (let guard = 0; guard < 200; guard++) {
        // The next tactic sorry in a selected declaration (rescanned after each change).
        let site: { d: SourceDecl; at: number } | undefined;
        for (const d of selected()) {
          if (d.bodyForm !== 'tactic' || !d.bodySig) continue;
          const s = findSorries(r.file.sig, d.bodySig[0], d.bodySig[1]).find((x) => !tried.has(`${declName(d)}:${x.start}`));
          if (s) { site = { d, at: s.start }; break; }
        }
        if (!site) break;
        tried.add(`${declName(site.d)}:${site.at}`);
        let fixed = false;
        for (const tac of req.terminal_tactics) {
          const t = await elab(applyEdits(text, [replace(site.at, site.at + 5, tac)]));
          const td = sameDecl(t, site.d);
          const before = errorsIn(r, site.d).length;
          if (td && !t.failure && errorsIn(t, td).length <= before && fewerSorries(t, td, r, site.d)) {
            r = t;
            text = t.content;
            tried.clear();
            bump('apply_terminal_tactics');
            fixed = true;
            break;
          }
        }
        if (!fixed) failures.push(`apply_terminal_tactics: no terminal tactic (${req.terminal_tactics.join(', ')}) proves the sorry in '${declName(site.d)}' at line ${r.file.lines.toLean(site.at).line}`);
      }
    }

    if (on.has('replace_unsafe_tactics') && !r.failure) {
      for (let guard = 0; guard < 200; guard++) {
        const hit = selected().flatMap((d) => (d.bodySig ? [{ d, k: r.file.sig.text.findIndex((x, k) => k >= d.bodySig![0] && k < d.bodySig![1] && x === 'native_decide' && !skipped.has(r.file.sig.start[k]!)) }] : [])).find((x) => x.k >= 0);
        if (!hit) break;
        const at = r.file.sig.start[hit.k]!;
        const t = await elab(applyEdits(text, [replace(at, at + 'native_decide'.length, 'decide +kernel')]));
        const td = sameDecl(t, hit.d);
        if (td && !t.failure && errorsIn(t, td).length <= errorsIn(r, hit.d).length) {
          r = t;
          text = t.content;
          bump('replace_unsafe_tactics');
        } else {
          skipped.add(at);
          failures.push(`replace_unsafe_tactics: native_decide in '${declName(hit.d)}' at line ${r.file.lines.toLean(at).line} cannot be safely replaced by decide +kernel`);
        }
      }
    }

    const lean = toMessageSet(r.messages);
    const tool = emptyMessages();
    pushAll(tool.errors, r.toolErrors, failures, selectDeclarations(r.file, req).errors);
    pushAll(tool.warnings, r.toolWarnings);
    return {
      content: r.content,
      lean_messages: lean,
      tool_messages: tool,
      repair_stats: stats,
      okay: tool.errors.length === 0 && lean.errors.length === 0 && !r.failure,
      timings: { parse_ms: Math.round(r.parseMs), total_ms: Math.round(performance.now() - startedAt) },
    };

  },
};
