/** The configured environments, their public listing, and their (re-probed) availability. */
import type { EnvironmentInfo } from '../contract/common.ts';
import type { EnvironmentConfig } from './config.ts';
import { probeEnvironment, type Availability } from './probe.ts';

export type Probe = (cfg: EnvironmentConfig) => Availability;

export class EnvironmentRegistry {
  readonly #envs = new Map<string, EnvironmentConfig>();
  readonly #checked = new Map<string, { at: number; availability: Availability }>();
  readonly #ttlMs: number;
  readonly #probe: Probe;

  /** Availability comes from `probe`, or from probing the host described by `hostEnv` (the process environment: PATH, ELAN_HOME…). */
  constructor(
    configs: EnvironmentConfig[],
    opts: { ttlMs: number; defaultSandbox?: 'bwrap' | 'none' } & ({ probe: Probe } | { hostEnv: NodeJS.ProcessEnv }),
  ) {
    for (const c of configs) {
      if (this.#envs.has(c.name)) throw new Error(`environment ${c.name} is configured twice`);
      this.#envs.set(c.name, c);
    }
    this.#ttlMs = opts.ttlMs;
    const sandbox = opts.defaultSandbox ?? 'bwrap';
    this.#probe =
      'probe' in opts ? opts.probe : (c) => probeEnvironment(c, opts.hostEnv, undefined, c.sandbox ?? sandbox);
  }

  get(name: string): EnvironmentConfig | undefined {
    return this.#envs.get(name);
  }

  names(): string[] {
    return [...this.#envs.keys()];
  }

  /**
   * Cached for ttlMs so a missing toolchain costs nothing per request, yet an operator
   * who runs `lean:setup` while the daemon is up sees it become available.
   */
  availability(name: string, now = Date.now()): Availability {
    const cfg = this.#envs.get(name);
    if (!cfg) return { available: false, reason: `unknown environment ${name}` };
    const hit = this.#checked.get(name);
    if (hit && now - hit.at < this.#ttlMs) return hit.availability;
    const availability = this.#probe(cfg);
    this.#checked.set(name, { at: now, availability });
    return availability;
  }

  /**
   * Lean itself found the environment unusable (its header did not import): unavailable with
   * that reason until the next re-probe (ttlMs), so a fixed setup is picked up without a restart.
   */
  reportUnavailable(name: string, reason: string, now = Date.now()): void {
    if (this.#envs.has(name)) this.#checked.set(name, { at: now, availability: { available: false, reason } });
  }

  /** The spec's Environment objects plus `available` / `unavailable_reason`. */
  list(): EnvironmentInfo[] {
    return [...this.#envs.values()].map((c) => {
      const a = this.availability(c.name);
      return {
        name: c.name,
        lean_toolchain: c.lean_toolchain,
        repo_url: c.repo_url,
        revision: c.revision,
        subdir: c.subdir,
        imports: c.imports,
        description: c.description,
        available: a.available,
        ...(a.available ? {} : { unavailable_reason: a.reason }),
      };
    });
  }
}
