/**
 * The structure of one declaration command: modifiers, kind, name, signature, body and
 * trailing clauses [lean4 v4.28.0: src/Lean/Parser/Command.lean, `declModifiers`, `declSig`, `declBody`]. Spans are JS offsets into the file.
 */
import type { Command, Span } from './commands.ts';
import { skipDeclPrefix } from './commands.ts';
import { MODIFIERS } from './keywords.ts';
import { isCloser, isOpener, type SigTokens } from './significant.ts';

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
 * hid the declaration's `:=` (issue 23: theorem2sorry left such a theorem unchanged).
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

export function parseDeclaration(sig: SigTokens, cmd: Command): Declaration | undefined {
  if (cmd.kind !== 'declaration') return undefined;
  const from = cmd.ownSigStart;
  const end = cmd.sigEnd;
  const kw = skipDeclPrefix(sig, from);
  if (kw >= end) return undefined;

  const modifiers: Modifiers = { docComment: undefined, attributes: [], visibility: undefined, words: [] };
  for (let j = from; j < kw; j++) {
    if (sig.kind[j] === 'doc-comment') modifiers.docComment = { start: sig.start[j]!, end: sig.end[j]! };
    else if (sig.text[j] === '@[') {
      let depth = 0;
      const s0 = j;
      for (; j < kw; j++) {
        if (isOpener(sig, j)) depth++;
        else if (isCloser(sig, j) && --depth === 0) break;
      }
      modifiers.attributes.push({ start: sig.start[s0]!, end: sig.end[Math.min(j, kw - 1)]! });
    } else if (sig.kind[j] === 'ident' && MODIFIERS.has(sig.text[j]!)) {
      const w = sig.text[j]!;
      modifiers.words.push(w);
      if (w === 'private' || w === 'protected' || w === 'public') modifiers.visibility = w;
    }
  }

  let keyword = sig.text[kw]!;
  let k = kw + 1;
  if (keyword === 'class' && (sig.text[k] === 'inductive' || sig.text[k] === 'abbrev'))
    keyword = `class ${sig.text[k++]}`;
  const keywordSpan = { start: sig.start[kw]!, end: sig.end[k - 1]! };
  const kind = KIND_OF[keyword] ?? 'unknown';

  // instance: optional `(priority := p)` before the optional name.
  if (keyword === 'instance' && sig.text[k] === '(' && sig.text[k + 1] === 'priority') {
    let depth = 0;
    for (; k < end; k++) {
      if (isOpener(sig, k)) depth++;
      else if (isCloser(sig, k) && --depth === 0) {
        k++;
        break;
      }
    }
  }
  let name: string | undefined;
  let nameSpan: Span | undefined;
  if (
    keyword !== 'example' &&
    k < end &&
    sig.kind[k] === 'ident' &&
    !['where', ':=', 'extends'].includes(sig.text[k]!)
  ) {
    name = sig.text[k];
    nameSpan = { start: sig.start[k]!, end: sig.end[k]! };
    k++;
    // Universe parameters `.{u, v}` directly after the name.
    if (sig.text[k] === '.{') {
      while (k < end && sig.text[k] !== '}') k++;
      if (k < end) k++;
    }
  }
  const sigStartK = k;

  // Find where the body begins.
  const structural = kind === 'structure' || kind === 'class' || kind === 'inductive' || kind === 'class inductive';
  let depth = 0;
  let pendingLets = 0;
  let sawMatch = false;
  let bodyK = -1;
  let form: BodyForm = 'none';
  let assignSpan: Span | undefined;
  for (; k < end; k++) {
    const t = sig.text[k]!;
    if (isOpener(sig, k)) {
      depth++;
      continue;
    }
    if (isCloser(sig, k)) {
      depth = Math.max(0, depth - 1);
      continue;
    }
    if (depth > 0) continue;
    if (sig.kind[k] === 'ident' && LET_LIKE.has(t)) {
      pendingLets++;
      continue;
    }
    if (t === 'match' || t === 'fun' || t === 'λ') {
      sawMatch = true;
      continue;
    }
    if (t === ':=') {
      if (pendingLets > 0) {
        pendingLets--;
        continue;
      }
      assignSpan = { start: sig.start[k]!, end: sig.end[k]! };
      bodyK = k + 1;
      form = sig.text[k + 1] === 'by' ? 'tactic' : 'term';
      break;
    }
    if (t === 'where') {
      bodyK = k;
      form = 'where';
      break;
    }
    if (
      t === '|' &&
      !sawMatch &&
      sig.kind[k] === 'symbol' &&
      (structural || (sig.firstOnLine[k] && lineHasArrow(sig, k, end)))
    ) {
      bodyK = k;
      form = 'equations';
      break;
    }
  }
  if (bodyK >= 0 && bodyK >= end) bodyK = -1;

  // Trailing clauses: depth-0 keywords after the body begins.
  const trailing: Declaration['trailing'] = [];
  let bodyEndK = end;
  if (bodyK >= 0) {
    depth = 0;
    // For `where` bodies (structure instances), a later `where` is not a clause of this body.
    const scanFrom = form === 'where' ? bodyK + 1 : bodyK;
    for (let j = scanFrom; j < end; j++) {
      if (isOpener(sig, j)) {
        depth++;
        continue;
      }
      if (isCloser(sig, j)) {
        depth = Math.max(0, depth - 1);
        continue;
      }
      if (depth > 0 || sig.kind[j] !== 'ident' || !TRAILING.has(sig.text[j]!)) continue;
      if (structural && sig.text[j] === 'where') continue;
      if (trailing.length === 0) bodyEndK = j;
      // The previous clause runs up to this one.
      if (trailing.length > 0) trailing[trailing.length - 1]!.span.end = sig.end[j - 1]!;
      trailing.push({ keyword: sig.text[j]!, span: { start: sig.start[j]!, end: sig.end[end - 1]! } });
    }
  }

  const cmdStart = sig.start[from]!;
  const bodyStartOffset = bodyK >= 0 ? sig.start[bodyK]! : undefined;
  const sigEndK = assignSpan ? bodyK - 1 : bodyK >= 0 ? bodyK : bodyEndK;
  const signatureSpan =
    sigEndK > sigStartK
      ? { start: sig.start[sigStartK]!, end: sig.end[sigEndK - 1]! }
      : { start: nameSpan?.end ?? keywordSpan.end, end: nameSpan?.end ?? keywordSpan.end };
  const headerEnd = sigEndK > from ? sig.end[sigEndK - 1]! : keywordSpan.end;
  return {
    kind,
    keyword,
    keywordSpan,
    name,
    nameSpan,
    modifiers,
    headerSpan: { start: cmdStart, end: headerEnd },
    signatureSpan,
    assignSpan,
    bodySpan:
      bodyStartOffset !== undefined && bodyEndK > bodyK
        ? { start: bodyStartOffset, end: sig.end[bodyEndK - 1]! }
        : undefined,
    bodyForm: bodyK >= 0 && bodyEndK > bodyK ? form : 'none',
    bodySig: bodyK >= 0 && bodyEndK > bodyK ? [bodyK, bodyEndK] : undefined,
    trailing,
  };
}
