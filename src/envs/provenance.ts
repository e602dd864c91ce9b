/**
 * The provenance every tool response's `info` carries, as AXLE does since v1.3.0 ("three new
 * fields to the `info` field of every response to identify the executor version your request was
 * handled on: `_executor_commit_sha`, `_executor_docker_image_id`, and `_executor_artifact_sha256`":
 * its CHANGELOG.md at 1023f1f). The daemon fills AXLE's three names with what it knows and adds
 * the environment's own facts under the same prefix, spelled as GET /v1/environments spells them:
 *
 * - `_executor_commit_sha`: the daemon's git commit (LEAN_TOOL_COMMIT, which the Docker build
 *   sets from its `COMMIT` argument, else `git rev-parse HEAD` in the checkout, once), or null;
 * - `_executor_docker_image_id`: LEAN_TOOL_DOCKER_IMAGE_ID when the deployment sets it (an image
 *   cannot know its own id), else null;
 * - `_executor_artifact_sha256`: null: AXLE hashes a build artifact of its own; the daemon has none;
 * - `_executor_lean_toolchain`, `_executor_revision`: the environment's `lean_toolchain` and
 *   `revision` (its Mathlib or project revision) from the configuration.
 *
 * Fixed per environment for the process's life: made once per environment, as the object the
 * transports merge into `info` and as its JSON members, which the result cache stores at the end
 * of a result's bytes (src/cache/result-cache.ts), so a hit answers the same fields as the miss.
 */
import { execFileSync } from 'node:child_process';
import { PROJECT_ROOT } from '../project-root.ts';
import type { EnvironmentConfig } from './config.ts';

export interface ExecutorInfo {
  _executor_commit_sha: string | null;
  _executor_docker_image_id: string | null;
  _executor_artifact_sha256: string | null;
  _executor_lean_toolchain: string;
  _executor_revision: string | null;
}

/** An environment's provenance: the object, and its members as JSON text (no braces). */
export interface Provenance {
  readonly info: Readonly<ExecutorInfo>;
  readonly members: string;
}

const HEX_COMMIT = /^[0-9a-f]{40}$/;

/** The checkout's HEAD per project root: one `git` run per root for the process's life. */
const heads = new Map<string, string | null>();

/** The daemon's commit: LEAN_TOOL_COMMIT when set (a full 40-hex commit), else the checkout's HEAD, else null. */
export function daemonCommit(env: NodeJS.ProcessEnv, root = PROJECT_ROOT): string | null {
  const given = env.LEAN_TOOL_COMMIT?.trim().toLowerCase();
  if (given) return HEX_COMMIT.test(given) ? given : null;
  let head = heads.get(root);
  if (head === undefined) heads.set(root, (head = checkoutHead(root)));
  return head;
}

function checkoutHead(root: string): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    const sha = out.toString().trim();
    return HEX_COMMIT.test(sha) ? sha : null;
  } catch {
    // No git, or not a checkout (a bundle copied elsewhere): unknown, said as null.
    return null;
  }
}

export function provenanceOf(
  env: Pick<EnvironmentConfig, 'lean_toolchain' | 'revision'>,
  daemon: DaemonFacts,
): Provenance {
  const info: ExecutorInfo = {
    _executor_commit_sha: daemon.commit,
    _executor_docker_image_id: daemon.imageId,
    _executor_artifact_sha256: null,
    _executor_lean_toolchain: env.lean_toolchain,
    _executor_revision: env.revision,
  };
  return { info: Object.freeze(info), members: JSON.stringify(info).slice(1, -1) };
}

/** What the process knows of itself. */
export interface DaemonFacts {
  commit: string | null;
  imageId: string | null;
}

/**
 * The process's own facts, from the host environment the composition root passes (no module but
 * it and the client reads process.env); the checkout's HEAD is read once (daemonCommit).
 */
export function daemonFacts(env: NodeJS.ProcessEnv): DaemonFacts {
  return { commit: daemonCommit(env), imageId: env.LEAN_TOOL_DOCKER_IMAGE_ID?.trim() || null };
}

/** Provenance per environment name, made once each. */
export class ProvenanceTable {
  readonly #byName = new Map<string, Provenance>();
  /** `daemon`: the process's facts (default: read from `hostEnv`, the composition root's environment). */
  constructor(
    hostEnv: NodeJS.ProcessEnv = {},
    readonly daemon: () => DaemonFacts = () => daemonFacts(hostEnv),
  ) {}

  of(env: Pick<EnvironmentConfig, 'name' | 'lean_toolchain' | 'revision'>): Provenance {
    let p = this.#byName.get(env.name);
    if (!p) this.#byName.set(env.name, (p = provenanceOf(env, this.daemon())));
    return p;
  }
}
