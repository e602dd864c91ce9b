/**
 * The TypeScript side of the Lean helper lean/ExtractHelper.lean: the helper text sent
 * once after the header, the command texts that use it, and zod schemas for the JSON it
 * prints. The shapes follow the Lean code that prints them (`Json.mkObj` in
 * `elabMeasure` / `elabInfo`): naturals for hashes (`UInt64.toNat` of a 32-bit
 * `Expr.hash` [lean4 v4.28.0: src/Lean/Expr.lean, `Expr.Data.hash`]), depths (`UInt32.toNat` of
 * `Expr.approxDepth`, ≤ 255), wall time (`IO.monoNanosNow` difference / 10⁶) and
 * heartbeats (`IO.getNumHeartbeats` difference / 1000, the unit of `maxHeartbeats`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PROJECT_ROOT } from '../project-root.ts';
import type { LeanMessage } from '../backend/index.ts';
import { splitName } from '../syntax/source.ts';

export const MEASURE_MARKER = 'lean_tool_measure ';
export const INFO_MARKER = 'lean_tool_info ';

let helperText: string | undefined;

/** The helper's source, read once (it lives in lean/ so it can be checked with Lean on its own). */
export function helperSource(): string {
  // From the project root, not this module's URL: `npm start` runs one bundled dist/main.js.
  helperText ??= readFileSync(path.join(PROJECT_ROOT, 'lean', 'ExtractHelper.lean'), 'utf8').trim();
  return helperText;
}

const nat = z.number().int().nonnegative();
const names = z.array(z.string());

export const measureSchema = z.object({ wall_ms: nat, heartbeats: nat });
export type Measure = z.infer<typeof measureSchema>;

export const infoSchema = z.union([
  z.object({
    name: z.string(),
    type: z.string(),
    type_hash: nat,
    unfolded_type_hash: nat,
    type_depth: nat.max(255),
    term_depth: nat.max(255),
    is_sorry: z.boolean(),
    local_type_dependencies: names,
    external_type_dependencies: names,
    local_value_dependencies: names,
    external_value_dependencies: names,
    external_syntactic_dependencies: names,
  }),
  z.object({ name: z.string(), error: z.string() }),
]);
export type Info = z.infer<typeof infoSchema>;

/** Parse `<marker><json>` from an info message; undefined when the text is not one, an Error when its JSON does not fit. */
function parseMarked<T>(text: string, marker: string, schema: z.ZodType<T>): T | Error | undefined {
  if (!text.startsWith(marker)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text.slice(marker.length));
  } catch (e) {
    return new Error(`the helper printed malformed JSON: ${(e as Error).message}`);
  }
  const r = schema.safeParse(json);
  return r.success
    ? r.data
    : new Error(
        `the helper's JSON does not fit: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
}

export const parseMeasure = (m: LeanMessage) =>
  m.severity === 'info' ? parseMarked(m.text, MEASURE_MARKER, measureSchema) : undefined;
export const parseInfo = (m: LeanMessage) =>
  m.severity === 'info' ? parseMarked(m.text, INFO_MARKER, infoSchema) : undefined;

/**
 * A user command wrapped for measurement. The wrapper sits on a line of its own and the
 * command keeps its first line's column (padding), so every position inside it is the
 * original one moved down `prefixLines` lines; fixPositions moves them back.
 */
export function wrapCommand(text: string, column: number): { text: string; prefixLines: number } {
  return { text: `#lean_tool_measure\n${' '.repeat(column)}${text}`, prefixLines: 1 };
}

/**
 * A name as an identifier Lean parses whatever its components are: each component in `«»`
 * (a component like `simp` or `decide` is a keyword token and would not parse as `ident`).
 */
export function quoteName(name: string): string {
  return splitName(name)
    .map((c) => (c.startsWith('«') ? c : `«${c}»`))
    .join('.');
}

/** The info probe of one declaration: its name, its scope, and the names its source writes (`( )` spaced: two tokens whatever Lean's token table holds). */
export const infoCommand = (
  fullName: string,
  scope: { namespace: string; opens: readonly string[] } = { namespace: '', opens: [] },
  written: readonly string[] = [],
): string =>
  `#lean_tool_info ${quoteName(fullName)} ${scope.namespace ? quoteName(scope.namespace) : '_root_'} ` +
  `(${scope.opens.map((o) => ` ${quoteName(o)}`).join('')} )${written.map((w) => ` ${quoteName(w)}`).join('')}`;
