/**
 * The comparator tool over comparator's own test projects (../shared/recorded/comparator/<tag>/tests/projects/,
 * each with the verdict comparator gave in test.json). The tool runs on the project's Challenge.lean and
 * Solution.lean at a pin of that tag, and comparator is a double that answers only recorded inputs
 * (test/fixtures/recorded-comparator.mjs): the same config.json and files as a recorded project, or exit 3.
 * So the tool must write the config comparator was tested with (theorem names, definition holes) and
 * report the recorded exit code as its verdict. The definition-hole projects (v4.30.0 on) are refused at the
 * pins that have no definition holes (v4.28.0, v4.29.0): no verdict, so nothing to cache.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ComparatorBackend } from '../../src/backend/comparator/runner.ts';
import { NO_LIMITS } from '../../src/backend/process/launch.ts';
import { PERMITTED_AXIOMS } from '../../src/backend/comparator/workspace.ts';
import { parseToolRequest } from '../../src/contract/validate.ts';
import { comparatorConfig } from '../../src/envs/comparator-config.ts';
import { isServiceError } from '../../src/errors.ts';
import { comparatorTool } from '../../src/tools/comparator.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { scriptedRunner, testEnv, toolCtx } from './runner.ts';

const DOUBLE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'recorded-comparator.mjs');
const SHA = 'a'.repeat(40);
const root = sharedPath('recorded/comparator');
const skip = sharedSkip('recorded/comparator');

interface Project {
  name: string;
  dir: string;
  challenge: string;
  solution: string;
  exitCode: number;
}

/** The projects of a tag the tool can pose: its own module names, Lean's three axioms, no second kernel. */
function projects(tag: string): { usable: Project[]; left: string[] } {
  const dir = path.join(root!, tag, 'tests', 'projects');
  const usable: Project[] = [];
  const left: string[] = [];
  for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
    const p = path.join(dir, name);
    const file = (f: string) => path.join(p, f);
    const isFile = (f: string) => existsSync(file(f)) && statSync(file(f)).isFile();
    const cfg = isFile('config.json')
      ? (JSON.parse(readFileSync(file('config.json'), 'utf8')) as Record<string, unknown>)
      : {};
    const posable =
      isFile('Challenge.lean') &&
      isFile('Solution.lean') &&
      cfg.challenge_module === 'Challenge' &&
      cfg.solution_module === 'Solution' &&
      JSON.stringify(cfg.permitted_axioms) === JSON.stringify(PERMITTED_AXIOMS) &&
      cfg.enable_nanoda === false;
    if (!posable) {
      left.push(name);
      continue;
    }
    usable.push({
      name,
      dir: p,
      challenge: readFileSync(file('Challenge.lean'), 'utf8'),
      solution: readFileSync(file('Solution.lean'), 'utf8'),
      exitCode: (JSON.parse(readFileSync(file('test.json'), 'utf8')) as { exit_code: number }).exit_code,
    });
  }
  return { usable, left };
}

/** The tool at a pin of `pinTag`, comparator replaying the recordings of `recordedTag`. */
function toolAt(pinTag: string, recordedTag: string) {
  const backend = new ComparatorBackend({
    root: '/r',
    config: comparatorConfig.parse({ pins: { [pinTag]: { comparator: SHA, lean4export: SHA } } }),
    sandbox: 'none',
    limits: NO_LIMITS,
    exists: () => true,
    parentEnv: process.env,
    tmpDir: mkdtempSync(path.join(os.tmpdir(), 'cmp-recorded-')),
    command: (i) => ({
      argv: [process.execPath, DOUBLE],
      cwd: i.workspace,
      env: {
        PATH: process.env.PATH ?? '',
        RECORDED_COMPARATOR_DIR: path.join(root!, recordedTag, 'tests', 'projects'),
      },
      readOnly: [],
      writable: i.workspace,
    }),
  });
  const env = { ...testEnv, name: `lean-${pinTag.slice(1)}`, lean_toolchain: `leanprover/lean4:${pinTag}` };
  return {
    tool: comparatorTool(backend),
    ctx: toolCtx(
      scriptedRunner(() => ({})),
      env,
    ),
  };
}

const request = (p: Project) =>
  // As written: the recorded files are what comparator built (no header substituted).
  parseToolRequest('comparator', {
    formal_statement: p.challenge,
    content: p.solution,
    environment: 'x',
    ignore_imports: false,
  });

for (const tag of ['v4.28.0', 'v4.30.0', 'v4.34.0-rc2'])
  t.test(
    `each recorded project of comparator ${tag}: the tool's verdict is the recorded exit code`,
    { skip },
    async (t) => {
      const { usable, left } = projects(tag);
      if (usable.length === 0) return t.fail(`no posable project under ${tag}`);
      if (left.length) t.comment(`not posable by the tool (other modules, axioms or kernels): ${left.join(', ')}`);
      const { tool, ctx } = toolAt(tag, tag);
      for (const p of usable) {
        const r = await tool.run(request(p), ctx);
        t.equal(
          r.exit_status,
          p.exitCode,
          `${tag} ${p.name}: exit ${p.exitCode} (${r.output.split('\n').at(-2) ?? ''})`,
        );
        t.equal(r.okay, p.exitCode === 0, `${tag} ${p.name}: okay`);
        t.equal(tool.cacheable!(r), true, `${tag} ${p.name}: a verdict, cacheable`);
      }
    },
  );

for (const pin of ['v4.28.0', 'v4.29.0'])
  t.test(`the definition-hole projects are refused at the ${pin} pin, naming why`, { skip }, async (t) => {
    const holes = projects('v4.30.0').usable.filter((p) => p.name.startsWith('def_hole'));
    t.ok(holes.length >= 4, 'the recorded definition-hole projects');
    const { tool, ctx } = toolAt(pin, pin);
    for (const p of holes) {
      const e = await tool.run(request(p), ctx).then(
        (r) => r,
        (x: unknown) => x,
      );
      t.ok(
        isServiceError(e) && e.code === 'invalid_request',
        `${p.name}: refused, not judged (got ${JSON.stringify(e).slice(0, 160)})`,
      );
      t.match(
        (e as Error).message,
        new RegExp(`definition holes \\(sorried definitions: n\\); comparator ${pin.replace(/\./g, '\\.')}`),
      );
      t.match((e as Error).message, /use an environment at Lean v4\.30\.0 or later/);
    }
  });
