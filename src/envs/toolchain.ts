/** Finds a local Lean toolchain (elan, lake, lean) without running anything. */
import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Toolchain {
  elan: string | undefined;
  lake: string | undefined;
  lean: string | undefined;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Search PATH, then elan's default bin folder (often not on a daemon's PATH). */
export function searchDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  const elanHome = env.ELAN_HOME ?? path.join(env.HOME ?? os.homedir(), '.elan');
  dirs.push(path.join(elanHome, 'bin'));
  return dirs;
}

export function which(cmd: string, dirs: string[]): string | undefined {
  if (cmd.includes('/')) return isExecutable(cmd) ? cmd : undefined;
  for (const d of dirs) {
    const candidate = path.join(d, cmd);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function discoverToolchain(env: NodeJS.ProcessEnv = process.env): Toolchain {
  const dirs = searchDirs(env);
  return { elan: which('elan', dirs), lake: which('lake', dirs), lean: which('lean', dirs) };
}
