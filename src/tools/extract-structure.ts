/**
 * The Document fields of extract_decls that come from the source model alone:
 * declaration, signature, tokens, kind, index (one per mutual block), line_pos /
 * end_line_pos, proof_length and tactic_counts, syntactic dependencies and the
 * standalone content. Lean's fields are added by extract-decls.ts.
 */
import {
  boundNames,
  commandDependencies,
  syntacticDependencies,
  type SyntacticDependencies,
} from '../syntax/dependencies.ts';
import type { SourceDecl, SourceFile } from '../syntax/source.ts';
import { standaloneContent, standaloneFloor, standaloneIndex, type StandaloneIndex } from '../syntax/standalone.ts';
import { parseTacticBlock, type TacticBlock } from '../syntax/tactics.ts';
import { declName } from './selection.ts';

export interface StructuralDocument {
  kind: SourceDecl['kind'];
  declaration: string;
  signature: string;
  tokens: string[];
  index: number;
  line_pos: number;
  end_line_pos: number;
  proof_length: number;
  tactic_counts: Record<string, number>;
  local_syntactic_dependencies: string[];
  external_syntactic_dependencies: string[];
}

export interface FileStructure {
  file: SourceFile;
  deps: Map<SourceDecl, SyntacticDependencies>;
  standalone: StandaloneIndex;
  /** Each declaration's index (mutual blocks share one), in file order. */
  indices: Map<SourceDecl, number>;
}

export function fileStructure(file: SourceFile): FileStructure {
  const deps = syntacticDependencies(file);
  const indices = new Map<SourceDecl, number>();
  let next = 0;
  let prevGroup: number | undefined;
  for (const d of file.decls) {
    if (d.mutualGroup !== undefined && d.mutualGroup === prevGroup) indices.set(d, next - 1);
    else indices.set(d, next++);
    prevGroup = d.mutualGroup;
  }
  return { file, deps, standalone: standaloneIndex(file, deps, commandDependencies(file)), indices };
}

/** Tactic counts of a `by` body: every tactic item of the tree (nested blocks included), by its leading word. */
export function tacticCounts(
  file: SourceFile,
  d: SourceDecl,
): { proof_length: number; tactic_counts: Record<string, number> } {
  const counts: Record<string, number> = {};
  let total = 0;
  if (d.bodyForm !== 'tactic' || !d.bodySig) return { proof_length: 0, tactic_counts: counts };
  // A bound name is never a tactic: `fun y => y` inside a tactic is not a tactic `y`.
  const bound = boundNames(file.sig, d.bodySig[0], d.bodySig[1]);
  const stack: TacticBlock[] = [parseTacticBlock(file.sig, d.bodySig[0], d.bodySig[1])];
  while (stack.length > 0) {
    for (const item of stack.pop()!.items) {
      // Bullets and `case … =>` only structure the proof; the tactics under them are counted.
      if (item.head !== '·' && item.head !== '.' && !bound.has(item.head)) {
        total++;
        counts[item.head] = (counts[item.head] ?? 0) + 1;
      }
      for (const c of item.children) stack.push(c);
    }
  }
  return { proof_length: total, tactic_counts: counts };
}

export function structuralDocument(fs: FileStructure, d: SourceDecl): StructuralDocument {
  const { file } = fs;
  const cmd = d.command;
  const tokens: string[] = [];
  for (let k = cmd.sigStart; k < cmd.sigEnd; k++) tokens.push(file.sig.text[k]!);
  const deps = fs.deps.get(d) ?? { local: [], external: [] };
  const counts = d.kind === 'theorem' ? tacticCounts(file, d) : { proof_length: 0, tactic_counts: {} };
  return {
    kind: d.kind,
    declaration: file.text.slice(cmd.start, cmd.end),
    signature: file.text.slice(cmd.start, d.headerSpan.end).trimEnd(),
    tokens,
    index: fs.indices.get(d) ?? 0,
    line_pos: file.lines.lineOf(cmd.start) + 1,
    end_line_pos: file.lines.lineOf(Math.max(cmd.start, cmd.end - 1)) + 1,
    ...counts,
    local_syntactic_dependencies: deps.local,
    external_syntactic_dependencies: deps.external,
  };
}

/** The standalone content of a declaration (header + transitive local dependencies + it). */
export const documentContent = (fs: FileStructure, d: SourceDecl, header: string): string =>
  standaloneContent(fs.standalone, d, header);

/** A lower bound on `documentContent(fs, d, header).length`, without building it. */
export const documentContentFloor = (fs: FileStructure, d: SourceDecl, header: string): number =>
  standaloneFloor(fs.standalone, d, header);

/**
 * The key of each declaration in `documents`: its name (declName: `example`s and anonymous
 * instances by position, `_example_12_0`), and a repeated key its index (`foo#3`), so no
 * document overwrites another.
 */
export function documentKeys(fs: FileStructure, decls: readonly SourceDecl[]): Map<SourceDecl, string> {
  const keys = new Map<SourceDecl, string>();
  const used = new Set<string>();
  for (const d of decls) {
    let key = declName(d, fs.file);
    if (used.has(key)) key = `${key}#${fs.indices.get(d) ?? 0}`;
    used.add(key);
    keys.set(d, key);
  }
  return keys;
}
