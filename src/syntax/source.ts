/**
 * The entry point of the source model: `parseSource(text)` gives tokens, header,
 * commands and declarations with their namespaces and full names. Pure and total:
 * it never throws, and `printSource(parseSource(x)) === x` for every input.
 */
import { parseHeader, splitCommands, type Command, type Header } from './commands.ts';
import { parseDeclaration, type Declaration } from './declarations.ts';
import { scan } from './lexer.ts';
import { LineIndex } from './positions.ts';
import type { SigTokens } from './significant.ts';

export interface SourceDecl extends Declaration {
  command: Command;
  commandIndex: number;
  /** Enclosing namespace (dot-joined), '' at the root. */
  namespace: string;
  /** Namespaces opened (non-`in`) in scope at this declaration, innermost scope last. */
  opens: string[];
  /** Namespaces opened by this command's own `open … in` prefixes. */
  localOpens: string[];
  /** Fully qualified name; undefined for `example` and anonymous instances. */
  fullName: string | undefined;
  /** Inside a `mutual … end` block (such declarations share one index in extract results). */
  mutualGroup: number | undefined;
}

/** The namespace and `open`s in force inside a command (its own `open … in` prefixes included). */
export interface CommandScope {
  namespace: string;
  opens: string[];
  /**
   * The `universe` and `variable` commands in force before this command (those of the sections
   * and namespaces still open), as written: a statement restated elsewhere needs them.
   */
  inForce: string[];
  /**
   * The `open` commands in force inside this command, as written (issue 27, defect 13): the last one
   * first, each linking to those before it. Read them with `openCommandTexts`.
   */
  openCommands: OpenCommand | undefined;
}

/**
 * One `open` command, its text as written, and the `open` commands in force before it. The chain is
 * shared: an `open` adds one link and a scope's end goes back to the link in force when it began, so
 * the scope model costs O(1) per command however many namespaces are open.
 */
export interface OpenCommand {
  text: string;
  before: OpenCommand | undefined;
}

/**
 * The `open` commands in force in a scope, in order, each once, as written: `open A (x)`, `open A hiding x`,
 * `open A renaming x → y`, `open scoped A` and `open A` are different commands [lean4
 * src/Lean/Parser/Command.lean, `openDecl := openHiding <|> openRenaming <|> openOnly <|> openSimple <|>
 * openScoped`]; an `open … in` prefix is given without its `in` (it opens for the next command only, i.e.
 * `section open … <command> end` [lean4 src/Lean/Elab/BuiltinCommand.lean, `expandInCmd`], so it is a plain
 * `open` inside a block of its own).
 */
export function openCommandTexts(scope: Pick<CommandScope, 'openCommands'> | undefined): string[] {
  const out: string[] = [];
  for (let o = scope?.openCommands; o; o = o.before) out.push(o.text);
  return dedupe(out.reverse());
}

export interface SourceFile {
  text: string;
  /** One per command, in order. */
  scopes: CommandScope[];
  sig: SigTokens;
  header: Header;
  commands: Command[];
  decls: SourceDecl[];
  lines: LineIndex;
}

interface Scope {
  kind: 'namespace' | 'section' | 'mutual';
  /** The namespace and opens in force when this scope was entered: restored when it ends. */
  outerNs: string;
  outerOpens: string[];
  outerInForce: string[];
  outerOpenCommands: OpenCommand | undefined;
}

/** Components of a dotted name, keeping `«a.b»` parts whole. */
export function splitName(name: string): string[] {
  if (!name) return [];
  const parts: string[] = [];
  let cur = '';
  let inG = false;
  for (const ch of name) {
    if (ch === '«') inG = true;
    else if (ch === '»') inG = false;
    if (ch === '.' && !inG) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

/** Namespaces named by an `open` command or prefix (`open A B`, `open scoped A`, `open A (x)`, `open A hiding x`). */
export function openedNamespaces(sig: SigTokens, from: number, to: number): string[] {
  const out: string[] = [];
  let depth = 0;
  for (let k = from + 1; k < to; k++) {
    const t = sig.text[k]!;
    if (t === '(' || t === '[') depth++;
    else if ((t === ')' || t === ']') && depth > 0) depth--;
    else if (depth === 0 && (t === 'hiding' || t === 'renaming' || t === 'in')) break;
    else if (depth === 0 && sig.kind[k] === 'ident' && t !== 'scoped') out.push(t);
  }
  return out;
}

/**
 * How many entries the scopes of one file may hold in all. Each `open` that adds a namespace, and
 * each `variable`/`universe` command, gives the commands after it a new list of what is in force,
 * so N of them one command at a time cost N²/2 entries: 16,000 `open aᵢ` lines (575 KB) took 2 GB
 * and seconds of the main thread. Real files hold tens of namespaces open and tens of variables
 * (Mathlib: under 50 each), i.e. far below the budget even with 10⁴ commands.
 */
export const SCOPE_ENTRY_BUDGET = 4_000_000;

/** The input is valid Lean, but modelling it would cost more than the budget allows (`SCOPE_ENTRY_BUDGET`). */
export class SourceLimitError extends Error {
  override name = 'SourceLimitError';
}

export function parseSource(text: string): SourceFile {
  const { sig } = scan(text);
  const header = parseHeader(sig);
  const commands = splitCommands(sig, header);
  const decls: SourceDecl[] = [];
  const scopes: Scope[] = [
    { kind: 'section', outerNs: '', outerOpens: [], outerInForce: [], outerOpenCommands: undefined },
  ];
  let mutualCounter = 0;
  // The namespace and opens in force. Entering a scope saves them and ending it restores them,
  // so each scope command costs O(1) whatever the nesting depth (no re-join of the stack), and
  // a repeated `open` of a namespace already in force adds nothing.
  let ns = '';
  let opens: string[] = [];
  let inForce: string[] = [];
  let openCommands: OpenCommand | undefined;
  const openSet = new Set<string>();
  const enter = (kind: Scope['kind'], part?: string) => {
    scopes.push({ kind, outerNs: ns, outerOpens: opens, outerInForce: inForce, outerOpenCommands: openCommands });
    if (part !== undefined) ns = ns ? `${ns}.${part}` : part;
  };
  const leave = () => {
    const s = scopes.pop()!;
    ns = s.outerNs;
    // Names this scope opened are exactly those past the outer list's length (opens only grow inside a scope).
    for (let i = s.outerOpens.length; i < opens.length; i++) openSet.delete(opens[i]!);
    opens = s.outerOpens;
    inForce = s.outerInForce;
    openCommands = s.outerOpenCommands;
  };
  // Every new list of what is in force is a copy (earlier commands keep theirs): each copy draws on the budget.
  let scopeEntries = 0;
  const charge = (entries: number) => {
    scopeEntries += entries;
    if (scopeEntries > SCOPE_ENTRY_BUDGET)
      throw new SourceLimitError(
        `it opens namespaces or declares variables one command at a time, and the lists of what is in force ` +
          `would hold more than ${SCOPE_ENTRY_BUDGET.toLocaleString('en-US')} entries in all (${opens.length} ` +
          `namespaces open and ${inForce.length} variable/universe commands at one point); state them in fewer ` +
          `commands (\`open A B C\`) or inside sections`,
      );
  };
  /** `opens` plus `more`, without duplicates; the same array when nothing is new. */
  const withOpens = (base: string[], baseSet: Set<string>, more: string[]): string[] => {
    const fresh = new Set(more.filter((o) => !baseSet.has(o)));
    if (fresh.size === 0) return base;
    charge(base.length + fresh.size);
    const out = base.slice();
    for (const o of fresh) out.push(o);
    return out;
  };

  const cmdScopes: CommandScope[] = [];
  commands.forEach((cmd, commandIndex) => {
    const own = cmd.ownSigStart;
    const localOpens =
      cmd.prefixes.length === 0
        ? []
        : dedupe(
            cmd.prefixes
              .filter((p) => p.keyword === 'open')
              .flatMap((p) => openedNamespaces(sig, p.sigStart, p.sigEnd)),
          );
    // Scope commands (namespace/end) are given the scope they open into; the rest the scope they sit in.
    cmdScopes.push({
      namespace: ns,
      opens: localOpens.length ? withOpens(opens, openSet, localOpens) : opens,
      inForce,
      openCommands: withOpenPrefixes(text, sig, cmd, openCommands),
    });
    const word = (k: number) => sig.text[k] ?? '';
    switch (cmd.kind) {
      case 'namespace': {
        // `namespace A.B` opens two scopes (A, then A.B); `end B` then `end A` close them.
        for (const part of splitName(word(own + 1))) enter('namespace', part);
        return;
      }
      case 'section': {
        const k = sig.text[own] === 'section' ? own : sig.text.indexOf('section', own);
        const name =
          k >= 0 && k + 1 < cmd.sigEnd && sig.firstOnLine[k + 1] === false && sig.kind[k + 1] === 'ident'
            ? word(k + 1)
            : '';
        const n = Math.max(1, splitName(name).length);
        for (let i = 0; i < n; i++) enter('section');
        return;
      }
      case 'mutual':
        enter('mutual');
        mutualCounter++;
        return;
      case 'end': {
        const name = own + 1 < cmd.sigEnd && sig.kind[own + 1] === 'ident' ? word(own + 1) : '';
        const n = Math.max(1, splitName(name).length);
        for (let i = 0; i < n && scopes.length > 1; i++) leave();
        return;
      }
      case 'universe':
      case 'variable': {
        // `variable … in` (and a command with prefixes) applies to the next command only.
        if (cmd.prefixes.length > 0 || sig.text[cmd.sigEnd - 1] === 'in') return;
        charge(inForce.length + 1);
        inForce = [...inForce, text.slice(cmd.start, cmd.end)];
        return;
      }
      case 'open': {
        const next = withOpens(opens, openSet, openedNamespaces(sig, own, cmd.sigEnd));
        if (next !== opens) {
          for (let i = opens.length; i < next.length; i++) openSet.add(next[i]!);
          opens = next;
        }
        // A dangling `open A in` at the end of the file is kept without its `in`, as a prefix is.
        const last = sig.text[cmd.sigEnd - 1] === 'in' && cmd.sigEnd - 2 > own ? cmd.sigEnd - 2 : cmd.sigEnd - 1;
        openCommands = { text: text.slice(sig.start[own]!, sig.end[last]!), before: openCommands };
        return;
      }
      case 'declaration': {
        const d = parseDeclaration(sig, cmd);
        if (!d) return;
        const namespace = ns;
        let fullName: string | undefined;
        if (d.name !== undefined) {
          if (d.name.startsWith('_root_.')) fullName = d.name.slice('_root_.'.length);
          else fullName = namespace ? `${namespace}.${d.name}` : d.name;
        }
        // Filled in place (no spread): object spreads of this size dominate parse time otherwise.
        const sd = d as SourceDecl;
        sd.command = cmd;
        sd.commandIndex = commandIndex;
        sd.namespace = namespace;
        sd.opens = opens;
        sd.localOpens = localOpens;
        sd.fullName = fullName;
        sd.mutualGroup = scopes[scopes.length - 1]!.kind === 'mutual' ? mutualCounter : undefined;
        decls.push(sd);
        return;
      }
      default:
        return;
    }
  });
  return { text, sig, header, commands, decls, scopes: cmdScopes, lines: new LineIndex(text) };
}

/** `chain` plus the command's own `open … in` prefixes, each without its `in`. */
function withOpenPrefixes(text: string, sig: SigTokens, cmd: Command, chain: OpenCommand | undefined) {
  for (const p of cmd.prefixes)
    if (p.keyword === 'open')
      chain = { text: text.slice(sig.start[p.sigStart]!, sig.end[p.sigEnd - 2]!), before: chain };
  return chain;
}

function dedupe(xs: string[]): string[] {
  return xs.length < 2 ? xs : [...new Set(xs)];
}

/**
 * Reassemble the text from significant tokens and the trivia gaps between them (the
 * losslessness check); `trivia` receives each gap so tests can verify it lexes as trivia.
 */
export function printSource(file: Pick<SourceFile, 'text' | 'sig'>, trivia?: (gap: string) => void): string {
  const { text, sig } = file;
  let out = '';
  let pos = 0;
  for (let k = 0; k < sig.length; k++) {
    const gap = text.slice(pos, sig.start[k]);
    trivia?.(gap);
    out += gap + sig.text[k];
    pos = sig.end[k]!;
  }
  const tail = text.slice(pos);
  trivia?.(tail);
  return out + tail;
}
