/**
 * Where the comparator (leanprover/comparator) and its helpers are built, at which pinned
 * commits per Lean version, and the limits its runs get. `lean:setup` builds from these pins;
 * the comparator tool looks for the binaries where setup puts them.
 */
import path from 'node:path';
import { z } from 'zod';

const sha = z.string().regex(/^[0-9a-f]{40}$/, 'must be a full 40-hex git commit');

/** One Lean version's pins: comparator's commit and the lean4export commit its lake-manifest.json requires. */
export const comparatorPin = z.strictObject({ comparator: sha, lean4export: sha });

export const comparatorConfig = z.strictObject({
  /** Build folder (relative to the project root) holding comparator-<tag>/ and landrun/. */
  buildDir: z.string().default('lean/.build'),
  /** Memory cap of a run (RLIMIT_AS of every process in it, MiB) when the request gives no memory_limit_mb. */
  defaultMemoryMb: z.number().int().positive().default(8192),
  /** Bytes of stdout+stderr a response carries (head and tail kept, the middle elided). */
  outputLimitBytes: z
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /**
   * comparator runs every build and export under landrun (Main.lean, `buildLandrunArgs`). "landrun": the
   * binary lean:setup builds (required); "shim": the checkout's scripts/fake-landrun.sh, which does not
   * sandbox; the bubblewrap jail is then the only isolation (for hosts where landrun cannot be built).
   */
  landrun: z.enum(['landrun', 'shim']).default('landrun'),
  landrunGit: z.string().default('https://github.com/zouuup/landrun'),
  landrunCommit: sha.default('811cfff51ceaf3d9843708aa6d22e9b84ccac8b4'),
  comparatorGit: z.string().default('https://github.com/leanprover/comparator'),
  /** Keyed by toolchain tag (v4.28.0): comparator's release tags carry the same names. */
  pins: z.record(z.string().regex(/^v\d+\.\d+\.\d+(-rc\d+)?$/), comparatorPin).default({}),
});

export type ComparatorConfig = z.output<typeof comparatorConfig>;

/**
 * The build locations for one toolchain tag: `lake build lean4export comparator` in the checkout [comparator v4.30.0 …:
 * README.md, "Development"; the section is absent at v4.28.0 and v4.29.0, whose lakefile.toml has the same
 * `comparator` executable and `lean4export` requirement].
 */
export function comparatorPaths(root: string, cfg: Pick<ComparatorConfig, 'buildDir'>, tag: string) {
  const build = path.resolve(root, cfg.buildDir);
  const checkout = path.join(build, `comparator-${tag}`);
  return {
    checkout,
    // `lake build lean4export comparator` puts the binaries here (Lake's layout: .lake/build/bin of each package).
    comparator: path.join(checkout, '.lake', 'build', 'bin', 'comparator'),
    lean4export: path.join(checkout, '.lake', 'packages', 'lean4export', '.lake', 'build', 'bin', 'lean4export'),
    shim: path.join(checkout, 'scripts', 'fake-landrun.sh'),
    landrunDir: path.join(build, 'landrun'),
    landrun: path.join(build, 'landrun', 'landrun'),
  };
}

/**
 * Whether `tag` is comparator v4.30.0 or later (v4.30.0 itself, not its -rc1/-rc2): where the tool
 * variables and the definition holes below came in, both at the same release [comparator: Main.lean, read at
 * every tag v4.25.0-rc2 … v4.34.0-rc2].
 */
function fromV4_30_0(tag: string): boolean {
  const m = /^v(\d+)\.(\d+)\.(\d+)(?:-rc(\d+))?$/.exec(tag);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 4) return major > 4;
  if (minor !== 30) return minor > 30;
  return patch > 0 || m[4] === undefined;
}

/**
 * Whether comparator at `tag` reads COMPARATOR_LANDRUN / COMPARATOR_LEAN4EXPORT and ships
 * scripts/fake-landrun.sh: from v4.30.0 (and every v4.31.0-rc1 … tag), not at v4.30.0-rc1/-rc2 nor before
 * [comparator: Main.lean, `M.run` and scripts/]. Before, it runs `landrun` and `lean4export` from PATH only.
 */
export const readsToolVariables = fromV4_30_0;

/**
 * Whether comparator at `tag` has definition holes: a `definition_names` field in config.json whose sorried
 * definitions the solution may fill [comparator v4.30.0: Main.lean, `Config.definition_names`, passed to
 * `compareAt` and `checkAxioms`; README.md, "Definition Holes"]. Before (v4.28.0, v4.29.0, v4.30.0-rc1/-rc2)
 * `Config` has no such field, its derived `FromJson` ignores the key, and `compareAt` compares every constant
 * a theorem's statement uses, values included [comparator v4.28.0: Comparator/Compare.lean, `loop`:
 * `Const does not match between challenge and target`]: a solution that fills a sorried definition the
 * statement uses is always rejected, so such a pin cannot judge the challenge.
 */
export const supportsDefinitionHoles = fromV4_30_0;
