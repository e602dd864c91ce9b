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
  /** Namespace components this scope adds. */
  parts: string[];
  opens: string[];
}

/** Strip `«»` escapes from each component: `«x y».z` → `x y.z` is not reversible, so only for comparisons. */
export function stripGuillemets(name: string): string {
  return name.replace(/[«»]/g, '');
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

export function parseSource(text: string): SourceFile {
  const { sig } = scan(text);
  const header = parseHeader(sig);
  const commands = splitCommands(sig, header);
  const decls: SourceDecl[] = [];
  const scopes: Scope[] = [{ kind: 'section', parts: [], opens: [] }];
  let mutualCounter = 0;
  // Namespace and opens change only at scope commands; cache them between.
  let nsCache = '';
  let opensCache: string[] = [];
  const refresh = () => {
    nsCache = scopes.flatMap((s) => s.parts).join('.');
    opensCache = scopes.flatMap((s) => s.opens);
  };

  const cmdScopes: CommandScope[] = [];
  commands.forEach((cmd, commandIndex) => {
    const own = cmd.ownSigStart;
    const localOpens = cmd.prefixes.length === 0 ? [] : cmd.prefixes.filter((p) => p.keyword === 'open').flatMap((p) => openedNamespaces(sig, p.sigStart, p.sigEnd));
    // Scope commands (namespace/end) are given the scope they open into; the rest the scope they sit in.
    cmdScopes.push({ namespace: nsCache, opens: localOpens.length ? [...opensCache, ...localOpens] : opensCache });
    const word = (k: number) => sig.text[k] ?? '';
    switch (cmd.kind) {
      case 'namespace': {
        // `namespace A.B` opens two scopes (A, then A.B); `end B` then `end A` close them.
        for (const part of splitName(word(own + 1))) scopes.push({ kind: 'namespace', parts: [part], opens: [] });
        refresh();
        return;
      }
      case 'section': {
        const k = sig.text.indexOf('section', own);
        const name = k >= 0 && k + 1 < cmd.sigEnd && sig.firstOnLine[k + 1] === false && sig.kind[k + 1] === 'ident' ? word(k + 1) : '';
        for (let i = 0; i < Math.max(1, splitName(name).length); i++) scopes.push({ kind: 'section', parts: [], opens: [] });
        refresh();
        return;
      }
      case 'mutual':
        scopes.push({ kind: 'mutual', parts: [], opens: [] });
        mutualCounter++;
        refresh();
        return;
      case 'end': {
        const name = own + 1 < cmd.sigEnd && sig.kind[own + 1] === 'ident' ? word(own + 1) : '';
        for (let i = 0; i < Math.max(1, splitName(name).length) && scopes.length > 1; i++) scopes.pop();
        refresh();
        return;
      }
      case 'open':
        scopes[scopes.length - 1]!.opens.push(...openedNamespaces(sig, own, cmd.sigEnd));
        refresh();
        return;
      case 'declaration': {
        const d = parseDeclaration(sig, cmd);
        if (!d) return;
        const namespace = nsCache;
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
        sd.opens = opensCache;
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
