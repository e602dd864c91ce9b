/**
 * The corpus of real Lean files, for tests over many inputs. External data (see
 * test/shared-data.ts): `CORPUS_SKIP` says why suites over it cannot run here.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSource, type SourceFile } from '../../src/syntax/source.ts';
import { leanFilesUnder, readText, sharedPath, sharedSkip } from '../shared-data.ts';

export const CORPUS = sharedPath('corpus');
export const CORPUS_SKIP = sharedSkip('corpus');

export function corpusFiles(sub = ''): string[] {
  return CORPUS ? leanFilesUnder(path.join(CORPUS, sub)) : [];
}

export const read = readText;

const parsed = new Map<string, SourceFile>();

/**
 * The parse of the corpus file at `p` (its text is `.text`), parsed once per test process: a
 * suite that checks several properties of each file shares one parse of it (~1 s of CPU per
 * pass over the corpus). The parses stay for the process's life: the corpus suites run in a
 * process of their own (scripts/test.mjs OWN_PROCESS). A SourceFile is never mutated
 * (src/tools/elaborate.ts keys a WeakMap by it), so sharing it changes nothing a test sees.
 */
export function parsedFile(p: string): SourceFile {
  let file = parsed.get(p);
  if (!file) parsed.set(p, (file = parseSource(read(p))));
  return file;
}

/** Small Lean files written for this project (test/fixtures/lean): always present. */
export const FIXTURE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/lean');
export const fixtureFiles = (): string[] => leanFilesUnder(FIXTURE_DIR);
