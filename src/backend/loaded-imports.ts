/**
 * A request whose header is its environment's own followed only by plain imports of modules that header
 * already loaded (`import Mathlib` then `import Qq`) is served on the warm processes of the own header:
 * no process of its own, no second import. Lean builds the same environment for proof checking from both
 * headers: an import of a module already imported changes nothing, the modules keep their order when the
 * added ones come last, and a header without `module` loads every module of its closure whole; only
 * `env.header.imports` (the direct imports) differs, and no proof check reads it (docs/rl-workload.md,
 * "The one lever past that ceiling", with the lean4 sources read).
 *
 * Whether a module is loaded is asked of Lean on a process of the own header (src/backend/session/module-probe.ts),
 * never taken from a list, and remembered per environment and header (an environment is one Lake project for
 * the daemon's life, as the result cache also assumes). The first question of an environment and header also
 * asks two whose answers are known (`Init.Prelude` is loaded, a made-up module is not): unless Lean answers
 * them so, nothing is ever served this way there. Any answer but `true`, a failed question, or a name the probe
 * cannot spell leaves the request on its own header's processes, as before.
 */
import { RecentMap } from '../util/recent-map.ts';
import { canonicalHeaderOf } from './session/keys.ts';
import { addedImports, moduleProbe, readModuleProbe } from './session/module-probe.ts';

/** Asks Lean, on a process of the environment's own header, each text as one command; answers each one's messages. */
export type AskOwnHeader = (texts: string[], signal: AbortSignal) => Promise<{ severity: string; data: string }[][]>;

/** The questions whose answers are known, asked first of every environment and header: loaded, not loaded. */
const KNOWN = [moduleProbe('Init.Prelude')!, moduleProbe('LeanToolNoSuchModule')!];
/** Answers remembered (environment, header, module), the least recently used going first. */
const ENTRIES = 4096;
/**
 * Added imports past this many are not asked about (the request keeps its own header): a question is a command per
 * module, and one request must not make Lean answer thousands.
 */
export const MAX_ADDED = 16;
/** The key of an environment and header's own answers to KNOWN. */
const TRUSTED = '\u0000trusted';

export class LoadedImports {
  readonly #known = new RecentMap<string, boolean>(ENTRIES);
  /** One question at a time per environment and header: a second request waits for it, then reads its answers. */
  readonly #asking = new Map<string, Promise<void>>();

  /** The header to serve `header` with: `own` when it only adds modules `own` loaded, else `header` itself. */
  async served(envName: string, own: string, header: string, ask: AskOwnHeader, signal: AbortSignal): Promise<string> {
    const ownText = canonicalHeaderOf(own).text;
    const added = addedImports(ownText, canonicalHeaderOf(header).text);
    if (!added || added.length > MAX_ADDED) return header;
    const base = `${envName}\u0000${ownText}\u0000`;
    // Another request's question may be in flight (for other modules): wait for it, then ask once more at most.
    for (let round = 0; ; round++) {
      const verdict = this.#verdict(base, added);
      if (verdict !== undefined) return verdict ? own : header;
      if (round === 2) return header;
      const asking = this.#asking.get(base) ?? this.#ask(base, added, ask, signal);
      try {
        await asking;
      } catch (e) {
        if (signal.aborted) throw e;
        return header;
      }
    }
  }

  /** True when every module is known loaded (and the probe trusted), false when one is known not to be, else undefined. */
  #verdict(base: string, added: readonly string[]): boolean | undefined {
    const trusted = this.#known.get(base + TRUSTED);
    if (trusted === false) return false;
    let all: boolean | undefined = trusted;
    for (const m of added) {
      const v = this.#known.get(base + m);
      if (v === false) return false;
      if (v === undefined) all = undefined;
    }
    return all;
  }

  #ask(base: string, added: readonly string[], ask: AskOwnHeader, signal: AbortSignal): Promise<void> {
    const unknown = added.filter((m) => !this.#known.has(base + m));
    const trustedKnown = this.#known.has(base + TRUSTED);
    const texts = [...(trustedKnown ? [] : KNOWN), ...unknown.map((m) => moduleProbe(m)!)];
    const p = ask(texts, signal)
      .then((answers) => {
        const from = trustedKnown ? 0 : KNOWN.length;
        if (!trustedKnown) {
          const trusted = readModuleProbe(answers[0] ?? []) === true && readModuleProbe(answers[1] ?? []) === false;
          this.#known.set(base + TRUSTED, trusted);
        }
        unknown.forEach((m, i) => this.#known.set(base + m, readModuleProbe(answers[from + i] ?? []) === true));
      })
      .finally(() => this.#asking.delete(base));
    this.#asking.set(base, p);
    return p;
  }
}
