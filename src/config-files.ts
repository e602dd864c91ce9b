/**
 * The configuration's files, read and merged before validation: `config/default.json`, then an
 * overlay (`LEAN_TOOL_CONFIG`, which must exist when set; else `config/local.json` when present).
 * Its own module, with nothing but Node's built-ins: the built daemon's loader (dist/main.js,
 * scripts/daemon-loader.mjs) reads `fastPaths.codeCache` through it before the daemon's bundle,
 * which validates everything (src/config.ts), is compiled.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A configuration mistake, said in one line that names the setting (no stack: main prints the message). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `${what}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${what}: ${file} is not valid JSON (${(e as Error).message})`);
  }
}

/** Shallow-by-section merge: overlay sections replace keys inside base sections; arrays replace. */
function overlay(base: Record<string, unknown>, top: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(top)) {
    const b = out[k];
    out[k] =
      b && v && typeof b === 'object' && typeof v === 'object' && !Array.isArray(b) && !Array.isArray(v)
        ? { ...b, ...v }
        : v;
  }
  return out;
}

export interface RawConfig {
  /** The files merged, not yet validated. */
  raw: Record<string, unknown>;
  /** The files read, in order (for the startup log). */
  files: string[];
}

/** The files' settings merged (`overlayMayBeMissing`: a LEAN_TOOL_CONFIG not yet there is no error, for lean:setup). */
export function readConfigFiles(env: NodeJS.ProcessEnv, root: string, overlayMayBeMissing = false): RawConfig {
  const defaults = path.join(root, 'config', 'default.json');
  const files = [defaults];
  const raw = readJson(defaults, 'config/default.json') as Record<string, unknown>;
  // A file named on purpose must exist; the implicit config/local.json is optional.
  if (env.LEAN_TOOL_CONFIG) {
    if (!existsSync(env.LEAN_TOOL_CONFIG)) {
      if (overlayMayBeMissing) return { raw, files };
      throw new ConfigError(
        `LEAN_TOOL_CONFIG names ${env.LEAN_TOOL_CONFIG}, which does not exist (unset it to use config/local.json when present)`,
      );
    }
    files.push(env.LEAN_TOOL_CONFIG);
    return { raw: overlay(raw, readJson(env.LEAN_TOOL_CONFIG, 'LEAN_TOOL_CONFIG') as Record<string, unknown>), files };
  }
  const local = path.join(root, 'config', 'local.json');
  if (!existsSync(local)) return { raw, files };
  files.push(local);
  return { raw: overlay(raw, readJson(local, 'config/local.json') as Record<string, unknown>), files };
}

/**
 * `fastPaths.codeCache` as the files set it, for the built daemon's loader. Anything but an
 * explicit `false` (or files that cannot be read) leaves the cache on: the daemon then validates
 * the files itself and refuses what is wrong with its own message.
 */
export function codeCacheSetting(env: NodeJS.ProcessEnv, root: string): boolean {
  try {
    const fast = readConfigFiles(env, root).raw.fastPaths;
    return !(fast && typeof fast === 'object' && (fast as Record<string, unknown>).codeCache === false);
  } catch {
    return true;
  }
}
