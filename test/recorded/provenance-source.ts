/**
 * PROVENANCE.tsv → items. Each row names a file by its path under recorded/ (the fifth column, `file`;
 * rows of the older four-column form map lean4 to `lean4/<path>` and the rest to `mathlib/<path>`) and
 * the repository and commit it came from. What a file records decides how it is read:
 * - `.lean` with `#guard_msgs` (lean4, mathlib, plausible, aesop): guard-msgs-source.ts;
 * - command-line outputs (`*.expected.out`, `*.out.expected` of lean4): cli-source.ts;
 * - Kimina Lean Server `/verify` answers (`kimina/…/output/*.json`): the REPL response of each result, its
 *   messages on the lines of the snippet `input/<same name>.lean` it answered;
 * - REPL transcripts of a fork (`repl-forks/`) are read with the other transcripts (index.ts), not here;
 * - not Lean's messages, so no item: comparator's projects (`test.json` holds an exit code), Pantograph's
 *   tests (values Pantograph computed), Kimina's inputs (read with their answers).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { classify, goalsOfUnsolved } from './classes.ts';
import { cliItems } from './cli-source.ts';
import { guardMsgsItems } from './guard-msgs-source.ts';
import type { RecordedItem, RecordedMessage, Severity } from './types.ts';

/**
 * The Lean version of the Kimina answers: the server's default when they were recorded (recorded/README.md,
 * `kimina/`: "Lean v4.15.0 … commit 1777d73"); the answers themselves do not say.
 */
const KIMINA_LEAN = 'v4.15.0';

export interface ProvenanceRow {
  repo: string;
  commit: string;
  /** Path under recorded/. */
  file: string;
}

export function provenanceRows(dir: string): ProvenanceRow[] {
  const rows = readFileSync(path.join(dir, 'PROVENANCE.tsv'), 'utf8').split('\n').slice(1);
  const out: ProvenanceRow[] = [];
  for (const row of rows) {
    const [repo, commit, p, , file] = row.split('\t');
    if (!repo || !commit || !p) continue;
    out.push({ repo, commit, file: file?.trim() || `${repo === 'leanprover/lean4' ? 'lean4' : 'mathlib'}/${p}` });
  }
  return out;
}

/** A tag folder's tag (`aesop/v4.28.0/…` → `v4.28.0`), else the repository at its commit (`lean4@5d43ac9`). */
function versionOf(row: ProvenanceRow): string {
  const tag = row.file.split('/')[1] ?? '';
  return /^v\d/.test(tag) ? tag : `${row.repo.split('/')[1]}@${row.commit.slice(0, 7)}`;
}

/** Why a file holds no Lean messages the index reads, or undefined when it does. */
export function notIndexed(file: string): string | undefined {
  const top = file.split('/')[0];
  if (top === 'repl-forks') return 'REPL transcripts (read with the other transcripts)';
  if (top === 'comparator') return "comparator's projects (an exit code, no Lean output)";
  if (top === 'pantograph') return 'values Pantograph computed (not Lean messages)';
  if (top === 'kimina' && file.includes('/input/')) return 'Kimina inputs (read with their answers)';
  return undefined;
}

type Json = Record<string, unknown>;

/** The items of one Kimina answer file: one per result with a response, on its snippet's lines. */
function kiminaItems(dir: string, file: string): RecordedItem[] {
  const answer = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { results?: Json[] };
  const source = path.join(dir, file.replace('/output/', '/input/').replace(/\.json$/, '.lean'));
  const input = existsSync(source) ? readFileSync(source, 'utf8') : '';
  const items: RecordedItem[] = [];
  for (const r of answer.results ?? []) {
    const response = (r.response ?? {}) as Json;
    const raw = (Array.isArray(response.messages) ? response.messages : []) as Json[];
    const messages: RecordedMessage[] = raw.map((m) => ({
      severity: m.severity as Severity,
      text: String(m.data),
      pos: m.pos as RecordedMessage['pos'],
      endPos: (m.endPos as RecordedMessage['endPos']) ?? undefined,
      ...classify(m.severity as Severity, String(m.data), input),
    }));
    const goals = messages.flatMap((m) => goalsOfUnsolved(m.text));
    items.push({
      source: 'kimina',
      version: KIMINA_LEAN,
      file: `recorded/${file}`,
      line: 1,
      input,
      messages,
      goals,
      response,
    });
  }
  return items;
}

/** The items of every file PROVENANCE.tsv lists; `skipped` counts, per reason, the files read elsewhere or not at all. */
export function provenanceItems(dir: string, skipped: Map<string, number>): RecordedItem[] {
  const out: RecordedItem[] = [];
  const shared = path.dirname(dir);
  for (const row of provenanceRows(dir)) {
    const why = notIndexed(row.file);
    const f = path.join(dir, row.file);
    if (why || !existsSync(f)) {
      const reason = why ?? 'listed but held out of this copy';
      skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
      continue;
    }
    const rel = path.relative(shared, f);
    if (row.file.startsWith('kimina/')) out.push(...kiminaItems(dir, row.file));
    else if (/\.lean$/.test(row.file)) out.push(...guardMsgsItems(readFileSync(f, 'utf8'), rel, versionOf(row)));
    else if (/\.(?:expected\.out|out\.expected)$/.test(row.file))
      out.push(...cliItems(readFileSync(f, 'utf8'), rel, versionOf(row)));
  }
  return out;
}
