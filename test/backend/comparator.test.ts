/**
 * comparator's workspace, command line and run, with a process double of comparator
 * (test/fixtures/fake-comparator.mjs): what is written where, which paths are read-only,
 * the memory cap and the deadline, bounded output, the success phrase and exit statuses.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { comparatorCommand } from '../../src/backend/comparator/command.ts';
import { BoundedOutput, isVerdict } from '../../src/backend/comparator/output.ts';
import { ComparatorBackend, SUCCESS_PHRASE } from '../../src/backend/comparator/runner.ts';
import { workspaceFiles } from '../../src/backend/comparator/workspace.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { JAIL_WORKDIR } from '../../src/backend/process/sandbox.ts';
import { comparatorConfig, readsToolVariables } from '../../src/envs/comparator-config.ts';
import { environmentConfig } from '../../src/envs/config.ts';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-comparator.mjs');
const env = environmentConfig.parse({
  name: 'e',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/srv/envs/e',
});
const tools = {
  comparator: '/b/comparator-v4.28.0/.lake/build/bin/comparator',
  lean4export: '/b/comparator-v4.28.0/.lake/packages/lean4export/.lake/build/bin/lean4export',
  landrun: '/b/landrun/landrun',
};

t.test(
  'workspace: two lean_libs, comparator config with theorem and definition names; shared packages through the manifest',
  async (t) => {
    const input = {
      challenge: 'theorem a : True := sorry\n',
      solution: 'theorem a : True := trivial\n',
      theoremNames: ['a'],
      definitionNames: ['d'],
      toolchain: 'leanprover/lean4:v4.28.0',
      projectDir: '/srv/envs/e',
      runDir: JAIL_WORKDIR,
    };
    const bare = workspaceFiles(input, undefined);
    t.same(Object.keys(bare).sort(), [
      'Challenge.lean',
      'Solution.lean',
      'config.json',
      'lakefile.toml',
      'lean-toolchain',
    ]);
    t.equal(bare['lean-toolchain'], 'leanprover/lean4:v4.28.0\n');
    t.equal(bare['Challenge.lean'], input.challenge);
    t.equal(bare['Solution.lean'], input.solution);
    t.same(JSON.parse(bare['config.json']!), {
      challenge_module: 'Challenge',
      solution_module: 'Solution',
      theorem_names: ['a'],
      definition_names: ['d'],
      permitted_axioms: ['propext', 'Quot.sound', 'Classical.choice'],
      // Issue 27, defect 2: `enable_nanoda : Bool` has no default [comparator v4.28.0 … v4.33.0: Main.lean, `Config`].
      enable_nanoda: false,
    });
    t.match(bare['lakefile.toml'], /\[\[lean_lib\]\]\nname = "Challenge"\n\n\[\[lean_lib\]\]\nname = "Solution"/);
    t.notMatch(bare['lakefile.toml'], /packagesDir|require/);
    t.notOk(
      'definition_names' in JSON.parse(workspaceFiles({ ...input, definitionNames: [] }, undefined)['config.json']!),
    );

    const manifest = JSON.stringify({
      version: '1.1.0',
      packagesDir: '.lake/packages',
      name: 'env_e',
      packages: [
        {
          type: 'git',
          name: 'mathlib',
          scope: 'leanprover-community',
          url: 'https://github.com/leanprover-community/mathlib4',
          rev: 'abc',
          inherited: false,
        },
        {
          type: 'git',
          name: 'batteries',
          url: 'https://github.com/leanprover-community/batteries',
          rev: 'def',
          inherited: true,
        },
      ],
    });
    const shared = workspaceFiles(input, manifest);
    t.match(shared['lakefile.toml'], 'packagesDir = "../srv/envs/e/.lake/packages"');
    t.match(
      shared['lakefile.toml'],
      /\[\[require\]\]\nname = "mathlib"\nscope = "leanprover-community"\ngit = "https:\/\/github.com\/leanprover-community\/mathlib4"\nrev = "abc"/,
    );
    t.notMatch(shared['lakefile.toml'], /batteries/, 'inherited packages come from the manifest, not from a require');
    const m = JSON.parse(shared['lake-manifest.json']!);
    t.equal(m.packagesDir, '../srv/envs/e/.lake/packages');
    t.equal(m.name, 'comparator_scratch');
    t.equal(m.packages.length, 2);
  },
);

t.test(
  'command line: bwrap with read-only toolchain, project and builds; only the workspace writable; memory cap',
  async (t) => {
    const parent = { PATH: '/usr/bin:/bin', HOME: '/home/u' };
    const c = comparatorCommand(
      {
        tools,
        toolchain: env.lean_toolchain,
        projectDir: env.project_dir,
        workspace: '/tmp/comparator-x',
        memoryMb: 1234,
        limits: { ...NO_LIMITS, maxProcesses: 99 },
        sandbox: 'bwrap',
      },
      parent,
    );
    const a = c.argv;
    const ro = (p: string) => a.some((x, i) => x === '--ro-bind-try' && a[i + 1] === p && a[i + 2] === p);
    t.ok(ro('/home/u/.elan'), 'elan home read-only');
    t.ok(ro('/srv/envs/e'), 'environment project read-only');
    t.ok(
      ro(path.dirname(tools.comparator)) && ro(path.dirname(tools.lean4export)) && ro(path.dirname(tools.landrun)),
      'builds read-only',
    );
    const bind = a.indexOf('--bind');
    t.same(
      a.slice(bind, bind + 3),
      ['--bind', '/tmp/comparator-x', JAIL_WORKDIR],
      'the workspace is the writable workdir',
    );
    t.ok(bind < a.indexOf('--remount-ro'), 'bound before the root turns read-only');
    t.equal(a.filter((x) => x === '--bind').length, 1, 'nothing else writable');
    t.ok(a.includes('--unshare-all') && a.includes('--die-with-parent'), 'no network, dies with the daemon');
    const sep = a.indexOf('--');
    const inner = a.slice(sep + 1);
    t.match(inner[0], /prlimit$/);
    t.ok(inner.includes(`--as=${1234 * 2 ** 20}`), 'memory_limit_mb is the address-space cap');
    t.ok(inner.includes('--nproc=99'));
    t.same(inner.slice(-4), ['lake', 'env', tools.comparator, 'config.json']);
    t.equal(c.env.COMPARATOR_LEAN4EXPORT, tools.lean4export);
    t.equal(c.env.COMPARATOR_LANDRUN, tools.landrun);
    // Issue 27, defect 3: comparator v4.28.0/v4.29.0 runs `landrun` and `lean4export` from PATH only.
    t.same(
      c.env.PATH!.split(path.delimiter),
      [path.dirname(tools.lean4export), path.dirname(tools.landrun), '/usr/bin', '/bin', '/home/u/.elan/bin'],
      'the pinned builds first on PATH',
    );
    t.equal(c.env.ELAN_TOOLCHAIN, 'leanprover/lean4:v4.28.0');
    t.ok(a.includes('HOME') && a[a.indexOf('HOME') + 1] === JAIL_WORKDIR, 'HOME is the workspace inside the jail');

    const none = comparatorCommand(
      {
        tools,
        toolchain: env.lean_toolchain,
        projectDir: env.project_dir,
        workspace: '/tmp/w',
        memoryMb: 10,
        limits: NO_LIMITS,
        sandbox: 'none',
      },
      parent,
    );
    t.equal(none.cwd, '/tmp/w');
    t.notOk(none.argv.some((x) => x.endsWith('bwrap')));
    t.ok(none.argv.includes(`--as=${10 * 2 ** 20}`));
  },
);

t.test('bounded output keeps head and tail and says how much it elided', async (t) => {
  const o = new BoundedOutput(20);
  for (let i = 0; i < 1000; i++) o.push('abcdefghij');
  const s = o.text();
  t.ok(s.startsWith('abcdefghij'));
  t.ok(s.endsWith('abcdefghij'));
  t.match(s, /\[9980 characters of output omitted\]/);
  const small = new BoundedOutput(100);
  small.push('short');
  t.equal(small.text(), 'short');
});

const backend = (over: Partial<ConstructorParameters<typeof ComparatorBackend>[0]> = {}) =>
  new ComparatorBackend({
    root: '/r',
    config: comparatorConfig.parse({
      outputLimitBytes: 2000,
      pins: { 'v4.28.0': { comparator: 'a'.repeat(40), lean4export: 'b'.repeat(40) } },
    }),
    sandbox: 'none',
    limits: NO_LIMITS,
    exists: () => true,
    parentEnv: process.env,
    tmpDir: mkdtempSync(path.join(os.tmpdir(), 'cmp-test-')),
    command: (i) => ({
      argv: [process.execPath, FAKE, 'config.json'],
      cwd: i.workspace,
      env: {
        PATH: process.env.PATH ?? '',
        COMPARATOR_LEAN4EXPORT: i.tools.lean4export,
        COMPARATOR_LANDRUN: i.tools.landrun,
      },
      readOnly: [],
      writable: i.workspace,
    }),
    ...over,
  });
const req = (solution: string, signal = new AbortController().signal) => ({
  env,
  challenge: 'theorem a : True := sorry\n',
  solution,
  theoremNames: ['a'],
  definitionNames: [],
  memoryMb: 100,
  signal,
});

t.test(
  'a run writes the workspace, passes the tools, detects the success phrase, and removes the workspace',
  async (t) => {
    const b = backend();
    const r = await b.run(req('-- FAKE: okay\ntheorem a : True := trivial\n'), tools);
    t.equal(r.exitStatus, 0);
    t.equal(r.okay, true);
    t.match(r.output, 'FILES ["Challenge.lean","Solution.lean","config.json","lakefile.toml","lean-toolchain"]');
    t.match(r.output, '"theorem_names":["a"]');
    t.match(r.output, `"l":"${tools.lean4export}"`);
    t.match(r.output, SUCCESS_PHRASE);
  },
);

t.test(
  'non-zero exits are mapped and never okay, even when the phrase was printed; the phrase must be last',
  async (t) => {
    const fail = await backend().run(req('-- FAKE: fail\n'), tools);
    t.equal(fail.exitStatus, 1);
    t.equal(fail.okay, false);
    t.match(fail.output, 'uncaught exception');
    const cheat = await backend().run(req('-- FAKE: phrase-then-fail\n'), tools);
    t.equal(cheat.exitStatus, 1);
    t.equal(cheat.okay, false);
    const mid = await backend().run(req('-- FAKE: phrase-mid\n'), tools);
    t.equal(mid.exitStatus, 0);
    t.equal(mid.okay, false, 'a phrase printed by the solution build is not the verdict');
  },
);

t.test('output is bounded; the verdict is still read from the full stream', async (t) => {
  const r = await backend().run(req('-- FAKE: spam 5000\n'), tools);
  t.ok(r.output.length < 2200, `output bounded (${r.output.length} characters)`);
  t.match(r.output, /characters of output omitted/);
  t.equal(r.okay, true);
});

t.test('the deadline kills the run and its group; the workspace is removed', async (t) => {
  const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'cmp-dl-'));
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(), 300);
  const r = await backend({ tmpDir }).run(req('-- FAKE: hang\n', ctrl.signal), tools);
  // Returned at the deadline, not when the run would end (it hangs): it was killed.
  t.equal(r.exitStatus, 128 + os.constants.signals.SIGKILL, 'killed at the deadline');
  t.equal(r.okay, false);
  t.same(readdirSync(tmpDir), [], 'no workspace left behind');
});

t.test('a missing build is named, not run', async (t) => {
  const b = backend({ exists: (f) => !f.includes('lean4export'), parentEnv: { PATH: '/nonexistent' } });
  const l = b.locate(env);
  t.ok('missing' in l);
  if ('missing' in l) {
    t.match(l.missing.join('\n'), /the lean4export build .*lean4export/);
    t.match(l.missing.join('\n'), /git on PATH/);
    t.notMatch(l.missing.join('\n'), /comparator build/);
    t.match(ComparatorBackend.describeMissing(env, l.missing), /lean:setup/);
  }
  const nopin = backend({ config: comparatorConfig.parse({}) }).locate(
    environmentConfig.parse({ ...env, lean_toolchain: 'leanprover/lean4:v4.99.0' }),
  );
  t.ok('missing' in nopin && nopin.missing.some((m) => /comparator pin for v4\.99\.0/.test(m)));
  t.notOk(existsSync('/r'), 'locate writes nothing');
});

t.test("a request cannot raise the memory cap above the daemon's address-space limit", async (t) => {
  const seen: number[] = [];
  const b = backend({
    limits: { ...NO_LIMITS, addressSpaceMb: 4096 },
    command: (i) => {
      seen.push(i.memoryMb);
      return {
        argv: [process.execPath, FAKE],
        cwd: i.workspace,
        env: { PATH: process.env.PATH ?? '' },
        readOnly: [],
        writable: i.workspace,
      };
    },
  });
  await b.run({ ...req('-- FAKE: okay\n'), memoryMb: 100_000 }, tools);
  await b.run({ ...req('-- FAKE: okay\n'), memoryMb: 512 }, tools);
  t.same(seen, [4096, 512]);
});

// Issue 27, defect 3: the "shim" setting names comparator's scripts/fake-landrun.sh, which exists (and is
// read through COMPARATOR_LANDRUN) from comparator v4.30.0 only [comparator: scripts/, Main.lean `M.run`].
t.test('the landrun shim is refused where comparator has none (before v4.30.0)', async (t) => {
  const shim = (tag: string) =>
    backend({
      config: comparatorConfig.parse({
        landrun: 'shim',
        pins: { [tag]: { comparator: 'a'.repeat(40), lean4export: 'b'.repeat(40) } },
      }),
    }).locate(environmentConfig.parse({ ...env, lean_toolchain: `leanprover/lean4:${tag}` }));
  const old = shim('v4.29.0');
  t.ok('missing' in old && old.missing.some((m) => /has no scripts\/fake-landrun\.sh/.test(m)), 'v4.29.0');
  t.ok('tools' in shim('v4.30.0'), 'v4.30.0 has the shim');
  t.same(['v4.28.0', 'v4.30.0-rc2', 'v4.30.0', 'v4.31.0-rc1', 'v4.33.0'].map(readsToolVariables), [
    false,
    false,
    true,
    true,
    true,
  ]);
});

// Issue 27, defect 2: which finished runs are verdicts, by comparator's stage lines [comparator v4.28.0 … v4.33.0:
// Main.lean, `compareIt` prints `Building <module>` (safeLakeBuild) for the challenge, then the solution].
t.test('isVerdict: okay, or exit 1 once the solution is being built; nothing else', async (t) => {
  const stages = (...lines: string[]) => `${lines.join('\n')}\nuncaught exception: Child exited with 1\n`;
  t.equal(isVerdict(1, 'uncaught exception: (a failure before any stage line)\n', 'Solution'), false);
  t.equal(isVerdict(1, stages('Building Challenge'), 'Solution'), false, "the challenge's build (or the sandbox)");
  t.equal(isVerdict(1, stages('Building Challenge', 'Exporting #[a] from Challenge'), 'Solution'), false);
  t.equal(
    isVerdict(1, stages('Building Challenge', 'Exporting #[a] from Challenge', 'Building Solution'), 'Solution'),
    true,
  );
  t.equal(isVerdict(0, `Building Solution\n${SUCCESS_PHRASE}\n`, 'Solution'), true);
  t.equal(isVerdict(137, stages('Building Solution'), 'Solution'), false, 'killed at the deadline');
  t.equal(isVerdict(1, stages('  Building Solution  '), 'Solution'), true, 'surrounding blanks');
  t.equal(
    isVerdict(1, stages('info: Building Solution'), 'Solution'),
    false,
    'a build message quoting it is not the stage line',
  );
  const out = new BoundedOutput(200);
  out.push(`Building Challenge\n${'x'.repeat(1000)}\nBuilding Solution\n${'y'.repeat(1000)}\nuncaught exception\n`);
  t.equal(
    isVerdict(1, out.text(), 'Solution'),
    false,
    'the stage line elided from the bounded output: not cached (safe side)',
  );
});
