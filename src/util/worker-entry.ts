/** Where a worker thread's entry module is, bundled or running the sources. */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Replaced by `true` in the bundle (scripts/build.mjs `define`); undefined when running the sources. */
declare const __BUNDLED__: boolean | undefined;

/**
 * The entry's URL: `dist/<bundled>` beside dist/main.js in the bundle, or, running the sources,
 * `<source>` (a plain ES module that registers the TypeScript loader in its thread first).
 * Paths are relative to the project root.
 */
export function workerEntry(root: string, bundled: string, source: string): string {
  const isBundled = typeof __BUNDLED__ !== 'undefined' && __BUNDLED__;
  return pathToFileURL(path.join(root, ...(isBundled ? ['dist', bundled] : source.split('/')))).href;
}
