/**
 * The structure of one declaration command: modifiers, kind, name, signature, body and
 * trailing clauses [lean4 v4.28.0: src/Lean/Parser/Command.lean, `declModifiers`, `declSig`, `declBody`]. Spans are JS offsets into the file.
 */
import type { Command, Span } from './commands.ts';
import { skipDeclPrefix } from './commands.ts';
import { MODIFIERS } from './keywords.ts';
import { isCloser, isOpener, type SigTokens } from './significant.ts';
import { NONE } from './lexer.ts';

export type DeclKind =
  | 'theorem'
  | 'def'
  | 'abbrev'
  | 'axiom'
  | 'opaque'
  | 'structure'
  | 'class'
  | 'class inductive'
  | 'inductive'
  | 'instance'
  | 'example'
  | 'unknown';

export type BodyForm = 'term' | 'tactic' | 'equations' | 'where' | 'none';

export interface Modifiers {
  docComment: Span | undefined;
  attributes: Span[];
  visibility: 'private' | 'protected' | 'public' | undefined;
  words: string[];
}

export interface Declaration {
  kind: DeclKind;
  /** The keyword as written: `theorem`, `lemma`, `class inductive`, `irreducible_def`… */
  keyword: string;
  keywordSpan: Span;
  /** The name as written (undefined for `example` and anonymous instances). */
  name: string | undefined;
  nameSpan: Span | undefined;
  modifiers: Modifiers;
  /** From the start of the command (after `… in` prefixes) up to the body: modifiers, keyword, name, binders, type. */
  headerSpan: Span;
  /** Binders and type: after the name (or keyword) up to the body. */
  signatureSpan: Span;
  /** The `:=` token, when the body is introduced by one. */
  assignSpan: Span | undefined;
  /** The value or proof: after `:=` (or from the first `|` / `where`), up to the trailing clauses. */
  bodySpan: Span | undefined;
  bodyForm: BodyForm;
  /** Significant-token range of the body. */
  bodySig: [number, number] | undefined;
  /** `termination_by`, `decreasing_by`, `where`, `deriving` clauses after the body. */
  trailing: { keyword: string; span: Span }[];
}

/**
 * Where a declaration stands in its file (`SourceDecl`, src/syntax/source.ts): the source model
 * fills these in. The parse reserves them in its one object literal (placeholders until then), so
 * that every declaration has one shape from its creation on: added later, they took a property
 * array grown three times per declaration and a chain of map transitions.
 */
export interface DeclPlace {
  command: Command;
  commandIndex: number;
  /** Enclosing namespace (dot-joined), '' at the root. */
  namespace: string;
  /** Namespaces opened (non-`in`) in scope at this declaration, innermost scope last. */
  opens: readonly string[];
  /** Namespaces opened by this command's own `open … in` prefixes. */
  localOpens: readonly string[];
  /** Fully qualified name; undefined for `example` and anonymous instances. */
  fullName: string | undefined;
  /** Inside a `mutual … end` block (such declarations share one index in extract results). */
  mutualGroup: number | undefined;
}

const KIND_OF: Record<string, DeclKind> = {
  theorem: 'theorem',
  lemma: 'theorem',
  def: 'def',
  abbrev: 'abbrev',
  axiom: 'axiom',
  opaque: 'opaque',
  structure: 'structure',
  class: 'class',
  'class inductive': 'class inductive',
  'class abbrev': 'class',
  inductive: 'inductive',
  coinductive: 'inductive',
  instance: 'instance',
  example: 'example',
};

const TRAILING = new Set([
  'termination_by',
  'termination_by?',
  'decreasing_by',
  'partial_fixpoint',
  'where',
  'deriving',
]);
/**
 * Term-level binders whose own `:=` comes before the declaration's. Not `set`: Mathlib's `set`
 * is a tactic only ([mathlib4 Mathlib/Tactic/Set.lean: `syntax (name := setTactic) "set" …
 * : tactic`]), so in a signature `set` is an identifier (`set l n a = …`), and counting it
 * hid the declaration's `:=` (theorem2sorry left such a theorem unchanged).
 */
const LET_LIKE = new Set(['let', 'have', 'haveI', 'letI', 'let_fun']);

/** Does the line starting at significant token k (depth 0) contain `=>` before its end? (equation alternative) */
function lineHasArrow(sig: SigTokens, k: number, end: number): boolean {
  let depth = 0;
  for (let j = k + 1; j < end && sig.line[j] === sig.line[k]; j++) {
    if (isOpener(sig, j)) depth++;
    else if (isCloser(sig, j)) depth = Math.max(0, depth - 1);
    else if (depth === 0 && sig.text[j] === '=>') return true;
  }
  return false;
}

/** The declaration `cmd` is, its place left for the source model to fill (`DeclPlace`). */
export function parseDeclaration(sig: SigTokens, cmd: Command): (Declaration & DeclPlace) | undefined {
  if (cmd.kind !== 'declaration') return undefined;
  const from = cmd.ownSigStart;
  const end = cmd.sigEnd;
  const kw = skipDeclPrefix(sig, from);
  if (kw >= end) return undefined;
  const modifiers = parseModifiers(sig, from, kw);
  const head = parseKeyword(sig, kw);
  const named = parseName(sig, head.keyword, skipInstancePriority(sig, head.keyword, head.next, end), end);
  const structural = STRUCTURAL.has(head.kind);
  const body = findBody(sig, named.next, end, structural);
  const { trailing, bodyEndK } = trailingClauses(sig, body, end, structural);
  return assemble(sig, cmd, { from, modifiers, head, named, body, trailing, bodyEndK });
}

/** Doc comment, attributes `@[…]` and modifier words in the tokens [from, kw) before the keyword. */
function parseModifiers(sig: SigTokens, from: number, kw: number): Modifiers {
  // The lists made apart: a literal holding array literals is copied from its boilerplate by a runtime call.
  const attributes: Modifiers['attributes'] = [];
  const words: Modifiers['words'] = [];
  const modifiers: Modifiers = { docComment: undefined, attributes, visibility: undefined, words };
  for (let j = from; j < kw; j++) {
    if (sig.kind[j] === 'doc-comment') modifiers.docComment = { start: sig.start[j]!, end: sig.end[j]! };
    else if (sig.text[j] === '@[') {
      const s0 = j;
      j = bracketClose(sig, j, kw);
      modifiers.attributes.push({ start: sig.start[s0]!, end: sig.end[Math.min(j, kw - 1)]! });
    } else if (sig.kind[j] === 'ident' && MODIFIERS.has(sig.text[j]!)) {
      const w = sig.text[j]!;
      modifiers.words.push(w);
      if (w === 'private' || w === 'protected' || w === 'public') modifiers.visibility = w;
    }
  }
  return modifiers;
}

/** The token closing the bracket opened at `open` (or `end` when it does not close before it). */
function bracketClose(sig: SigTokens, open: number, end: number): number {
  let depth = 0;
  let j = open;
  for (; j < end; j++) {
    if (isOpener(sig, j)) depth++;
    else if (isCloser(sig, j) && --depth === 0) break;
  }
  return j;
}

interface KeywordPart {
  keyword: string;
  keywordSpan: Span;
  kind: DeclKind;
  /** The first token after the keyword. */
  next: number;
}

/** The declaration keyword at `kw`, two words for `class inductive` / `class abbrev`. */
function parseKeyword(sig: SigTokens, kw: number): KeywordPart {
  let keyword = sig.text[kw]!;
  let k = kw + 1;
  if (keyword === 'class' && (sig.text[k] === 'inductive' || sig.text[k] === 'abbrev'))
    keyword = `class ${sig.text[k++]}`;
  return {
    keyword,
    keywordSpan: { start: sig.start[kw]!, end: sig.end[k - 1]! },
    kind: KIND_OF[keyword] ?? 'unknown',
    next: k,
  };
}

/** Past an instance's optional `(priority := p)`, which comes before its optional name. */
function skipInstancePriority(sig: SigTokens, keyword: string, k: number, end: number): number {
  if (keyword !== 'instance' || sig.text[k] !== '(' || sig.text[k + 1] !== 'priority') return k;
  const close = bracketClose(sig, k, end);
  return close < end ? close + 1 : end;
}

interface NamePart {
  name: string | undefined;
  nameSpan: Span | undefined;
  /** The first token of the signature (after the name and its universe parameters). */
  next: number;
}

/** Words after the keyword that begin what follows a name, not a name. */
const NOT_NAMES = new Set(['where', ':=', 'extends']);

/** The declared name at `k` (none for `example` and anonymous instances), with universe parameters `.{u, v}`. */
function parseName(sig: SigTokens, keyword: string, k: number, end: number): NamePart {
  const named = keyword !== 'example' && k < end && sig.kind[k] === 'ident' && !NOT_NAMES.has(sig.text[k]!);
  if (!named) return { name: undefined, nameSpan: undefined, next: k };
  let next = k + 1;
  if (sig.text[next] === '.{') {
    while (next < end && sig.text[next] !== '}') next++;
    if (next < end) next++;
  }
  return { name: sig.text[k], nameSpan: { start: sig.start[k]!, end: sig.end[k]! }, next };
}

const STRUCTURAL = new Set<DeclKind>(['structure', 'class', 'inductive', 'class inductive']);

interface BodyStart {
  /** The first token of the signature. */
  sigStartK: number;
  /** The first token of the body (-1: none). */
  bodyK: number;
  form: BodyForm;
  assignSpan: Span | undefined;
}

/**
 * Where the body begins, from the signature's first token `k`: the declaration's own `:=` (after those
 * of `let`-like binders in the signature), a `where`, or the first `|` of equations at depth 0.
 */
function findBody(sig: SigTokens, sigStartK: number, end: number, structural: boolean): BodyStart {
  let depth = 0;
  let pendingLets = 0;
  let sawMatch = false;
  for (let k = sigStartK; k < end; k++) {
    const t = sig.text[k]!;
    if (isOpener(sig, k)) depth++;
    else if (isCloser(sig, k)) depth = Math.max(0, depth - 1);
    else if (depth > 0) continue;
    else if (sig.kind[k] === 'ident' && LET_LIKE.has(t)) pendingLets++;
    else if (t === 'match' || t === 'fun' || t === 'λ') sawMatch = true;
    else if (t === ':=' && pendingLets > 0) pendingLets--;
    else if (t === ':=')
      return bodyAt(sigStartK, k + 1, end, sig.text[k + 1] === 'by' ? 'tactic' : 'term', {
        start: sig.start[k]!,
        end: sig.end[k]!,
      });
    else if (t === 'where') return bodyAt(sigStartK, k, end, 'where', undefined);
    else if (t === '|' && !sawMatch && sig.kind[k] === 'symbol' && (structural || startsEquation(sig, k, end)))
      return bodyAt(sigStartK, k, end, 'equations', undefined);
  }
  return bodyAt(sigStartK, end, end, 'none', undefined);
}

/**
 * The body found at `bodyK` (none at or past `end`). A module function, not a closure in findBody:
 * the build keeps function names (esbuild `keepNames`), so a named closure costs a defineProperty per call.
 */
function bodyAt(
  sigStartK: number,
  bodyK: number,
  end: number,
  form: BodyForm,
  assignSpan: Span | undefined,
): BodyStart {
  return { sigStartK, bodyK: bodyK >= end ? -1 : bodyK, form, assignSpan };
}

const startsEquation = (sig: SigTokens, k: number, end: number) => sig.firstOnLine[k] && lineHasArrow(sig, k, end);

/** Trailing clauses (`termination_by`, `decreasing_by`, `where`, `deriving`): depth-0 keywords after the body begins. */
function trailingClauses(
  sig: SigTokens,
  body: BodyStart,
  end: number,
  structural: boolean,
): { trailing: Declaration['trailing']; bodyEndK: number } {
  const trailing: Declaration['trailing'] = [];
  let bodyEndK = end;
  if (body.bodyK < 0) return { trailing, bodyEndK };
  let depth = 0;
  // For `where` bodies (structure instances), a later `where` is not a clause of this body.
  const scanFrom = body.form === 'where' ? body.bodyK + 1 : body.bodyK;
  for (let j = scanFrom; j < end; j++) {
    if (isOpener(sig, j)) depth++;
    else if (isCloser(sig, j)) depth = Math.max(0, depth - 1);
    else if (depth > 0 || sig.kind[j] !== 'ident' || !TRAILING.has(sig.text[j]!)) continue;
    else if (structural && sig.text[j] === 'where') continue;
    else {
      if (trailing.length === 0) bodyEndK = j;
      // The previous clause runs up to this one.
      else trailing[trailing.length - 1]!.span.end = sig.end[j - 1]!;
      trailing.push({ keyword: sig.text[j]!, span: { start: sig.start[j]!, end: sig.end[end - 1]! } });
    }
  }
  return { trailing, bodyEndK };
}

interface Parts {
  from: number;
  modifiers: Modifiers;
  head: KeywordPart;
  named: NamePart;
  body: BodyStart;
  trailing: Declaration['trailing'];
  bodyEndK: number;
}

/** The declaration's spans from the token indices its parts found; its place in the file a placeholder (`DeclPlace`). */
function assemble(sig: SigTokens, command: Command, p: Parts): Declaration & DeclPlace {
  const { head, named, body, bodyEndK } = p;
  const { bodyK, sigStartK, assignSpan } = body;
  const sigEndK = assignSpan ? bodyK - 1 : bodyK >= 0 ? bodyK : bodyEndK;
  const after = named.nameSpan?.end ?? head.keywordSpan.end;
  const signatureSpan =
    sigEndK > sigStartK ? { start: sig.start[sigStartK]!, end: sig.end[sigEndK - 1]! } : { start: after, end: after };
  const headerEnd = sigEndK > p.from ? sig.end[sigEndK - 1]! : head.keywordSpan.end;
  const hasBody = bodyK >= 0 && bodyEndK > bodyK;
  return {
    kind: head.kind,
    keyword: head.keyword,
    keywordSpan: head.keywordSpan,
    name: named.name,
    nameSpan: named.nameSpan,
    modifiers: p.modifiers,
    headerSpan: { start: sig.start[p.from]!, end: headerEnd },
    signatureSpan,
    assignSpan,
    bodySpan: hasBody ? { start: sig.start[bodyK]!, end: sig.end[bodyEndK - 1]! } : undefined,
    bodyForm: hasBody ? body.form : 'none',
    bodySig: hasBody ? [bodyK, bodyEndK] : undefined,
    trailing: p.trailing,
    command,
    commandIndex: -1,
    namespace: '',
    opens: NONE,
    localOpens: NONE,
    fullName: undefined,
    mutualGroup: undefined,
  };
}
