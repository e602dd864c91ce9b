/**
 * The corpus of real Lean files, for tests over many inputs. External data (see
 * test/shared-data.ts): `CORPUS_SKIP` says why suites over it cannot run here.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { leanFilesUnder, readText, sharedPath, sharedSkip } from '../shared-data.ts';

export const CORPUS = sharedPath('corpus');
export const CORPUS_SKIP = sharedSkip('corpus');

export function corpusFiles(sub = ''): string[] {
  return CORPUS ? leanFilesUnder(path.join(CORPUS, sub)) : [];
}

export const read = readText;

/** Small Lean files written for this project (test/fixtures/lean): always present. */
export const FIXTURE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/lean');
export const fixtureFiles = (): string[] => leanFilesUnder(FIXTURE_DIR);
