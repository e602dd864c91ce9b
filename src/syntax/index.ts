/** The Lean source model: a pure library with no I/O. */
export { lex, scan, isTrivia, type Token, type TokenKind } from './lexer.ts';
export { LineIndex, utf8Length, type LeanPosition } from './positions.ts';
export { parseSource, printSource, splitName, type SourceDecl, type SourceFile } from './source.ts';
export type { Command, CommandKind, Header, Span } from './commands.ts';
export type { Declaration, DeclKind, BodyForm } from './declarations.ts';
export {
  parseTacticBlock,
  walkTactics,
  findHaves,
  findSorries,
  type TacticBlock,
  type TacticItem,
  type HaveForm,
} from './tactics.ts';
export { identOccurrences, resolveName, lookupDeclarations, namespacePrefixes, type IdentOccurrence } from './names.ts';
export { applyEdits, replace, insert, remove, EditConflictError, type TextEdit } from './edits.ts';
