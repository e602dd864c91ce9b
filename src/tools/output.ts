/**
 * The common ending of the structural tools: the transformed text in AXLE's layout
 * (tools/layout.ts), re-elaborated when
 * `reparse` (proofs of unselected theorems replaced by `sorry` and their messages dropped,
 * as the spec allows), or returned with the header substituted and no Lean messages.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages, type MessageSet } from '../contract/common.ts';
import { applyEdits, type TextEdit } from '../syntax/edits.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../syntax/source.ts';
import { elaborateContent, prepareContent, type ElabOptions } from './elaborate.ts';
import { reprint } from './layout.ts';
import { selectDeclarations, type Selection, type SelectionRequest } from './selection.ts';
import type { ToolContext } from './types.ts';
import { pushAll } from '../util/arrays.ts';

export interface ToolOutput {
  content: string;
  lean_messages: MessageSet;
  tool_messages: MessageSet;
  timings: Record<string, number>;
}

export interface FinishOptions extends ElabOptions {
  reparse: boolean;
  /** Only these declarations' proofs need elaborating (names/indices given). */
  onlyProofsOf?: ReadonlySet<string> | undefined;
  toolErrors?: string[];
  toolWarnings?: string[];
  toolInfos?: string[];
  startedAt: number;
  parseMs: number;
}

/** A declaration's body replaced by `sorry`, for elaborating only the statement. */
export function sorryBody(text: string, d: SourceDecl, offset: number): string {
  if (!d.bodySpan) return text;
  const from = (d.assignSpan?.start ?? d.bodySpan.start) - offset;
  const to =
    (d.trailing.find((t) => t.keyword === 'termination_by' || t.keyword === 'decreasing_by')?.span.end ??
      d.bodySpan.end) - offset;
  return `${text.slice(0, from).trimEnd()} := sorry${text.slice(to)}`;
}

export async function finishOutput(edited: string, ctx: ToolContext, o: FinishOptions): Promise<ToolOutput> {
  // AXLE's layout, before elaboration, so Lean's message positions refer to the returned text.
  const output = reprint(edited);
  const tool = emptyMessages();
  pushAll(tool.errors, o.toolErrors ?? []);
  pushAll(tool.warnings, o.toolWarnings ?? []);
  pushAll(tool.infos, o.toolInfos ?? []);
  if (!o.reparse) {
    const content = prepareContent(output, ctx.env, o.ignore_imports).content;
    return {
      content,
      lean_messages: emptyMessages(),
      tool_messages: tool,
      timings: { parse_ms: Math.round(o.parseMs), total_ms: Math.round(performance.now() - o.startedAt) },
    };
  }
  const only = o.onlyProofsOf;
  const r = await elaborateContent(
    output,
    o,
    ctx,
    only
      ? {
          transform: (cmd, text, d) => {
            // By full name: the output's positions differ from the request's (an unnamed theorem keeps its proof).
            if (d?.kind !== 'theorem' || d.fullName === undefined || only.has(d.fullName)) return undefined;
            return { text: sorryBody(text, d, cmd.start), silent: true };
          },
        }
      : {},
  );
  pushAll(tool.errors, r.toolErrors);
  pushAll(tool.warnings, r.toolWarnings);
  return {
    content: r.content,
    lean_messages: toMessageSet(r.messages),
    tool_messages: tool,
    timings: {
      parse_ms: Math.round(o.parseMs + r.parseMs),
      elaborate_ms: Math.round(r.elaborateMs),
      total_ms: Math.round(performance.now() - o.startedAt),
    },
  };
}

/**
 * The shape every selection-based rewrite shares: parse, select, edit the selected
 * declarations, then finish (elaborating only the selected proofs when names/indices
 * narrowed the selection).
 */
export async function rewriteSelected(
  req: SelectionRequest & ElabOptions & { content: string; reparse?: boolean },
  ctx: ToolContext,
  rewrite: (file: SourceFile, sel: Selection) => { edits: TextEdit[]; warnings?: string[] },
): Promise<ToolOutput> {
  const startedAt = performance.now();
  const file = parseSource(req.content);
  const sel = selectDeclarations(file, req);
  const r = rewrite(file, sel);
  const output = applyEdits(req.content, r.edits);
  return finishOutput(output, ctx, {
    ...req,
    reparse: req.reparse ?? true,
    onlyProofsOf: sel.explicit
      ? new Set(sel.decls.flatMap((d) => (d.fullName === undefined ? [] : [d.fullName])))
      : undefined,
    toolErrors: sel.errors,
    toolWarnings: r.warnings ?? [],
    startedAt,
    parseMs: performance.now() - startedAt,
  });
}
