/** The source model on every real file of the shared corpus. */
import path from 'node:path';
import t from 'tap';
import { isTrivia, lex } from '../../src/syntax/lexer.ts';
import { printSource } from '../../src/syntax/source.ts';
import { CORPUS_SKIP, corpusFiles, parsedFile } from './corpus.ts';

const files = corpusFiles();

t.test('the corpus is there', { skip: CORPUS_SKIP }, async (t) => {
  t.ok(files.length > 2000, `${files.length} files`);
});

t.test(
  'lossless on every corpus file: tokens tile the text; commands are ordered and disjoint',
  { skip: CORPUS_SKIP },
  async (t) => {
    let failures = 0;
    // Each file is parsed once for every suite of this file (parsedFile).
    for (const f of files) {
      const file = parsedFile(f);
      const src = file.text;
      const tokens = lex(src);
      let pos = 0;
      let ok = true;
      for (const tok of tokens) {
        if (tok.start !== pos || tok.end <= tok.start) ok = false;
        pos = tok.end;
      }
      if (pos !== src.length) ok = false;
      if (printSource(file) !== src) ok = false;
      // The parser's significant tokens are exactly the lexer's non-trivia tokens, so every gap between them is trivia.
      const nonTrivia = tokens.filter((x) => !isTrivia(x.kind));
      if (
        nonTrivia.length !== file.sig.length ||
        nonTrivia.some((x, k) => x.start !== file.sig.start[k] || x.end !== file.sig.end[k])
      )
        ok = false;
      let last = file.header.end;
      for (const c of file.commands) {
        if (c.start < last || c.end < c.start) ok = false;
        last = c.end;
      }
      // Every significant token belongs to the header or to exactly one command.
      const covered = file.header.sigEnd + file.commands.reduce((n, c) => n + (c.sigEnd - c.sigStart), 0);
      if (covered !== file.sig.length) ok = false;
      if (!ok && ++failures <= 5) t.fail(`not lossless: ${path.relative(process.cwd(), f)}`);
    }
    t.equal(failures, 0, `all ${files.length} files lossless`);
  },
);

t.test(
  'competition files: exactly the one theorem the file name says, with a body',
  { skip: CORPUS_SKIP },
  async (t) => {
    for (const dir of ['minif2f-lean4', 'putnambench']) {
      const list = corpusFiles(dir);
      t.ok(list.length > 0, `${dir}: the folder has files (an absent folder must not pass)`);
      let bad = 0;
      for (const f of list) {
        const file = parsedFile(f);
        const thms = file.decls.filter((d) => d.kind === 'theorem');
        if (!(thms.length === 1 && thms[0]!.fullName === path.basename(f, '.lean') && thms[0]!.bodySpan)) bad++;
      }
      t.equal(bad, 0, `${dir}: ${list.length} files`);
    }
  },
);

/**
 * An independent check: a line regex for declaration keywords at column 0. On these
 * folders (no Lean code inside doc comments) every such line must start a declaration.
 */
t.test(
  'every column-0 declaration line is a parsed declaration (independent regex)',
  { skip: CORPUS_SKIP },
  async (t) => {
    const re =
      /^(?:@\[[^\]]*\]\s*)?(?:(?:private|protected|noncomputable|nonrec|partial|unsafe)\s+)*(theorem|lemma|def|abbrev|structure|inductive|class|instance|example|axiom|opaque)\b/;
    for (const dir of [
      'minif2f-lean4',
      'putnambench',
      'proofnet-lean4',
      'combibench',
      'kimina-prover-preview',
      'seed-prover',
      'compfiles',
    ]) {
      let lines = 0;
      let unmatched = 0;
      const list = corpusFiles(dir);
      t.ok(list.length > 0, `${dir}: the folder has files (an absent folder must not pass)`);
      for (const f of list) {
        const file = parsedFile(f);
        const src = file.text;
        const declLines = new Set<number>();
        for (const d of file.decls)
          for (
            let l = file.lines.toLean(d.headerSpan.start).line;
            l <= file.lines.toLean(d.keywordSpan.start).line;
            l++
          )
            declLines.add(l);
        src.split('\n').forEach((l, i) => {
          if (!re.test(l)) return;
          lines++;
          if (!declLines.has(i + 1)) unmatched++;
        });
      }
      t.equal(unmatched, 0, `${dir}: ${lines} declaration lines`);
    }
  },
);

t.test(
  "compfiles' custom `problem`/`determine` commands are kept as commands, never lost",
  { skip: CORPUS_SKIP },
  async (t) => {
    let problems = 0;
    for (const f of corpusFiles('compfiles')) {
      const file = parsedFile(f);
      const src = file.text;
      // Lines inside comments do not count: find where comment tokens cover a line start.
      const comments = lex(src).filter(
        (x) => x.kind === 'block-comment' || x.kind === 'doc-comment' || x.kind === 'mod-doc',
      );
      const commentAt = (offset: number) => comments.some((x) => x.start < offset && offset < x.end);
      let offset = 0;
      let atCol0 = 0;
      for (const l of src.split('\n')) {
        if (/^(problem|determine) /.test(l) && !commentAt(offset)) atCol0++;
        offset += l.length + 1;
      }
      const cmds = file.commands.filter((c) => c.keyword === 'problem' || c.keyword === 'determine').length;
      t.equal(cmds, atCol0, path.basename(f));
      problems += cmds;
    }
    t.ok(problems > 300);
  },
);

t.test('declaration kinds seen across the corpus', { skip: CORPUS_SKIP }, async (t) => {
  const kinds = new Map<string, number>();
  for (const f of files) for (const d of parsedFile(f).decls) kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
  for (const k of ['theorem', 'def', 'abbrev', 'instance', 'structure', 'inductive', 'class', 'example', 'axiom'])
    t.ok((kinds.get(k) ?? 0) > 0, `${k}: ${kinds.get(k)}`);
});
