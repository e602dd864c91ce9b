/**
 * A header's imports can fail without the REPL saying so. Lean's `processHeader`
 * [lean4 v4.28.0: src/Lean/Elab/Import.lean, `processHeader`; v4.24.0 … v4.33.0] catches the exception of
 * `importModules` and returns `mkEmptyEnvironment` (no `Init`) with the error added to the
 * message log it is given; the REPL passes that log to `Command.mkState` and runs the rest
 * through `IO.processCommands` [repl v4.28.0: REPL/Frontend.lean, `processInput`, identical at
 * every tag v4.24.0 … v4.33.0-rc2], which is `IO.processCommandsIncrementally` [lean4 v4.28.0:
 * src/Lean/Elab/Frontend.lean, `IO.processCommands`] and collects messages from the command snapshots only: the
 * header's error is dropped and the answer is a bare `{"env": 0}`.
 *
 * So the header is sent with one probe command after it: `#print List.cons`. `importModules`
 * imports all modules or throws, so after any failed import the environment is empty and `List.cons`
 * is unknown: `#print` resolves its name with `realizeGlobalConstWithInfos`, which throws for an unknown
 * name, logged as an error [lean4 v4.28.0: src/Lean/Elab/Print.lean, `elabPrint`, `printId`]; in a loaded
 * environment it answers one info and adds nothing to the environment, so the env id the REPL returns is
 * the header's own and no extra env id is spent. Only errors are read, never the info's text.
 *
 * The probe is a command whose real answer is recorded: the REPL's own `options.in` test sends
 * `{"cmd": "#print List.cons"}` on a fresh environment at every tag, v4.21.0 … v4.33.0-rc2, and records the
 * info `constructor List.cons.{u} : {α : Type u} → α → List α → List α` at line 1, columns 0–6
 * (../shared/recorded/repl/<tag>/options.expected.out; also repl-forks/augustepoiroux/v4.23.0). So the
 * recorded REPL (test/recorded) answers the probe of an empty header from a recording, never an invented one.
 */
import type { ReplMessage } from '../protocol/schema.ts';

export const HEADER_PROBE = '#print List.cons';

export interface ProbedHeader {
  /** The text sent as the header command. */
  cmd: string;
  /** 1-based line of the probe inside `cmd`: messages from here on are the probe's. */
  probeLine: number;
}

/**
 * A bare `prelude` header (no imports) asks for an empty environment: no `Init`, so no `List.cons`
 * [lean4 src/Lean/Elab/Import.lean, `headerToImports`: `if preludeTk.isNone then #[{ module := \`Init }]`].
 * Nothing is imported, so nothing can fail to import: no probe is sent.
 */
const BARE_PRELUDE = /^\s*(?:module\s+)?prelude\s*$/;

export function probedHeader(header: string): ProbedHeader {
  const body = header.trimEnd();
  if (BARE_PRELUDE.test(body)) return { cmd: body, probeLine: Infinity };
  if (body === '') return { cmd: HEADER_PROBE, probeLine: 1 };
  return { cmd: `${body}\n${HEADER_PROBE}`, probeLine: body.split('\n').length + 1 };
}

export interface HeaderVerdict {
  /** The header's own messages (the probe's removed). */
  messages: ReplMessage[];
  /** Why the imports did not load, or undefined when they did. */
  importFailure: string | undefined;
}

export function readHeaderProbe(header: string, probe: ProbedHeader, messages: readonly ReplMessage[]): HeaderVerdict {
  const own = messages.filter((m) => m.pos.line < probe.probeLine);
  const probeErrors = messages.filter((m) => m.pos.line >= probe.probeLine && m.severity === 'error');
  if (probeErrors.length === 0) return { messages: own, importFailure: undefined };
  const imports = header.trim().replace(/\s+/g, ' ') || '(no imports: Init)';
  return {
    messages: own,
    importFailure:
      `the imports did not load (${imports}): after them Lean does not know \`List.cons\` (${probeErrors
        .map((m) => m.data)
        .join('; ')
        .slice(0, 300)}). ` +
      "Lean drops the import error itself; usual causes are a misspelt module, a search path that does not reach the Lake project's build, " +
      'or missing or stale .olean files (built with another toolchain) — run `npm run lean:setup` or `npm run lean:doctor`',
  };
}
