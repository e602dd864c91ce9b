/** `lean-tool extract-decls FILE -d DIR [-f]`: safe file names, one file per document, no overwrite without -f. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { main, parseArgs } from '../../src/client/cli.ts';
import { documentFiles, safeFileName } from '../../src/client/extract-files.ts';
import { runExtract } from '../../src/tools/extract-decls.ts';
import { makeApp, TEST_ENV } from '../helpers.ts';
import { helperDouble } from '../tools/extract-double.ts';

t.test('safe file names', async (t) => {
  t.equal(safeFileName('Nat.add_comm'), 'Nat.add_comm');
  t.equal(safeFileName('Foo.«bar baz»'), 'Foo._bar_baz_');
  t.equal(safeFileName('a/b\\c:d*e?f"g<h>i|j\''), 'a_b_c_d_e_f_g_h_i_j_');
  t.equal(safeFileName('..hidden'), '_hidden');
  t.equal(safeFileName('CON'), '_CON');
  t.equal(safeFileName('α_β'), 'α_β', 'letters of any script stay');
  t.ok(Buffer.byteLength(safeFileName('ℕ'.repeat(500))) <= 200);
  const files = documentFiles(
    { "a'": { content: 'x', declaration: 'd' }, a_: { content: '', declaration: 'decl' } },
    '/out',
  );
  t.same(
    files.map((f) => [f.file, f.text]),
    [
      ['/out/a_.lean', 'x'],
      ['/out/a_-2.lean', 'decl\n'],
    ],
    'colliding names are numbered; empty content falls back to the declaration',
  );
});

t.test('the CLI writes one file per document and refuses to overwrite without -f', async (t) => {
  t.same(
    [
      parseArgs(['extract-decls', 'f.lean', '-d', 'out', '-f']).tool,
      parseArgs(['extract-decls', 'f.lean', '-d', 'out']).force,
    ],
    ['extract_decls', false],
  );
  // The daemon runs the real tool over the scripted runner double (no Lean here).
  const app = await makeApp({
    tools: {
      extract_decls: {
        needsLean: () => false,
        run: (req, ctx) => runExtract(req, { ...ctx, lean: helperDouble() }, false),
      },
    },
  });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const env = {
    SERVICE_API_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    SERVICE_ENVIRONMENT: TEST_ENV,
    SERVICE_TIMEOUT_SECONDS: '5',
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'extract-'));
  const file = path.join(dir, 'in.lean');
  writeFileSync(file, 'def a : Nat := 1\n\ntheorem b : a = 1 := rfl\n');
  const out = path.join(dir, 'docs');
  const err: string[] = [];
  const io = {
    stdin: () => '',
    stdout: () => {},
    stderr: (s: string) => {
      err.push(s);
    },
    env,
    isTTY: false,
  };
  t.equal(await main(['extract-decls', file, '-d', out], io), 0);
  t.same(readdirSync(out).sort(), ['a.lean', 'b.lean']);
  t.equal(
    readFileSync(path.join(out, 'b.lean'), 'utf8'),
    'import Mathlib\n\ndef a : Nat := 1\n\ntheorem b : a = 1 := rfl\n',
    'the standalone content',
  );
  writeFileSync(path.join(out, 'a.lean'), 'mine');
  t.equal(await main(['extract-decls', file, '-d', out], io), 2, 'refused: usage exit code');
  t.match(err.join(''), /exist.*nothing written, use -f to overwrite/);
  t.equal(readFileSync(path.join(out, 'a.lean'), 'utf8'), 'mine', 'nothing overwritten');
  t.equal(await main(['extract-decls', file, '-d', out, '-f'], io), 0);
  t.equal(readFileSync(path.join(out, 'a.lean'), 'utf8'), 'import Mathlib\n\ndef a : Nat := 1\n');
  t.equal(
    await main(['theorem2sorry', file, '--no-reparse', '-d', path.join(dir, 'x')], io),
    2,
    '-d on a tool without documents is a usage error',
  );
  t.notOk(existsSync(path.join(dir, 'x')));
});
