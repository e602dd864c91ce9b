/**
 * What a newcomer meets first: the sample files the README and docs/ name exist, their commands run against
 * the daemon as written (structural ones: no Lean needed), every script and CLI flag is
 * documented, and the engines field covers what the dependencies declare.
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { main } from '../src/client/cli.ts';
import { PROJECT_ROOT } from '../src/config.ts';
import { makeApp, UNAVAILABLE_ENV } from './helpers.ts';
import { captureIo } from './helpers/cli-io.ts';
import { TS_LOADER } from './ts-loader.ts';

/** The documentation a newcomer reads: the README and the pages of docs/ it links to. */
const readme = [
  path.join(PROJECT_ROOT, 'README.md'),
  ...readdirSync(path.join(PROJECT_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(PROJECT_ROOT, 'docs', f)),
]
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');
const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: { node: string };
};

const io = captureIo;

t.test('every examples/ file the README names exists, and every file there is used', async (t) => {
  const named = new Set([...readme.matchAll(/examples\/([\w.-]+\.\w+)/g)].map((m) => m[1]!));
  t.ok(named.size >= 5, `${named.size} sample files named`);
  for (const f of named) t.ok(existsSync(path.join(PROJECT_ROOT, 'examples', f)), `examples/${f} exists`);
  for (const f of readdirSync(path.join(PROJECT_ROOT, 'examples')))
    t.ok(named.has(f), `examples/${f} is named in the README`);
  t.notMatch(
    readme,
    /\]\(\.\.\/shared|`\.\.\/shared\/(spec|design)/,
    'no link into ../shared as if it were part of the repository',
  );
});

t.test('every npm script and every CLI option is in the README', async (t) => {
  for (const s of Object.keys(pkg.scripts)) {
    // Lifecycle hooks (prestart) run by themselves; the README names them where it explains their script.
    if (/^(pre|post)/.test(s)) t.match(readme, `\`${s}\``, `hook ${s}`);
    else t.match(readme, s === 'start' || s === 'test' ? `npm ${s}` : `npm run ${s}`, `script ${s}`);
  }
  t.match(readme, 'npm run lean:setup -- lean-4.28.0');
  t.match(readme, '--dry-run');
  const cli = readFileSync(path.join(PROJECT_ROOT, 'src', 'client', 'cli.ts'), 'utf8');
  const flags = new Set([...cli.matchAll(/'(--?[a-zA-Z][\w-]*)'/g)].map((m) => m[1]!));
  for (const f of flags) t.match(readme, new RegExp(`\`[^\`]*${f.replace(/[-]/g, '\\-')}\\b`), `flag ${f}`);
  t.match(
    readme,
    "import { LeanToolClient, ServiceRequestError } from './src/client/client.ts';",
    'the client import path',
  );
  t.match(readme, /\{"id": "only-b", "content": .*"names": \["b"\]\}/, 'a JSONL batch line');
});

t.test("the README's structural commands run as written", async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  const env = { SERVICE_API_URL: url };
  const ex = (f: string) => path.join(PROJECT_ROOT, 'examples', f);
  const at = (args: string[]) =>
    args.map((a) => (a.startsWith('examples/') ? ex(a.slice(9)) : a === 'lean-4.28.0' ? UNAVAILABLE_ENV : a));

  const a = io(env);
  t.equal(
    await main(at(['theorem2sorry', 'examples/solution.lean', '--no-reparse', '--environment', 'lean-4.28.0']), a.io),
    0,
  );
  t.match(a.out.stdout, /theorem two_eq_two : 2 = 2 := sorry\n\ntheorem and_swap/);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'readme-'));
  const b = io(env);
  t.equal(
    await main(
      at([
        'theorem2sorry',
        'examples/solution.lean',
        '-o',
        path.join(dir, 'problem.lean'),
        '--environment',
        'lean-4.28.0',
        '--no-reparse',
      ]),
      b.io,
    ),
    0,
  );
  t.match(b.out.stderr, 'Output written to');

  const c = io(env, readFileSync(ex('solution.lean'), 'utf8'));
  t.equal(
    await main(
      at(['theorem2sorry', '-', '--names', 'two_eq_two', '--no-reparse', '--environment', 'lean-4.28.0']),
      c.io,
    ),
    0,
  );
  t.match(c.out.stdout, /two_eq_two : 2 = 2 := sorry/);
  t.match(c.out.stdout, /and_swap .* := by\n  have hp/s, 'unselected theorems keep their proofs');

  const d = io(env);
  t.equal(
    await main(
      at([
        'rename',
        'examples/solution.lean',
        '--declarations-file',
        'examples/renames.json',
        '--no-reparse',
        '--environment',
        'lean-4.28.0',
      ]),
      d.io,
    ),
    0,
  );
  t.match(d.out.stdout, /theorem two_is_two : 2 = 2 := rfl/);
  t.match(d.out.stdout, /theorem and_comm_of_and/);

  const e = io(env);
  t.equal(
    await main(
      at([
        '--url',
        url,
        'verify-proof',
        'examples/statement.lean',
        'examples/proof.lean',
        '--strict',
        '--environment',
        'lean-4.28.0',
      ]),
      e.io,
    ),
    1,
    'needs Lean: exit 1 with the reason',
  );
  t.match(e.out.stderr, /environment_unavailable \(409\)/);

  const f = io(env);
  t.equal(
    await main(
      at([
        'theorem2sorry',
        '--batch',
        'examples/records.jsonl',
        '--no-reparse',
        '--out-dir',
        path.join(dir, 'out'),
        '--concurrency',
        '8',
        '--environment',
        'lean-4.28.0',
      ]),
      f.io,
    ),
    0,
  );
  const results = readFileSync(path.join(dir, 'out', 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(results.map((r) => r.input).sort(), ['first', 'only-b']);

  const g = await execa(process.execPath, [...TS_LOADER, ex('client.ts')], {
    env: { ...process.env, SERVICE_API_URL: url, SERVICE_ENVIRONMENT: UNAVAILABLE_ENV },
    reject: false,
  });
  t.equal(g.exitCode, 0, String(g.stderr));
  t.match(String(g.stdout), /theorem two_eq_two : 2 = 2 := sorry/);
  t.match(String(g.stdout), /check: 409 environment_unavailable: environment lean-missing cannot run Lean/);
});

t.test('engines: at least what every installed dependency declares', async (t) => {
  t.equal(pkg.engines.node, '>=20.19');
  t.match(readme, 'Node.js ≥ 20.19');
  // The highest floor among the dependencies' engines.node that exclude Node 20 entirely would be a lie here.
  const lock = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } }>;
  };
  // A range admits Node 20.19 when one of its `||` alternatives does (`>=23.5.0 || ^22.13.0 || ^20.17.0` does).
  const admits2019 = (range: string) =>
    range.split('||').some((alt) => {
      const a = alt.trim();
      const caret = /^\^20\.(\d+)/.exec(a);
      if (caret) return Number(caret[1]) <= 19;
      const floor = /^>=\s*(\d+)(?:\.(\d+))?/.exec(a);
      return floor ? Number(floor[1]) < 20 || (Number(floor[1]) === 20 && Number(floor[2] ?? 0) <= 19) : true;
    });
  const excludes20 = Object.entries(lock.packages)
    .filter(([, p]) => p.engines?.node !== undefined && !admits2019(p.engines.node))
    .map(([k]) => k);
  t.equal(admits2019('>=23.5.0 || ^22.13.0 || ^20.17.0'), true);
  t.equal(admits2019('>=22.0.0'), false);
  t.same(excludes20, [], 'no dependency requires Node ≥ 21');
});
