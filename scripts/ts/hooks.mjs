// Module loader hooks (module.register): a `.ts` file loads as the cached JavaScript of its
// current content (compile.mjs); a miss compiles it with esbuild, loaded only then.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cacheFile, readCached, transformOptions, writeCached } from './compile.mjs';

let esbuild;

async function compile(file, source) {
  esbuild ??= await import('esbuild');
  const { code } = await esbuild.transform(source, transformOptions(file));
  return code;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !/\.[cm]?ts$/.test(new URL(url).pathname)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const source = readFileSync(file, 'utf8');
  const entry = cacheFile(file, source);
  let code = readCached(entry);
  if (code === undefined) {
    code = await compile(file, source);
    writeCached(entry, code);
  }
  return { format: 'module', source: code, shortCircuit: true };
}
