/**
 * A declaration's statement as text other commands can reuse: its type as a Pi type, and the
 * scope (namespace, `open`s, universes, section variables) it is stated in. Pure source work,
 * shared by verify_proof, verify_negation, disprove and merge.
 */
import { firstTokenFrom, isCloser, isOpener } from './significant.ts';
import { openCommandTexts, type SourceDecl, type SourceFile } from './source.ts';

/** A declaration's type as a Pi type: `(x : A) {y : B} : C` → `∀ (x : A) {y : B}, C`. */
export function piType(file: SourceFile, d: SourceDecl): string | undefined {
  const { sig } = file;
  if (d.signatureSpan.start === d.signatureSpan.end) return undefined;
  let k = firstTokenFrom(sig, d.signatureSpan.start);
  const binders: string[] = [];
  while (k < sig.length && sig.start[k]! < d.signatureSpan.end) {
    const t = sig.text[k]!;
    if (isOpener(sig, k) && t !== '⟨') {
      const from = k;
      let depth = 0;
      for (; k < sig.length; k++) {
        if (isOpener(sig, k)) depth++;
        else if (isCloser(sig, k) && --depth === 0) break;
      }
      binders.push(file.text.slice(sig.start[from]!, sig.end[k]!));
      k++;
    } else if (t === ':') {
      const type = file.text.slice(sig.end[k]!, d.signatureSpan.end).trim();
      return binders.length ? `∀ ${binders.join(' ')}, ${type}` : type;
    } else if (sig.kind[k] === 'ident') {
      binders.push(t);
      k++;
    } else {
      return undefined;
    }
  }
  return undefined;
}

/**
 * `lines` in the declaration's namespace, `open`s and universes, in a section of their own. The `open`s are
 * replayed as written (`open A (x)`, `open A hiding x`, `open scoped A` …; see `openCommandTexts`): as
 * plain `open A` they made names visible that the declaration could not see, or, for `open scoped`,
 * all of A's names.
 */
export function inDeclScope(file: SourceFile, d: SourceDecl, lines: string[], scope: string[] = []): string {
  const header = file.text.slice(d.headerSpan.start, d.headerSpan.end);
  const universes = /\.\{([^}]*)\}/.exec(header.slice(header.indexOf(d.name ?? '\u0000')))?.[1];
  const opens = openCommandTexts(file.scopes[d.commandIndex]);
  const open = d.namespace ? `namespace ${d.namespace}` : 'section';
  const close = d.namespace ? `end ${d.namespace}` : 'end';
  return [
    open,
    ...(universes ? [`universe ${universes.replace(/,/g, ' ')}`] : []),
    ...opens,
    ...scope,
    ...lines,
    close,
  ].join('\n');
}

/**
 * The `end` commands that leave the scopes `file` leaves open, innermost first, one per scope (each its own REPL
 * command, so the backend's scope tracking sees each `end`: backend/heartbeats/max-heartbeats.ts, `scopeLimits`).
 * A command appended to content that ends inside `namespace Foo` runs in Foo, so a probe that opens its
 * declaration's namespace itself made its lemma `Foo.Foo.<probe>` and resolved the statement's names from
 * the wrong namespace (a theorem of A probed after content left inside B: B.A). Each `end` repeats one name
 * component, as Lean keeps one scope header per component and an `end` without a name closes an anonymous
 * section only [lean4 src/Lean/Elab/BuiltinCommand.lean, `addScopes`, `elabEnd`, `checkEndHeader`]. The REPL
 * keeps the scopes from one command to the next (a command continues from the previous one's whole
 * `Command.State` [repl: REPL/Frontend.lean, `processInput`]), so these commands before the probes put them
 * all at the top level.
 */
export function leaveOpenScopes(file: SourceFile): string[] {
  return file.openScopes.map((s) => (s.name ? `end ${s.name}` : 'end')).reverse();
}

/**
 * The `universe` and `variable` commands in effect at a declaration: those of the scopes
 * (sections, namespaces) still open where it stands. A statement's type depends on them
 * (a section variable the statement mentions becomes one of its binders). Tracked by the
 * parser with the other scope facts, so asking costs nothing per declaration.
 */
export function scopeCommands(file: SourceFile, d: SourceDecl): string[] {
  return file.scopes[d.commandIndex]?.inForce ?? [];
}
