/**
 * The structural Document fields on the shared corpus: every declaration gets a document,
 * index order is file order, line_pos/end_line_pos cover the declaration exactly, and the
 * standalone content declares every local name it references before the reference.
 */
import t from 'tap';
import { commandDependencies, syntacticDependencies } from '../../src/syntax/dependencies.ts';
import { parseSource, type SourceDecl, type SourceFile } from '../../src/syntax/source.ts';
import {
  documentContent,
  documentKeys,
  fileStructure,
  structuralDocument,
  tacticCounts,
} from '../../src/tools/extract-structure.ts';
import { CORPUS_SKIP, corpusFiles, read } from '../syntax/corpus.ts';

const declKey = (x: SourceDecl, text: string) =>
  `${x.kind} ${x.fullName ?? '?'} ${text.slice(x.command.start, x.command.end)}`;
const cmdText = (f: SourceFile, i: number) => f.text.slice(f.commands[i]!.start, f.commands[i]!.end);

/** What a standalone content is compared with: the original file's declarations and commands by their text. */
interface Original {
  decls: Map<string, SourceDecl>;
  /** The local names each command that has any resolves, joined, by the command's text. */
  cmds: Map<string, string>;
}

/** Built once per file (not once per content checked: it is the same for every declaration of the file). */
function originalOf(file: SourceFile): Original {
  const cmds = new Map<string, string>();
  for (const [i, names] of commandDependencies(file)) cmds.set(cmdText(file, i), names.join(','));
  return { decls: new Map(file.decls.map((x) => [declKey(x, file.text), x])), cmds };
}

/** Check the standalone content of `d`: each declaration in it resolves the same local names as in the original file. */
function checkStandalone(
  original: Original,
  deps: ReturnType<typeof syntacticDependencies>,
  d: SourceDecl,
  content: string,
): string | undefined {
  const sub = parseSource(content);
  const subDeps = syntacticDependencies(sub);
  // The target comes last, or with the rest of its mutual block.
  const last = sub.decls[sub.decls.length - 1];
  const ends =
    d.mutualGroup !== undefined
      ? sub.decls.some((x) => x.fullName === d.fullName && x.mutualGroup !== undefined)
      : last?.fullName === d.fullName && last?.kind === d.kind;
  if (!ends) return `the content does not end with ${d.fullName ?? d.keyword}`;
  for (const x of sub.decls) {
    const o = original.decls.get(declKey(x, content));
    if (!o) return `${x.fullName ?? x.keyword} is not a declaration of the original`;
    const want = deps.get(o)!.local.join(',');
    const got = subDeps.get(x)!.local.join(',');
    if (want !== got)
      return `${x.fullName}: local names [${want}] in the file but [${got}] in the content of ${d.fullName}`;
  }
  // `variable`s and notations kept in the content resolve the same local names too.
  const subCmd = commandDependencies(sub);
  for (let i = 0; i < sub.commands.length; i++) {
    const want = original.cmds.get(cmdText(sub, i));
    if (want !== undefined && want !== (subCmd.get(i) ?? []).join(','))
      return `command ${cmdText(sub, i).slice(0, 40)}: local names [${want}] in the file but [${(subCmd.get(i) ?? []).join(',')}] in the content of ${d.fullName}`;
  }
  return undefined;
}

t.test('structural fields on a small file', async (t) => {
  const f = parseSource(
    '/-- doc -/\ntheorem a : True := by\n  constructor\n\nmutual\ndef f : Nat → Nat\n  | 0 => 0\n  | n+1 => g n\ndef g : Nat → Nat\n  | 0 => 1\n  | n+1 => f n\nend\n\ntheorem b (x : Nat) : x = x := by\n  induction x with\n  | zero => rfl\n  | succ n ih =>\n    simp\n    · rfl\n',
  );
  const fs = fileStructure(f);
  const docs = f.decls.map((d) => structuralDocument(fs, d));
  t.same(
    docs.map((d) => d.index),
    [0, 1, 1, 2],
    'mutual definitions share an index',
  );
  t.same(
    docs.map((d) => [d.line_pos, d.end_line_pos]),
    [
      [1, 3],
      [6, 8],
      [9, 11],
      [14, 19],
    ],
  );
  t.equal(docs[0]!.declaration, '/-- doc -/\ntheorem a : True := by\n  constructor');
  t.equal(docs[0]!.signature, '/-- doc -/\ntheorem a : True');
  t.same(docs[0]!.tokens, ['/-- doc -/', 'theorem', 'a', ':', 'True', ':=', 'by', 'constructor']);
  t.same(
    [docs[1]!.kind, docs[1]!.proof_length, docs[1]!.tactic_counts],
    ['def', 0, {}],
    'no tactic fields for definitions',
  );
  t.same(tacticCounts(f, f.decls[3]!), { proof_length: 4, tactic_counts: { induction: 1, rfl: 2, simp: 1 } });
});

const skip = CORPUS_SKIP;
if (skip) t.comment(`SKIP corpus checks: ${skip}`);

t.test(
  'corpus: one document per declaration, file-order indices, exact line spans, standalone content',
  { skip },
  async (t) => {
    let files = 0;
    let decls = 0;
    let contents = 0;
    const failures: string[] = [];
    for (const p of corpusFiles()) {
      const text = read(p);
      const f = parseSource(text);
      const fs = fileStructure(f);
      files++;
      decls += f.decls.length;
      const keys = documentKeys(fs, f.decls);
      if (new Set(keys.values()).size !== f.decls.length)
        failures.push(`${p}: ${f.decls.length} declarations but ${new Set(keys.values()).size} document keys`);
      let prevIndex = -1;
      let prevStart = -1;
      const lines = text.split('\n');
      // Standalone content for up to 15 declarations per file, spread over the file.
      const step = Math.max(1, Math.ceil(f.decls.length / 15));
      let original: Original | undefined;
      f.decls.forEach((d, i) => {
        const doc = structuralDocument(fs, d);
        if (
          doc.index < prevIndex ||
          (doc.index === prevIndex && d.mutualGroup === undefined) ||
          d.command.start < prevStart
        )
          failures.push(`${p}: index ${doc.index} of ${d.fullName} out of file order`);
        prevIndex = doc.index;
        prevStart = d.command.start;
        const span = lines.slice(doc.line_pos - 1, doc.end_line_pos).join('\n');
        const dl = doc.declaration.split('\n');
        if (
          dl.length !== doc.end_line_pos - doc.line_pos + 1 ||
          !span.includes(doc.declaration) ||
          !lines[doc.line_pos - 1]!.includes(dl[0]!) ||
          !lines[doc.end_line_pos - 1]!.includes(dl[dl.length - 1]!)
        ) {
          failures.push(`${p}: lines ${doc.line_pos}-${doc.end_line_pos} do not cover ${d.fullName}`);
        }
        if (i % step === 0 && d.fullName) {
          contents++;
          original ??= originalOf(f);
          const problem = checkStandalone(original, fs.deps, d, documentContent(fs, d, ''));
          if (problem) failures.push(`${p}: ${problem}`);
        }
      });
    }
    t.comment(`${files} files, ${decls} declarations, ${contents} standalone contents checked`);
    t.ok(decls > 1000, 'the corpus has declarations');
    t.same(failures.slice(0, 40), [], `${failures.length} failures`);
  },
);
