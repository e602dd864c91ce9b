/**
 * A scripted runner double for extract_decls / extract_theorems. It answers the helper's
 * commands with messages shaped as the helper prints them (lean/ExtractHelper.lean:
 * `logInfo m!"lean_tool_info {json}"` at the command, `Json.mkObj` fields) and moves REPL
 * positions to content positions as the backend does (shiftPos), so the tool's position
 * bookkeeping for wrapped commands is exercised. It invents no Lean result for the product.
 */
import { shiftPos, type LeanMessage, type Origin } from '../../src/backend/index.ts';
import { helperSource } from '../../src/tools/extract-lean.ts';
import { scriptedRunner } from './runner.ts';

/** A message at a REPL position (1-based line inside the command text) of a command sent at `origin`. */
export const at = (
  origin: Origin,
  line: number,
  column: number,
  severity: LeanMessage['severity'],
  text: string,
): LeanMessage => ({ severity, pos: shiftPos({ line, column }, origin), endPos: undefined, text });

export const info = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: `type of ${name}`,
  type_hash: 3141592653,
  unfolded_type_hash: 2718281828,
  type_depth: 4,
  term_depth: 7,
  is_sorry: false,
  local_type_dependencies: [],
  external_type_dependencies: ['Nat'],
  local_value_dependencies: [],
  external_value_dependencies: ['Nat.add'],
  external_syntactic_dependencies: ['Nat'],
  ...extra,
});

/** Answers like the helper would: measure on the wrapper line, sorry warnings at the `sorry`, info for probes. */
export function helperDouble(overrides: { helperError?: string; noInfo?: string[] } = {}) {
  return scriptedRunner((c) => {
    const lines = c.text.split('\n');
    const messages: LeanMessage[] = [];
    let offset = 0;
    if (c.text === helperSource()) {
      return {
        messages: [
          at(
            c.origin,
            40,
            0,
            overrides.helperError ? 'error' : 'warning',
            overrides.helperError ?? 'a linter warning about the helper',
          ),
        ],
      };
    }
    const wrapper = lines.indexOf('#lean_tool_measure');
    if (wrapper >= 0) {
      messages.push(at(c.origin, wrapper + 1, 0, 'info', `lean_tool_measure {"wall_ms":12,"heartbeats":345}`));
      offset = wrapper + 1;
    }
    lines.forEach((l, i) => {
      if (i < offset) return;
      const s = l.indexOf('sorry');
      if (s >= 0) messages.push(at(c.origin, i + 1, s, 'warning', 'declaration uses `sorry`'));
      const e = l.indexOf('ERR');
      if (e >= 0) messages.push(at(c.origin, i + 1, e, 'error', 'Unknown identifier `ERR`'));
    });
    const probe = /#lean_tool_info «([^»]+)»/.exec(c.text);
    if (probe) {
      const name = probe[1]!;
      const json = overrides.noInfo?.includes(name)
        ? { name, error: 'unknown constant' }
        : info(name, name === 'b' ? { local_value_dependencies: ['a'], is_sorry: true } : {});
      messages.push(at(c.origin, lines.length, 0, 'info', `lean_tool_info ${JSON.stringify(json)}`));
    }
    return { messages };
  });
}
