/**
 * Whether a module is loaded in an environment, asked of Lean: what serving a header that only adds
 * imports the environment's own header already loads (`import Mathlib` then `import Qq`) on the
 * processes of that header rests on (src/backend/loaded-imports.ts; the same environment for proof
 * checking, read in Lean's source: docs/rl-workload.md, "The one lever past that ceiling"). Each
 * added module is asked of a warm process itself, never taken from a list; the daemon trusts the
 * answers in an environment only after two known ones, and `lean:doctor` checks it on every toolchain.
 *
 * The question: `Lean.Environment.getModuleIdx?` [lean4 src/Lean/Environment.lean,
 * `Environment.getModuleIdx?`: the module's index among the loaded modules, in every version
 * read, before and after the module system] under `#eval` of a `CoreM Bool`. Lean logs an
 * `#eval` result as an info at the `#eval` token [lean4 v4.28.0:
 * src/Lean/Elab/BuiltinEvalCommand.lean, `elabEvalCoreUnsafe`, `withRef tk`], its text the value's
 * `repr`: `true` or `false`. No recording holds an `#eval` answer (the nearest recorded info,
 * `#check` at line 1, is ../shared/recorded/repl/v4.28.0/def_eval.expected.out): any other
 * answer reads as unknown, which a caller must take as "not loaded".
 */
import { isIdentifier, splitName } from '../../syntax/source.ts';

/**
 * Whether `name` is a module name as an import writes it, so that it can stand in a name literal as it is: dotted
 * components (the source model's `splitName`), each an identifier or `«quoted»` on one line.
 */
function isModuleName(name: string): boolean {
  const parts = splitName(name);
  return (
    parts.length > 0 &&
    parts.every((p) =>
      p.length >= 2 && p.startsWith('«') && p.endsWith('»') ? !/[»\n]/.test(p.slice(1, -1)) : isIdentifier(p),
    )
  );
}

/** The command asking whether `module` is loaded in the environment it is sent to; undefined for a name it cannot spell. */
export function moduleProbe(module: string): string | undefined {
  if (!isModuleName(module)) return undefined;
  return `#eval show Lean.CoreM Bool from do return ((← Lean.getEnv).getModuleIdx? \`${module}).isSome`;
}

/** The probe's answer: exactly one info message, `true` or `false`; anything else is unknown (undefined). */
export function readModuleProbe(messages: readonly { severity: string; data: string }[]): boolean | undefined {
  if (messages.length !== 1 || messages[0]!.severity !== 'info') return undefined;
  const data = messages[0]!.data.trim();
  return data === 'true' ? true : data === 'false' ? false : undefined;
}

/**
 * The modules a request's header adds to the environment's own (both canonical: one statement a line,
 * src/backend/session/keys.ts), when it is exactly the own header's statements in order followed by
 * plain `import X` lines; else undefined. Only then is the environment the same for proof checking once
 * every X is loaded (docs/rl-workload.md): a module statement or `prelude` changes what is loaded, a
 * modifier (`public`, `meta`, `all`) is refused without `module` [lean4 src/Lean/Elab/Import.lean,
 * `processHeaderCore`], and a module placed before the own header's imports changes the modules' order.
 */
export function addedImports(own: string, asked: string): string[] | undefined {
  const ownLines = own === '' ? [] : own.split('\n');
  const askedLines = asked.split('\n');
  if (askedLines.length <= ownLines.length || askedLines.some((l) => l === 'module' || l === 'prelude'))
    return undefined;
  for (let i = 0; i < ownLines.length; i++) if (askedLines[i] !== ownLines[i]) return undefined;
  const added: string[] = [];
  for (let i = ownLines.length; i < askedLines.length; i++) {
    const line = askedLines[i]!;
    const name = line.startsWith('import ') ? line.slice('import '.length) : '';
    if (moduleProbe(name) === undefined) return undefined;
    added.push(name);
  }
  return added;
}
