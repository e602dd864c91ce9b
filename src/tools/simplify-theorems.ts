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
 * warnings than before.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { applyEdits, remove, replace, type TextEdit } from '../syntax/edits.ts';
import type { SourceDecl } from '../syntax/source.ts';
import { findHaves, parseTacticBlock } from '../syntax/tactics.ts';
import { elaborateContent, isSorryWarning, messagesIn, sameDecl, type Elaborated } from './elaborate.ts';
import { selectDeclarations } from './selection.ts';
import { unusedVariableName } from './lean-texts.ts';
import type { ToolImpl } from './types.ts';
import { pushAll } from '../util/arrays.ts';

const badness = (r: Elaborated, d: SourceDecl) => messagesIn(r, d, (m) => m.severity === 'error' || isSorryWarning(m)).length;

/** Removal of a span together with the line break before it, when it is alone on its lines. */
function removeLine(text: string, start: number, end: number): TextEdit {
  const lineStart = text.lastIndexOf('\n', start - 1);
  return text.slice(lineStart + 1, start).trim() === '' && lineStart >= 0 ? remove(lineStart, end) : remove(start, end);
}

export const simplify_theorems: ToolImpl<'simplify_theorems'> = {
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const on = new Set(req.simplifications);
    const stats: Record<string, number> = {};
    const opts = { ignore_imports: req.ignore_imports, mathlib_options: req.mathlib_options, global_options: req.global_options };
    let r = await elaborateContent(req.content, opts, ctx);
    /** Try one edit in one declaration; keep it when that declaration is no worse. */
    const attempt = async (d: SourceDecl, edit: TextEdit, name: string): Promise<boolean> => {
      const t = await elaborateContent(applyEdits(r.content, [edit]), opts, ctx);
      const td = sameDecl(t, d);
      if (t.failure || !td || badness(t, td) > badness(r, d)) return false;
      r = t;
      stats[name] = (stats[name] ?? 0) + 1;
      return true;
    };
    let iterations = 0;
    for (let changed = !r.failure; changed && iterations < 20;) {
      changed = false;
      iterations++;
      for (const d0 of selectDeclarations(r.file, req).decls) {
        if (on.has('rename_unused_vars')) {
          for (;;) {
            const d = sameDecl(r, d0);
            const unused = d && messagesIn(r, d, (m) => m.severity === 'warning' && unusedVariableName(m.text, ctx.env.lean_toolchain) !== undefined)[0];
            if (!d || !unused) break;
            const name = unusedVariableName(unused.text, ctx.env.lean_toolchain)!;
            const at = r.file.lines.fromLean(unused.pos);
            if (r.content.slice(at, at + name.length) !== name) break;
            if (!(await attempt(d, replace(at, at + name.length, '_'), 'rename_unused_vars'))) break;
            changed = true;
          }
        }
        if (on.has('remove_unused_haves')) {
          for (let progress = true; progress;) {
            progress = false;
            const d = sameDecl(r, d0);
            if (!d?.bodySig) break;
            for (const h of findHaves(r.file.sig, d.bodySig[0], d.bodySig[1])) {
              const name = h.binder ? r.content.slice(h.binder.start, h.binder.end).trim() : 'this';
              if (h.keyword !== 'have' || !/^[^\s⟨(]+$/.test(name)) continue;
              const rest = r.content.slice(h.end, d.bodySpan!.end);
              if (new RegExp(`(^|[^\\w.'?!])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w'?!])`).test(rest)) continue;
              if (await attempt(d, removeLine(r.content, h.start, h.end), 'remove_unused_haves')) {
                progress = changed = true;
                break;
              }
            }
          }
        }
        if (on.has('remove_unused_tactics')) {
          for (let progress = true; progress;) {
            progress = false;
            const d = sameDecl(r, d0);
            if (d?.bodyForm !== 'tactic' || !d.bodySig) break;
            // Whole tactics of the proof's main sequence (a nested piece alone would leave `try ` or `· ` behind).
            const items = [...parseTacticBlock(r.file.sig, d.bodySig[0], d.bodySig[1]).items];
            // Try the last tactics first: removing a finishing tactic fails fast.
            for (const it of items.reverse()) {
              if (it.head === 'sorry' || it.head === 'have') continue;
              const edit = removeLine(r.content, it.start, it.end);
              if (await attempt(d, edit, 'remove_unused_tactics')) {
                progress = changed = true;
                break;
              }
            }
            // `t₁ <;> t₂` where t₂ contributes nothing: try dropping `<;> t₂`.
            if (!progress) {
              for (let k = d.bodySig[0]; k < d.bodySig[1]; k++) {
                if (r.file.sig.text[k] !== '<;>') continue;
                const item = items.find((it) => it.sigStart <= k && k < it.sigEnd);
                if (!item) continue;
                if (await attempt(d, remove(r.file.sig.start[k]! - (r.content[r.file.sig.start[k]! - 1] === ' ' ? 1 : 0), item.end), 'remove_unused_tactics')) {
                  progress = changed = true;
                  break;
                }
              }
            }
          }
        }
      }
    }
    const tool = emptyMessages();
    pushAll(tool.errors, r.toolErrors, selectDeclarations(r.file, req).errors);
    pushAll(tool.warnings, r.toolWarnings);
    tool.infos.push(`simplification finished after ${iterations} iteration${iterations === 1 ? '' : 's'}`);
    return {
      content: r.content,
      lean_messages: toMessageSet(r.messages),
      tool_messages: tool,
      simplification_stats: stats,
      timings: { parse_ms: Math.round(r.parseMs), total_ms: Math.round(performance.now() - startedAt) },
    };
  },
};
