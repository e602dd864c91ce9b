/**
 * The entry point of the source model: `parseSource(text)` gives tokens, header,
 * commands and declarations with their namespaces and full names. Pure and total:
 * it never throws, and `printSource(parseSource(x)) === x` for every input.
 */
import { isIdFirst, isIdRest } from './chars.ts';
import { parseHeader, splitCommands, type Command, type Header } from './commands.ts';
import { parseDeclaration, type Declaration, type DeclPlace } from './declarations.ts';
import { NONE, scan } from './lexer.ts';
import { LineIndex } from './positions.ts';
import type { SigTokens } from './significant.ts';

/** A declaration of a file and its place there (namespace, opens, full name…: `DeclPlace`). */
export interface SourceDecl extends Declaration, DeclPlace {}

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
   * The `open` commands in force inside this command, as written (as plain `open A`, they showed names the declaration cannot see): the last one
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

/** A scope a file leaves open at its end: `namespace A.B` leaves two (`A`, then `B`), `section` one named ''. */
export interface OpenScope {
  kind: 'namespace' | 'section';
  /** The one name component `end` must repeat (Lean keeps one header per component), or '' for an anonymous section. */
  name: string;
}

export interface SourceFile {
  text: string;
  /** One per command, in order. */
  scopes: CommandScope[];
  /** The scopes still open after the last command, outermost first (commands appended to the file run inside them). */
  openScopes: readonly OpenScope[];
  sig: SigTokens;
  header: Header;
  commands: Command[];
  decls: SourceDecl[];
  lines: LineIndex;
}

interface Scope {
  kind: 'namespace' | 'section' | 'mutual';
  /** The name component it was entered with ('' for an anonymous section and for `mutual`). */
  name: string;
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

/**
 * A name's identity, whatever its spelling: its components without their `«»` escapes, so `«foo»`
 * and `foo` (or `«a.b».c` written either way Lean accepts) are one name, while `«a.b»` and `a.b`
 * stay two. Lean prints a component escaped only when it must (not an identifier, or a token in
 * newer versions) [lean4 src/Init/Meta.lean, `Name.escapePart`, `toStringWithSep`], so a name the
 * content writes with unneeded guillemets comes back from Lean without them.
 */
export function nameIdentity(name: string): string {
  return splitName(name)
    .map((p) => (p.length >= 2 && p.startsWith('«') && p.endsWith('»') ? p.slice(1, -1) : p))
    .join('\u0000');
}

/** A name as Lean prints it: each `«»`-escaped component that is an identifier without them loses them (`nameKey`). */
export function printedName(name: string): string {
  return splitName(name)
    .map((p) =>
      p.length > 2 && p.startsWith('«') && p.endsWith('»') && isIdentifier(p.slice(1, -1)) ? p.slice(1, -1) : p,
    )
    .join('.');
}

/** Whether a component needs no escape: an identifier's first character, then identifier characters (`Name.escapePart`). */
export function isIdentifier(s: string): boolean {
  let first = true;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (first ? !isIdFirst(c) : !isIdRest(c)) return false;
    first = false;
  }
  return !first;
}

/**
 * Namespaces whose names an `open` command or prefix makes visible (`open A B`, `open A (x)`,
 * `open A hiding x`: the namespace, a little wider than Lean for the last two). `open scoped A`
 * makes none: it only activates A's scoped notations and instances [lean4 src/Lean/Elab/Open.lean,
 * `elabOpenDecl`: its `scoped $nss*` case calls `activateScoped` and adds no `OpenDecl`, commit
 * 1d547d3], so a name written after it does not resolve into A.
 */
export function openedNamespaces(sig: SigTokens, from: number, to: number): string[] {
  if (sig.text[from + 1] === 'scoped') return [];
  const out: string[] = [];
  let depth = 0;
  for (let k = from + 1; k < to; k++) {
    const t = sig.text[k]!;
    if (t === '(' || t === '[') depth++;
    else if ((t === ')' || t === ']') && depth > 0) depth--;
    else if (depth === 0 && (t === 'hiding' || t === 'renaming' || t === 'in')) break;
    else if (depth === 0 && sig.kind[k] === 'ident') out.push(t);
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
  const model = new ScopeModel(text, sig);
  for (let i = 0; i < commands.length; i++) model.add(commands[i]!, i);
  return {
    text,
    sig,
    header,
    commands,
    decls: model.decls,
    scopes: model.cmdScopes,
    openScopes: model.openScopes(),
    lines: new LineIndex(text),
  };
}

/**
 * The scopes of one file, command by command: the namespace, the `open`s and the `variable`/`universe`
 * commands in force. Entering a scope saves them and ending it restores them, so each scope command
 * costs O(1) whatever the nesting depth (no re-join of the stack), and a repeated `open` of a namespace
 * already in force adds nothing.
 */
class ScopeModel {
  readonly decls: SourceDecl[] = [];
  readonly cmdScopes: CommandScope[] = [];
  private mutualCounter = 0;
  private ns = '';
  private opens: string[] = [];
  private inForce: string[] = [];
  private openCommands: OpenCommand | undefined;
  /** The scopes entered, the file's own first: it is never left (`end` stops above it), so its saved lists are the first ones. */
  private readonly scopes: Scope[] = [
    {
      kind: 'section',
      name: '',
      outerNs: '',
      outerOpens: this.opens,
      outerInForce: this.inForce,
      outerOpenCommands: undefined,
    },
  ];
  /** The names in `opens`, made with the first `open` (most files of a request open nothing). */
  private openSet: Set<string> | undefined;
  /** Entries of all the lists of what is in force made so far (see `SCOPE_ENTRY_BUDGET`). */
  private scopeEntries = 0;

  constructor(
    private readonly text: string,
    private readonly sig: SigTokens,
  ) {}

  /** Records the scope `cmd` elaborates in, then what it changes for the commands after it. */
  add(cmd: Command, commandIndex: number): void {
    const localOpens = localOpensOf(this.sig, cmd);
    this.cmdScopes.push(this.scopeOf(cmd, localOpens));
    switch (cmd.kind) {
      case 'namespace':
        // `namespace A.B` opens two scopes (A, then A.B); `end B` then `end A` close them.
        for (const part of splitName(this.word(cmd.ownSigStart + 1))) this.enter('namespace', part);
        return;
      case 'section':
        return this.section(cmd);
      case 'mutual':
        this.enter('mutual');
        this.mutualCounter++;
        return;
      case 'end':
        return this.end(cmd);
      case 'universe':
      case 'variable':
        return this.variable(cmd);
      case 'open':
        return this.open(cmd);
      case 'declaration':
        return this.declaration(cmd, commandIndex, localOpens);
      default:
        return;
    }
  }

  /** Scope commands (namespace/end) are given the scope they open into; the rest the scope they sit in. */
  private scopeOf(cmd: Command, localOpens: readonly string[]): CommandScope {
    return {
      namespace: this.ns,
      opens: localOpens.length ? this.withOpens(localOpens) : this.opens,
      inForce: this.inForce,
      openCommands: withOpenPrefixes(this.text, this.sig, cmd, this.openCommands),
    };
  }

  private word(k: number): string {
    return this.sig.text[k] ?? '';
  }

  /**
   * The scopes open after the last command, the file's own excluded. An unterminated `mutual` is left out:
   * Lean parses `mutual … end` as one command [lean4 src/Lean/Parser/Command.lean, `«mutual»`], so without
   * its `end` it is a parse error that opens no scope.
   */
  openScopes(): OpenScope[] {
    const out: OpenScope[] = [];
    for (const s of this.scopes.slice(1)) if (s.kind !== 'mutual') out.push({ kind: s.kind, name: s.name });
    return out;
  }

  /** Enters a scope; a namespace's component extends the current namespace, a section's only names the scope. */
  private enter(kind: Scope['kind'], part = ''): void {
    this.scopes.push({
      kind,
      name: part,
      outerNs: this.ns,
      outerOpens: this.opens,
      outerInForce: this.inForce,
      outerOpenCommands: this.openCommands,
    });
    if (kind === 'namespace') this.ns = this.ns ? `${this.ns}.${part}` : part;
  }

  private leave(): void {
    const s = this.scopes.pop()!;
    this.ns = s.outerNs;
    // Names this scope opened are exactly those past the outer list's length (opens only grow inside a scope).
    for (let i = s.outerOpens.length; i < this.opens.length; i++) this.openSet!.delete(this.opens[i]!);
    this.opens = s.outerOpens;
    this.inForce = s.outerInForce;
    this.openCommands = s.outerOpenCommands;
  }

  /** Every new list of what is in force is a copy (earlier commands keep theirs): each copy draws on the budget. */
  private charge(entries: number): void {
    this.scopeEntries += entries;
    if (this.scopeEntries > SCOPE_ENTRY_BUDGET)
      throw new SourceLimitError(
        `it opens namespaces or declares variables one command at a time, and the lists of what is in force ` +
          `would hold more than ${SCOPE_ENTRY_BUDGET.toLocaleString('en-US')} entries in all (${this.opens.length} ` +
          `namespaces open and ${this.inForce.length} variable/universe commands at one point); state them in fewer ` +
          `commands (\`open A B C\`) or inside sections`,
      );
  }

  /** The opens in force plus `more`, without duplicates; the same array when nothing is new. */
  private withOpens(more: readonly string[]): string[] {
    const fresh = new Set(more.filter((o) => !this.openSet?.has(o)));
    if (fresh.size === 0) return this.opens;
    this.charge(this.opens.length + fresh.size);
    const out = this.opens.slice();
    for (const o of fresh) out.push(o);
    return out;
  }

  /** `section` or `section A.B` (one scope per name part, as `end A.B` closes them). */
  private section(cmd: Command): void {
    const { sig } = this;
    const own = cmd.ownSigStart;
    const k = sig.text[own] === 'section' ? own : sig.text.indexOf('section', own);
    const name =
      k >= 0 && k + 1 < cmd.sigEnd && sig.firstOnLine[k + 1] === false && sig.kind[k + 1] === 'ident'
        ? this.word(k + 1)
        : '';
    // `section A.B` enters one scope per component, each with its own header [lean4 src/Lean/Elab/BuiltinCommand.lean, `addScopes`].
    const parts = name ? splitName(name) : [''];
    for (const part of parts) this.enter('section', part);
  }

  private end(cmd: Command): void {
    const own = cmd.ownSigStart;
    const name = own + 1 < cmd.sigEnd && this.sig.kind[own + 1] === 'ident' ? this.word(own + 1) : '';
    const n = Math.max(1, splitName(name).length);
    for (let i = 0; i < n && this.scopes.length > 1; i++) this.leave();
  }

  private variable(cmd: Command): void {
    // `variable … in` (and a command with prefixes) applies to the next command only.
    if (cmd.prefixes.length > 0 || this.sig.text[cmd.sigEnd - 1] === 'in') return;
    this.charge(this.inForce.length + 1);
    this.inForce = [...this.inForce, this.text.slice(cmd.start, cmd.end)];
  }

  private open(cmd: Command): void {
    // The command as written; a dangling `open A in` at the end of the file is kept without its `in`, as a prefix is.
    const own = cmd.ownSigStart;
    const last = this.sig.text[cmd.sigEnd - 1] === 'in' && cmd.sigEnd - 2 > own ? cmd.sigEnd - 2 : cmd.sigEnd - 1;
    this.openCommands = { text: this.text.slice(this.sig.start[own]!, this.sig.end[last]!), before: this.openCommands };
    const next = this.withOpens(openedNamespaces(this.sig, cmd.ownSigStart, cmd.sigEnd));
    if (next === this.opens) return;
    const openSet = (this.openSet ??= new Set());
    for (let i = this.opens.length; i < next.length; i++) openSet.add(next[i]!);
    this.opens = next;
  }

  private declaration(cmd: Command, commandIndex: number, localOpens: readonly string[]): void {
    const d = parseDeclaration(this.sig, cmd);
    if (!d) return;
    const namespace = this.ns;
    // Filled in place (no spread: object spreads of this size dominate parse time otherwise), in the
    // properties the parse reserved for them (`DeclPlace`): every declaration keeps one shape.
    d.commandIndex = commandIndex;
    d.namespace = namespace;
    d.opens = this.opens;
    d.localOpens = localOpens;
    d.fullName = fullNameOf(d.name, namespace);
    d.mutualGroup = this.scopes[this.scopes.length - 1]!.kind === 'mutual' ? this.mutualCounter : undefined;
    this.decls.push(d);
  }
}

/** Namespaces opened by a command's own `open … in` prefixes (one shared empty list for none, the most). */
function localOpensOf(sig: SigTokens, cmd: Command): readonly string[] {
  if (cmd.prefixes.length === 0) return NONE;
  return dedupe(
    cmd.prefixes.filter((p) => p.keyword === 'open').flatMap((p) => openedNamespaces(sig, p.sigStart, p.sigEnd)),
  );
}

/** A declared name in `namespace`, unless it is `_root_.`-qualified. */
function fullNameOf(name: string | undefined, namespace: string): string | undefined {
  if (name === undefined) return undefined;
  if (name.startsWith('_root_.')) return name.slice('_root_.'.length);
  return namespace ? `${namespace}.${name}` : name;
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
