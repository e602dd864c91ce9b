/**
 * normalize: standardise the file's structure (see normalize-source.ts), then elaborate.
 * With `failsafe` (default), the original is elaborated too and returned unchanged when
 * normalization introduced errors.
 */
import { toMessageSet } from './messages.ts';
import { emptyMessages } from '../contract/common.ts';
import { elaborateContent } from './elaborate.ts';
import { reprint } from './layout.ts';
import { normalizeSource } from './normalize-source.ts';
import type { ToolImpl } from './types.ts';

export const normalize: ToolImpl<'normalize'> = {
  // The spec gives normalize no `reparse`: its output is always elaborated.
  needsLean: () => true,
  async run(req, ctx) {
    const startedAt = performance.now();
    const n = normalizeSource(req.content, req.normalizations);
    const output = reprint(n.output); // AXLE's layout (tools/layout.ts)
    const parseMs = performance.now() - startedAt;
    const after = await elaborateContent(output, req, ctx);
    const tool = emptyMessages();
    tool.warnings.push(...n.warnings, ...after.toolWarnings);
    tool.errors.push(...after.toolErrors);
    let result = after;
    if (req.failsafe && output !== req.content && !after.failure) {
      const before = await elaborateContent(req.content, req, ctx);
      const errs = (r: typeof after) => r.messages.filter((m) => m.severity === 'error').length;
      if (!before.failure && errs(after) > errs(before)) {
        tool.warnings.push(
          `failsafe: normalization introduced errors (${errs(before)} before, ${errs(after)} after); the original content is returned`,
        );
        result = before;
      }
    }
    return {
      content: result.content,
      lean_messages: toMessageSet(result.messages),
      tool_messages: tool,
      normalize_stats: n.stats,
      timings: {
        parse_ms: Math.round(parseMs + result.parseMs),
        elaborate_ms: Math.round(after.elaborateMs),
        total_ms: Math.round(performance.now() - startedAt),
      },
    };
  },
};
