/** The shared corpus of real Lean files (../shared/corpus), for tests and benchmarks. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/corpus');

export function corpusFiles(sub = ''): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.lean')) out.push(p);
    }
  };
  walk(path.join(CORPUS, sub));
  return out;
}

export const read = (p: string) => readFileSync(p, 'utf8');
