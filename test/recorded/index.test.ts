/** The recorded index (issue 27 §1): its counts per class and version, printed; at least 1,000 items over 20 classes. */
import t from 'tap';
import { CLASSES, countsOf, notIndexedFiles, RECORDED_SKIP, recordedIndex } from './index.ts';

/** The message classes each Lean-backed part of the service reads (src/tools, src/backend). */
const READS: Record<string, string[]> = {
  backend: ['heartbeat_timeout', 'kernel_timeout', 'unknown_identifier'],
  check: ['uses_sorry', 'print_axioms'],
  verify_proof: ['uses_sorry', 'print_axioms', 'check_output'],
  repair_proofs: ['unknown_option', 'unknown_identifier', 'unsolved_goals', 'no_goals'],
  simplify_theorems: ['unused_variable', 'uses_sorry'],
  sorry2lemma: ['unsolved_goals'],
  have2lemma: ['unsolved_goals'],
  disprove: ['print_axioms', 'uses_sorry'],
  merge: ['check_output', 'print_axioms', 'uses_sorry'],
  extract_decls: ['lint_output'],
};

t.test('the recorded index', { skip: RECORDED_SKIP }, async (t) => {
  const t0 = performance.now();
  const items = recordedIndex()!;
  const ms = Math.round(performance.now() - t0);
  const { perClass, perVersion, perVariant } = countsOf(items);
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const withMessages = items.filter((i) => i.messages.length > 0).length;
  t.comment(`${items.length} items (${withMessages} with messages), built in ${ms} ms`);
  t.comment(
    `per class: ${sorted(perClass)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  t.comment(
    `per wording: ${sorted(perVariant)
      .map(([k, v]) => `${k}: ${v}`)
      .join('; ')}`,
  );
  const tags = sorted(perVersion).filter(([k]) => k.startsWith('v'));
  const commits = sorted(perVersion).filter(([k]) => !k.startsWith('v'));
  t.comment(`per version: ${tags.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const byRepo = new Map<string, number>();
  for (const [k, v] of commits) byRepo.set(k.split('@')[0]!, (byRepo.get(k.split('@')[0]!) ?? 0) + v);
  t.comment(
    `test-suite commits: ${[...byRepo].map(([k, v]) => `${k} ${v} items at ${commits.filter(([c]) => c.startsWith(k)).length} commits`).join(', ')}`,
  );
  const perFolder = new Map<string, number>();
  for (const it of items) {
    const folder = it.file.replace(/^recorded\//, '').split('/')[0]!;
    perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
  }
  t.comment(
    `per folder: ${sorted(perFolder)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  t.comment(
    `listed in PROVENANCE.tsv, no items: ${[...notIndexedFiles].map(([k, v]) => `${v} ${k}`).join('; ') || 'none'}`,
  );
  for (const folder of ['plausible', 'aesop', 'kimina', 'repl-forks'])
    t.ok(
      perFolder.get(folder),
      `the ${folder}/ recordings are indexed (by PROVENANCE.tsv's file column or as transcripts)`,
    );
  t.ok(items.length >= 1000, `${items.length} items (at least 1,000)`);
  const named = [...perClass.keys()].filter((c) => c !== 'other');
  t.ok(named.length >= 20, `${named.length} classes (at least 20)`);
  const missing = CLASSES.filter((c) => !perClass.has(c));
  t.comment(`classes with no recording: ${missing.join(', ') || 'none'}`);
  const repl = countsOf(items.filter((i) => i.source === 'repl')).perClass;
  for (const [part, classes] of Object.entries(READS)) {
    const line = classes.map((c) => `${c} ${repl.get(c) ?? 0} REPL / ${perClass.get(c) ?? 0} all`);
    t.comment(`${part} reads: ${line.join(', ')}`);
  }
  const unrecorded = [...new Set(Object.values(READS).flat())].filter((c) => !perClass.has(c));
  t.comment(`read by the service but never recorded (doctor checks): ${unrecorded.join(', ') || 'none'}`);
  t.ok(
    Object.values(READS)
      .flat()
      .every((c) => CLASSES.includes(c)),
    'every class the service reads has a classification rule',
  );
  for (const it of items) {
    if (it.line < 1 || !it.file || !it.version) t.fail(`item without provenance: ${JSON.stringify(it).slice(0, 200)}`);
  }
  t.ok(recordedIndex() === items, 'built once per process');
});
