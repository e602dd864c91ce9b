/**
 * Where the external data sets live: the corpus of real Lean files and the recorded REPL
 * transcripts. They are not part of this repository (third-party files are never copied
 * in); they sit beside the checkout at ../shared, or wherever LEAN_TOOL_SHARED points.
 * Suites over them run when the directory is there and otherwise skip, saying why.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The shared data directory: $LEAN_TOOL_SHARED, else ../shared beside the checkout. */
export const SHARED_DIR = path.resolve(ROOT, process.env.LEAN_TOOL_SHARED || '../shared');

/** The path of a shared data set, or undefined when it is absent. */
export function sharedPath(sub: string): string | undefined {
  const p = path.join(SHARED_DIR, sub);
  return existsSync(p) && statSync(p).isDirectory() ? p : undefined;
}

/** Why a suite over `sub` cannot run here, or false when it can. */
export function sharedSkip(sub: string): string | false {
  return sharedPath(sub)
    ? false
    : `${path.join(SHARED_DIR, sub)} is absent (external data, not part of the repository; set LEAN_TOOL_SHARED to the directory holding ${sub}/ to run this suite)`;
}

/** Every .lean file below `dir`, sorted; [] when `dir` is absent. */
export function leanFilesUnder(dir: string | undefined): string[] {
  if (!dir || !existsSync(dir)) return [];
  const out: string[] = [];
  // Depth-first in sorted order with an explicit stack (the data's depth is not ours to bound).
  const stack = [dir];
  while (stack.length) {
    const p = stack.pop()!;
    if (statSync(p).isDirectory()) {
      for (const name of readdirSync(p).sort().reverse()) stack.push(path.join(p, name));
    } else if (p.endsWith('.lean')) out.push(p);
  }
  return out;
}

export const readText = (p: string) => readFileSync(p, 'utf8');
