/** Each structural tool over the whole corpus: no crash, lossless re-parse, untouched text intact, the tool's invariant. */
import t from 'tap';
import { applyEdits } from '../../src/syntax/edits.ts';
import { identOccurrences, resolveName } from '../../src/syntax/names.ts';
import { parseSource, printSource, type SourceFile } from '../../src/syntax/source.ts';
import { havesToSorry } from '../../src/tools/have2sorry.ts';
import { normalizeSource } from '../../src/tools/normalize-source.ts';
import { renameInSource } from '../../src/syntax/renaming.ts';
import { proofToSorry } from '../../src/tools/theorem2sorry.ts';
import { CORPUS_SKIP, corpusFiles, parsedFile } from '../syntax/corpus.ts';

// Each file is parsed once for the four suites; a tool's output is parsed afresh unless it is
// the file's text unchanged (about half of the files for normalize; the parser is deterministic).
const files = corpusFiles();
const reparse = (out: string, f: SourceFile): SourceFile => (out === f.text ? f : parseSource(out));

t.test(
  'theorem2sorry: every theorem with a body ends as sorry; everything else byte-identical',
  { skip: CORPUS_SKIP },
  async (t) => {
    let bad = 0;
    for (const p of files) {
      const f = parsedFile(p);
      const src = f.text;
      const thms = f.decls.filter((d) => d.kind === 'theorem');
      const out = applyEdits(
        src,
        thms.map((d) => proofToSorry(src, d)).filter((e) => e !== undefined),
      );
      const g = reparse(out, f);
      const ok =
        printSource(g) === out &&
        g.decls
          .filter((d) => d.kind === 'theorem' && d.bodySpan)
          .every((d) => /^(by\s+)?sorry$/.test(out.slice(d.bodySpan!.start, d.bodySpan!.end))) &&
        f.decls
          .filter((d) => d.kind !== 'theorem')
          .every((d) => out.includes(src.slice(d.command.start, d.command.end)));
      if (!ok) bad++;
    }
    t.equal(bad, 0, `${files.length} files`);
  },
);

t.test('have2sorry: no crash; lossless; every rewritten have keeps its statement', { skip: CORPUS_SKIP }, async (t) => {
  let edits = 0;
  for (const p of files) {
    const f = parsedFile(p);
    const src = f.text;
    const all = f.decls.filter((d) => d.kind === 'theorem').flatMap((d) => havesToSorry(f, d).edits);
    const out = applyEdits(src, all);
    edits += all.length;
    t.equal(printSource(reparse(out, f)), out);
  }
  t.ok(edits > 1000, `${edits} have proofs replaced`);
});

t.test(
  'rename: renaming every declaration leaves no reference resolving to an old name',
  { skip: CORPUS_SKIP },
  async (t) => {
    let checked = 0;
    for (const p of files.filter((_, i) => i % 3 === 0)) {
      const f = parsedFile(p);
      const src = f.text;
      const names = [...new Set(f.decls.flatMap((d) => (d.fullName ? [d.fullName] : [])))];
      if (names.length === 0) continue;
      const mapping = Object.fromEntries(names.map((n) => [n, `${n}_renamed`]));
      const r = renameInSource(src, mapping);
      const g = parseSource(r.output);
      t.equal(printSource(g), r.output);
      const declared = new Set(names);
      let stale = 0;
      let ci = 0;
      for (const occ of identOccurrences(g.sig)) {
        while (ci + 1 < g.commands.length && g.commands[ci + 1]!.start <= occ.start) ci++;
        // `x.foo` after a dot resolves by the receiver's type, which needs Lean; scope resolution does not apply.
        if (occ.field || (occ.sig > 0 && g.sig.text[occ.sig - 1] === '.' && g.sig.end[occ.sig - 1] === occ.start))
          continue;
        const hit = resolveName(occ.name, g.scopes[ci] ?? { namespace: '', opens: [] }, declared)[0];
        if (hit !== undefined && !g.decls.some((d) => d.fullName === hit)) stale++;
      }
      if (stale > 0) t.fail(`stale references: ${stale}`);
      checked++;
    }
    t.ok(checked > 300, `${checked} files, every declaration renamed`);
  },
);

t.test(
  'normalize (defaults): no namespace/section left, every declaration reachable under its full name',
  { skip: CORPUS_SKIP },
  async (t) => {
    let bad = 0;
    for (const p of files) {
      const before = parsedFile(p);
      const r = normalizeSource(before.text, ['remove_sections', 'remove_duplicates', 'split_open_in_commands']);
      const after = reparse(r.output, before);
      const left = after.commands.filter(
        (c) => c.kind === 'namespace' || (c.kind === 'section' && !c.keyword.includes('noncomputable')),
      );
      const names = (f: typeof before) => new Set(f.decls.flatMap((d) => (d.fullName ? [d.fullName] : [])));
      const lost = [...names(before)].filter((n) => !names(after).has(n));
      const ok = printSource(after) === r.output && left.length === 0 && after.decls.every((d) => !d.namespace);
      if (!ok || lost.length > 0) bad++;
    }
    t.equal(bad, 0, `${files.length} files`);
  },
);
