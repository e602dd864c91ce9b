/**
 * The index of recorded Lean output (issue 27 §1): every recorded command or declaration with
 * the messages, goals and sorries Lean printed for it, its message classes, Lean version,
 * source file and line. Built once per process from ../shared (test/shared-data.ts) and kept
 * in memory; `undefined` with the reason when the shared data is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { leanFilesUnder, SHARED_DIR, sharedPath, sharedSkip } from '../shared-data.ts';
import { guardMsgsItems } from './guard-msgs-source.ts';
import { provenanceItems } from './provenance-source.ts';
import { exchangeItem, readExchanges, transcriptFiles } from './repl-source.ts';
import type { RecordedItem } from './types.ts';

export type { RecordedItem, RecordedMessage } from './types.ts';
export { classify, CLASSES, goalsOfUnsolved } from './classes.ts';

/** Why the recorded suites cannot run here, or false. */
export const RECORDED_SKIP: string | false = sharedSkip('recorded');

const rel = (p: string) => path.relative(SHARED_DIR, p);

/** `<tag> <commit>` lines of a TAGS file. */
export function readTags(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0]!)
    .filter(Boolean);
}

/** The REPL tags recorded under recorded/repl/. */
export function replTags(): string[] {
  const dir = sharedPath('recorded');
  return dir ? readTags(path.join(dir, 'repl', 'TAGS')) : [];
}

/**
 * The REPL transcript corpora: each tag of recorded/repl/ (`v4.28.0`), then each fork's tag of recorded/repl-forks/
 * (`augustepoiroux@v4.23.0`: the fork's transcripts, same format; repl-forks/<owner>/TAGS).
 */
export function replCorpora(): string[] {
  const dir = sharedPath('recorded');
  if (!dir) return [];
  const forks = path.join(dir, 'repl-forks');
  const owners = existsSync(forks) ? readdirSync(forks).filter((o) => existsSync(path.join(forks, o, 'TAGS'))) : [];
  return [...replTags(), ...owners.flatMap((o) => readTags(path.join(forks, o, 'TAGS')).map((tag) => `${o}@${tag}`))];
}

function replItems(dir: string, version: string, seen: Set<string>): RecordedItem[] {
  const out: RecordedItem[] = [];
  for (const f of transcriptFiles(dir)) {
    const key = `${version}|${path.relative(dir, f)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const x of readExchanges(f)) out.push(exchangeItem(x, rel(f), version));
  }
  return out;
}

/** Files PROVENANCE.tsv lists that the index reads elsewhere or not at all, per reason (filled by the build). */
export const notIndexedFiles = new Map<string, number>();

function build(): RecordedItem[] {
  const dir = sharedPath('recorded')!;
  const items: RecordedItem[] = [];
  const seen = new Set<string>();
  for (const tag of replTags()) items.push(...replItems(path.join(dir, 'repl', tag), tag, seen));
  // The older copy (repl-transcripts/README.md: commit 8948401, v4.33.0-rc2): what the tag folder already holds is skipped.
  const older = sharedPath('repl-transcripts');
  if (older) items.push(...replItems(older, 'v4.33.0-rc2', seen));
  // A fork's transcripts are its own recordings (another REPL build): never deduplicated against repl/.
  for (const label of replCorpora().filter((l) => l.includes('@'))) {
    const at = label.indexOf('@');
    const forkDir = path.join(dir, 'repl-forks', label.slice(0, at), label.slice(at + 1), 'test');
    if (existsSync(forkDir)) items.push(...replItems(forkDir, label.slice(at + 1), new Set()));
  }
  for (const tag of readTags(path.join(dir, 'batteries', 'TAGS'))) {
    for (const f of leanFilesUnder(path.join(dir, 'batteries', tag)))
      items.push(...guardMsgsItems(readFileSync(f, 'utf8'), rel(f), tag));
  }
  notIndexedFiles.clear();
  items.push(...provenanceItems(dir, notIndexedFiles));
  return items;
}

let cached: RecordedItem[] | undefined;

/** The index, built on first use (one build per process); undefined when ../shared/recorded is absent. */
export function recordedIndex(): RecordedItem[] | undefined {
  if (RECORDED_SKIP) return undefined;
  return (cached ??= build());
}

/** The index for a test; undefined once `t` has ended saying why it skipped (../shared/recorded absent). */
export function recordedIndexFor(t: Test): RecordedItem[] | undefined {
  const items = recordedIndex();
  if (!items) {
    t.comment(`skipped: ${RECORDED_SKIP}`);
    t.end();
  }
  return items;
}

/** Items per class (each class an item's messages have counts the item once) and per version. */
export function countsOf(items: readonly RecordedItem[]): {
  perClass: Map<string, number>;
  perVersion: Map<string, number>;
  perVariant: Map<string, number>;
} {
  const perClass = new Map<string, number>();
  const perVersion = new Map<string, number>();
  const perVariant = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const it of items) {
    bump(perVersion, it.version);
    for (const c of new Set(it.messages.map((m) => m.cls))) bump(perClass, c);
    for (const v of new Set(it.messages.filter((m) => m.variant).map((m) => `${m.cls}: ${m.variant}`)))
      bump(perVariant, v);
  }
  return { perClass, perVersion, perVariant };
}
