/**
 * Standalone source for one declaration: the header, then the declaration's transitive
 * local dependencies in file order, inside the namespaces and sections they sit in and
 * with the `open`s, `variable`s, `universe`s and options in force there, then the
 * declaration itself. Namespaces and sections that end up holding no declaration are
 * dropped with everything inside them.
 *
 * What counts as a dependency: every local name the declaration (or a dependency) writes,
 * and, because Lean uses them without naming them, every instance and notation/macro
 * command that precedes it (with their own dependencies). Attribute commands are left
 * out: they name declarations that may not be needed.
 *
 * Cost per document: its dependency closure plus the scope commands before it; the
 * output itself can be quadratic over a file (a chain of n lemmas), the work never more.
 */
import type { Command } from './commands.ts';
import type { SyntacticDependencies } from './dependencies.ts';
import { splitName, type SourceDecl, type SourceFile } from './source.ts';

const CONTEXT_KINDS = new Set<Command['kind']>([
  'namespace',
  'section',
  'end',
  'open',
  'variable',
  'universe',
  'set_option',
]);
/** Other commands that change what later declarations mean (which variables they take, which names are aliased). */
const CONTEXT_KEYWORDS = new Set(['include', 'omit', 'export']);

export interface StandaloneIndex {
  file: SourceFile;
  deps: Map<SourceDecl, SyntacticDependencies>;
  /** Full name → the first declaration of that name. */
  byName: Map<string, SourceDecl>;
  /** Command index → its declarations (several for none; one normally). */
  declsAt: Map<number, SourceDecl[]>;
  /** Indices of scope and option commands, ascending. */
  context: number[];
  /** Indices of instances and notation/macro commands, ascending (used implicitly). */
  implicit: number[];
  /** Mutual group → [mutual command index, end command index]. */
  mutualSpan: Map<number, [number, number]>;
  /** Local names written in non-declaration commands (notations, `variable`s), by command index. */
  commandDeps: Map<number, string[]>;
}

export function standaloneIndex(
  file: SourceFile,
  deps: Map<SourceDecl, SyntacticDependencies>,
  commandDeps: Map<number, string[]> = new Map(),
): StandaloneIndex {
  const byName = new Map<string, SourceDecl>();
  const declsAt = new Map<number, SourceDecl[]>();
  for (const d of file.decls) {
    if (d.fullName && !byName.has(d.fullName)) byName.set(d.fullName, d);
    const at = declsAt.get(d.commandIndex);
    if (at) at.push(d);
    else declsAt.set(d.commandIndex, [d]);
  }
  const context: number[] = [];
  const implicit: number[] = [];
  const mutualSpan = new Map<number, [number, number]>();
  const openScopes: { kind: string; index: number; group: number }[] = [];
  let mutualCount = 0;
  file.commands.forEach((c, i) => {
    if (c.kind === 'notation' || declsAt.get(i)?.some((d) => d.kind === 'instance')) implicit.push(i);
    if (c.kind === 'namespace' || c.kind === 'section') openScopes.push({ kind: c.kind, index: i, group: 0 });
    // parseSource numbers mutual groups by counting `mutual` commands from 1.
    else if (c.kind === 'mutual') openScopes.push({ kind: 'mutual', index: i, group: ++mutualCount });
    else if (c.kind === 'end') {
      const s = openScopes.pop();
      if (s?.kind === 'mutual') {
        mutualSpan.set(s.group, [s.index, i]);
        return; // a mutual block's `end` comes with the block, never as context
      }
    }
    if (CONTEXT_KINDS.has(c.kind) || CONTEXT_KEYWORDS.has(c.keyword)) context.push(i);
  });
  return { file, deps, byName, declsAt, context, implicit, mutualSpan, commandDeps };
}

/** Command indices of the declaration's transitive local dependencies (itself included). */
export function dependencyClosure(ix: StandaloneIndex, target: SourceDecl): Set<number> {
  const needed = new Set<number>();
  const starts: number[] = [target.commandIndex];
  // Implicitly used commands before the target.
  for (const i of ix.implicit) {
    if (i >= target.commandIndex) break;
    starts.push(i);
  }
  closeOver(ix, needed, starts, target.commandIndex);
  if (target.mutualGroup !== undefined) closeOver(ix, needed, mutualCommands(ix, target), target.commandIndex);
  return needed;
}

/**
 * A lower bound on the length of `standaloneContent(ix, target, header)` without building it:
 * the header and the text of every command in the dependency closure (each is in the content
 * once; scopes, context and joins come on top). Costs the closure, which is at most the bound.
 */
export function standaloneFloor(ix: StandaloneIndex, target: SourceDecl, header: string): number {
  const commands = ix.file.commands;
  let n = header.trim().length;
  for (const i of dependencyClosure(ix, target)) n += commands[i]!.end - commands[i]!.start;
  return n;
}

function mutualCommands(ix: StandaloneIndex, d: SourceDecl): number[] {
  const span = d.mutualGroup === undefined ? undefined : ix.mutualSpan.get(d.mutualGroup);
  if (!span) return [d.commandIndex];
  const out: number[] = [];
  for (let i = span[0]; i <= span[1]; i++) out.push(i);
  return out;
}

/** Add the commands `starts` and everything they need (declarations up to `limit`, whole mutual blocks) to `needed`. */
function closeOver(ix: StandaloneIndex, needed: Set<number>, starts: readonly number[], limit: number): void {
  const queue: number[] = [];
  const need = (cmd: number) => {
    if (needed.has(cmd)) return;
    needed.add(cmd);
    queue.push(cmd);
  };
  for (const i of starts) need(i);
  while (queue.length > 0) {
    const i = queue.pop()!;
    const names: string[] = [];
    for (const d of ix.declsAt.get(i) ?? []) for (const n of ix.deps.get(d)?.local ?? []) names.push(n);
    for (const n of ix.commandDeps.get(i) ?? []) names.push(n);
    for (const n of names) {
      const d = ix.byName.get(n);
      if (d && d.commandIndex <= limit) for (const c of mutualCommands(ix, d)) need(c);
    }
  }
}

interface Frame {
  /** Text opening and closing the scope ('' for the extra frames of a dotted section name). */
  openText: string;
  closeText: string;
  mutual: boolean;
  /** Command indices, or synthetic text. */
  items: (number | string)[];
  hasDecl: boolean;
}

/** The identifier after a scope keyword on the command's line (`namespace A.B`, `end A`, `noncomputable section S`). */
function scopeName(file: SourceFile, cmd: Command): string {
  const { sig } = file;
  let k = cmd.ownSigStart;
  while (k < cmd.sigEnd && sig.text[k] !== 'namespace' && sig.text[k] !== 'section' && sig.text[k] !== 'end') k++;
  return k + 1 < cmd.sigEnd && sig.kind[k + 1] === 'ident' && sig.line[k + 1] === sig.line[k] ? sig.text[k + 1]! : '';
}

/**
 * The standalone text: header, then the needed commands with their scopes, in file order.
 * Namespaces are re-opened one component at a time (`namespace A.B` … `end B` … `end A`
 * is legal Lean), so dropping an empty inner scope never changes an outer one.
 */
export function standaloneContent(ix: StandaloneIndex, target: SourceDecl, header: string): string {
  const needed = dependencyClosure(ix, target);
  // A kept `variable` may name a local declaration (`variable (x : MyType)`): add it, render again.
  // Each round adds at least one command, and rounds are few in practice; bounded all the same.
  for (let round = 0; ; round++) {
    const { parts, kept } = render(ix, target, needed);
    const missing: number[] = [];
    for (const i of kept) {
      for (const n of ix.commandDeps.get(i) ?? []) {
        const d = ix.byName.get(n);
        if (d && d.commandIndex < target.commandIndex && !needed.has(d.commandIndex)) missing.push(d.commandIndex);
      }
    }
    if (missing.length === 0 || round >= 8)
      return [header.trim(), ...parts].filter((p) => p.length > 0).join('\n\n') + '\n';
    closeOver(ix, needed, missing, target.commandIndex);
  }
}

function render(ix: StandaloneIndex, _target: SourceDecl, needed: Set<number>): { parts: string[]; kept: number[] } {
  const { file } = ix;
  const sortedNeeded = [...needed].sort((a, b) => a - b);
  // The last needed command is the target, or the `end` of the target's mutual block.
  const last = sortedNeeded[sortedNeeded.length - 1]!;
  const order = mergeSorted(
    sortedNeeded,
    ix.context.filter((i) => i <= last),
  );
  const root: Frame = { openText: '', closeText: '', mutual: false, items: [], hasDecl: false };
  const stack: Frame[] = [root];
  const pop = () => {
    const top = stack.pop()!;
    if (top.hasDecl) close(stack[stack.length - 1]!, top);
  };
  for (const i of order) {
    const cmd = file.commands[i]!;
    const top = stack[stack.length - 1]!;
    const text = file.text.slice(cmd.start, cmd.end);
    if (cmd.kind === 'namespace') {
      for (const part of splitName(scopeName(file, cmd)))
        stack.push({
          openText: `namespace ${part}`,
          closeText: `end ${part}`,
          mutual: false,
          items: [],
          hasDecl: false,
        });
    } else if (cmd.kind === 'section') {
      const name = scopeName(file, cmd);
      const parts = Math.max(1, splitName(name).length);
      stack.push({ openText: text, closeText: name ? `end ${name}` : 'end', mutual: false, items: [], hasDecl: false });
      for (let p = 1; p < parts; p++)
        stack.push({ openText: '', closeText: '', mutual: false, items: [], hasDecl: false });
    } else if (cmd.kind === 'mutual') {
      stack.push({ openText: text, closeText: 'end', mutual: true, items: [], hasDecl: true });
    } else if (cmd.kind === 'end') {
      if (top.mutual) {
        top.closeText = text;
        pop();
        continue;
      }
      // `end A.B` closes two scopes; an unmatched `end` is left out.
      const parts = Math.max(1, splitName(scopeName(file, cmd)).length);
      for (let p = 0; p < parts && stack.length > 1; p++) pop();
    } else {
      top.items.push(i);
      if (needed.has(i)) top.hasDecl = true;
    }
  }
  // Scopes still open after the target: keep them if they hold something, with their closing `end`s.
  while (stack.length > 1) pop();
  const parts = root.items.map((i) =>
    typeof i === 'string' ? i : file.text.slice(file.commands[i]!.start, file.commands[i]!.end),
  );
  const kept = root.items.filter((i): i is number => typeof i === 'number' && !needed.has(i));
  return { parts, kept };
}

/** Move a finished scope into its parent (no spread: scopes can be large). */
function close(parent: Frame, top: Frame): void {
  if (top.openText) parent.items.push(top.openText);
  for (const x of top.items) parent.items.push(x);
  if (top.closeText) parent.items.push(top.closeText);
  parent.hasDecl = true;
}

function mergeSorted(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}
