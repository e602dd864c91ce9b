/** extract_decls / extract_theorems with the scripted runner double of extract-double.ts. */
import t from 'tap';
import type { LeanMessage } from '../../src/backend/index.ts';
import { TOOLS } from '../../src/contract/tools.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { environmentConfig } from '../../src/envs/config.ts';
import {
  extract_decls,
  extract_theorems,
  NO_PROOFS_WARNING,
  SELECTION_WARNING,
} from '../../src/tools/extract-decls.ts';
import {
  helperSource,
  infoCommand,
  infoSchema,
  parseInfo,
  parseMeasure,
  quoteName,
} from '../../src/tools/extract-lean.ts';
import { helperDouble, info } from './extract-double.ts';
import { toolCtx } from './runner.ts';

const SRC = 'def a : Nat := 1\n\ntheorem b : a = 1 := by\n  sorry\n\ntheorem c : True := by\n  trivial\n';
const core = environmentConfig.parse({
  name: 'core',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/tmp',
});
const run = (tool: 'extract_decls' | 'extract_theorems', body: Record<string, unknown>, lean = helperDouble()) =>
  (tool === 'extract_decls' ? extract_decls : extract_theorems).run(
    parseToolRequest(tool, { environment: 'core', ...body }) as never,
    toolCtx(lean, core),
  );

t.test(
  "every declaration gets a document with structural and Lean fields; positions of wrapped commands are the user's",
  async (t) => {
    const lean = helperDouble();
    const r = await run('extract_decls', { content: SRC }, lean);
    t.ok(TOOLS.extract_decls.response.safeParse(r).success, 'the response fits the schema');
    t.same(Object.keys(r.documents), ['a', 'b', 'c']);
    const b = r.documents.b!;
    t.same(
      [b.kind, b.index, b.line_pos, b.end_line_pos, b.proof_length, b.tactic_counts],
      ['theorem', 1, 3, 4, 1, { sorry: 1 }],
    );
    t.same(
      [b.type, b.type_hash, b.unfolded_type_hash, b.type_depth, b.term_depth, b.is_sorry],
      ['type of b', 3141592653, 2718281828, 4, 7, true],
    );
    t.same([b.wall_ms, b.heartbeats], [12, 345], 'measured by the wrapper');
    t.same(b.local_value_dependencies, ['a']);
    t.same(b.local_syntactic_dependencies, ['a']);
    t.same(
      b.declaration_messages.warnings,
      ['-:4:2: warning: declaration uses `sorry`\n'],
      'the sorry warning at its own line and column',
    );
    t.same(
      r.lean_messages.warnings,
      ['-:4:2: warning: declaration uses `sorry`\n'],
      "the helper's messages are not the user's",
    );
    t.same(r.lean_messages.infos, [], 'measure and probe output are not Lean messages about the content');
    t.same(b.theorem_messages, { errors: [], warnings: [], infos: [] }, 'extract_decls: theorem_messages empty');
    t.equal(b.content, 'def a : Nat := 1\n\ntheorem b : a = 1 := by\n  sorry\n');
    t.equal(r.documents.a!.content, 'def a : Nat := 1\n');
    const job = lean.jobs[0]!;
    t.equal(job.header, 'import Lean', 'a header without imports gets `import Lean` for the helper');
    t.match(r.tool_messages.infos.join('\n'), /import Lean. was added/);
    t.equal(job.commands[0]!.text, helperSource(), 'the helper is the first command after the header');
    t.equal(job.commands[1]!.text, '#lean_tool_measure\ndef a : Nat := 1', 'each selected declaration is wrapped');
    t.same(
      job.commands.slice(-3).map((c) => c.text),
      [
        '#lean_tool_info «a» _root_ ( ) «Nat»',
        '#lean_tool_info «b» _root_ ( )',
        '#lean_tool_info «c» _root_ ( ) «True»',
      ],
      'each probe names the declaration, its scope and the written names, every component quoted',
    );
    t.same(r.documents.a!.external_syntactic_dependencies, ['Nat'], "Lean's resolution of the written names");
  },
);

t.test(
  'a command that does not start at column 0 keeps its column; an error inside it lands where it is',
  async (t) => {
    const r = await run('extract_decls', { content: 'def a : Nat := 1\n  def z : Nat := ERR +\n    ERR\n' });
    t.same(r.documents.z!.declaration_messages.errors, [
      '-:2:17: error: Unknown identifier `ERR`\n',
      '-:3:4: error: Unknown identifier `ERR`\n',
    ]);
    t.same(r.documents.z!.line_pos, 2);
  },
);

t.test('names/indices: only the selected, content empty, a warning; unselected proofs not elaborated', async (t) => {
  const lean = helperDouble();
  const r = await run('extract_decls', { content: SRC, names: ['c'] }, lean);
  t.same(Object.keys(r.documents), ['c']);
  t.equal(r.documents.c!.content, '');
  t.ok(r.tool_messages.warnings.includes(SELECTION_WARNING));
  const sent = lean.jobs[0]!.commands.map((c) => c.text).join('\n---\n');
  t.match(sent, /theorem b : a = 1 := sorry/, 'the unselected proof is replaced');
  t.same(r.lean_messages.warnings, [], 'and its messages dropped');
  t.same(r.documents.c!.type, 'type of c', 'the other fields stay populated');
  const byIndex = await run('extract_decls', { content: SRC, indices: [-1] });
  t.same(Object.keys(byIndex.documents), ['c']);
});

t.test('elaborate_proofs false: proofs become sorry, a warning, the unusable fields neutral', async (t) => {
  const lean = helperDouble();
  const r = await run('extract_decls', { content: SRC, elaborate_proofs: false }, lean);
  t.ok(r.tool_messages.warnings.includes(NO_PROOFS_WARNING));
  t.match(lean.jobs[0]!.commands.map((c) => c.text).join('\n'), /theorem c : True := sorry/);
  const c = r.documents.c!;
  t.same([c.is_sorry, c.term_depth, c.local_value_dependencies, c.external_value_dependencies], [false, 0, [], []]);
  t.same(r.lean_messages.warnings, [], 'the sorry warnings the tool caused are not reported');
  t.equal(r.documents.a!.term_depth, 7, 'definitions are unaffected');
});

t.test('extract_theorems: theorems only, theorem_messages equal declaration_messages', async (t) => {
  const r = await run('extract_theorems', { content: SRC });
  t.same(Object.keys(r.documents), ['b', 'c']);
  t.same(r.documents.b!.theorem_messages, r.documents.b!.declaration_messages);
  t.equal(r.documents.b!.theorem_messages.warnings.length, 1);
});

t.test('verbosity and delab_options become set_option prefixes of the info probes', async (t) => {
  const lean = helperDouble();
  await run(
    'extract_decls',
    { content: 'def a : Nat := 1\n', verbosity: 2, delab_options: { 'pp.universes': false, 'pp.proofs': true } },
    lean,
  );
  const probe = lean.jobs[0]!.commands.at(-1)!.text;
  t.match(probe, /set_option pp\.explicit true in\n/);
  t.match(probe, /set_option pp\.universes false in\n/, 'delab_options win over the preset');
  t.match(probe, /set_option pp\.proofs true in\n#lean_tool_info «a»/);
});

t.test(
  'a helper that fails to elaborate, a declaration that did not elaborate: said so, nothing invented',
  async (t) => {
    const failed = await run(
      'extract_decls',
      { content: SRC },
      helperDouble({ helperError: "unknown namespace 'Lean'" }),
    );
    t.match(failed.tool_messages.errors.join('\n'), /extraction helper failed to elaborate.*unknown namespace 'Lean'/);
    const missing = await run('extract_decls', { content: SRC }, helperDouble({ noInfo: ['c'] }));
    t.same([missing.documents.c!.type, missing.documents.c!.type_hash, missing.documents.c!.wall_ms], ['', null, 12]);
    t.match(missing.tool_messages.warnings.join('\n'), /no Lean information for 'c'.*unknown constant/);
  },
);

t.test('probe names: every component quoted, scope and opens passed', async (t) => {
  t.equal(quoteName('Nat.«add comm».simp'), '«Nat».«add comm».«simp»');
  t.equal(
    infoCommand('A.b', { namespace: 'A', opens: ['Nat', 'Real'] }, ['decide', 'x.1']),
    '#lean_tool_info «A».«b» «A» ( «Nat» «Real» ) «decide» «x».«1»',
  );
});

t.test('helper output schemas: the shapes Json.mkObj prints, and what does not fit', async (t) => {
  const msg = (text: string): LeanMessage => ({
    severity: 'info',
    pos: { line: 1, column: 0 },
    endPos: undefined,
    text,
  });
  t.same(parseMeasure(msg('lean_tool_measure {"wall_ms":0,"heartbeats":17}')), { wall_ms: 0, heartbeats: 17 });
  t.ok(infoSchema.safeParse(info('x')).success);
  t.ok(infoSchema.safeParse({ name: 'x', error: 'unknown constant' }).success);
  t.ok(
    parseInfo(msg(`lean_tool_info ${JSON.stringify(info('x', { type_depth: 256 }))}`)) instanceof Error,
    'a depth over 255 is not Expr.approxDepth',
  );
  t.ok(parseInfo(msg('lean_tool_info {"name":')) instanceof Error, 'malformed JSON');
  t.equal(parseInfo(msg('some other info')), undefined);
  t.equal(
    parseInfo({ ...msg('lean_tool_info {}'), severity: 'error' }),
    undefined,
    'only info messages carry helper output',
  );
});

t.test('a long dependency chain is refused by the response bound before Lean runs (no elaboration)', async (t) => {
  const chain = (n: number) =>
    Array.from({ length: n }, (_, i) => (i === 0 ? 'def a0 : Nat := 0' : `def a${i} : Nat := a${i - 1}`)).join('\n');
  const ctx = (lean: ReturnType<typeof helperDouble>, maxResponseChars: number) => ({
    ...toolCtx(lean, core),
    maxResponseChars,
  });
  const req = (tool: 'extract_decls' | 'extract_theorems', content: string) =>
    parseToolRequest(tool, { environment: 'core', content }) as never;
  // 2,000 links: ~2,000²/2 commands of ~25 characters in the standalone documents, far over 1 MB.
  const lean = helperDouble();
  await t.rejects(extract_decls.run(req('extract_decls', chain(2_000)), ctx(lean, 1_000_000)), {
    name: 'OutputLimitError',
    message: /the output would be at least \d+ characters, over the limit of 1000000/,
  });
  t.equal(lean.jobs.length, 0, 'refused before anything was sent to Lean');
  // extract_theorems makes documents for theorems only: a chain of defs is within the same bound.
  const theorems = helperDouble();
  const r = await extract_theorems.run(req('extract_theorems', chain(2_000)), ctx(theorems, 1_000_000));
  t.same(Object.keys(r.documents), [], 'no theorem, no document');
  t.equal(theorems.jobs.length, 1, 'elaborated: nothing over the bound');
  const short = helperDouble();
  const ok = await extract_decls.run(req('extract_decls', chain(5)), ctx(short, 1_000_000));
  t.equal(ok.documents.a4!.content.split('\n').filter((l) => l.startsWith('def')).length, 5, 'a short chain is served');
  t.equal(short.jobs.length, 1);
});
