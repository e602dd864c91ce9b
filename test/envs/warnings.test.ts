/** Startup warnings: environments that cannot run Lean, and a missing bubblewrap. */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { buildApp } from '../../src/app.ts';
import { environmentWarnings } from '../../src/envs/warnings.ts';
import { testConfig, testEnvironments, testProbe, UNAVAILABLE_ENV } from '../helpers.ts';

const cfg = testConfig();
const registry = { availability: (name: string) => testProbe(cfg.environments.find((e) => e.name === name)!) };

t.test('every environment that cannot run Lean is named with its reason and what that means', async (t) => {
  const w = environmentWarnings(cfg.environments, registry, 'none', () => ({ usable: true }));
  t.equal(w.length, 1);
  t.match(w[0]!.text, `environment ${UNAVAILABLE_ENV} cannot run Lean: no Lean toolchain found (test)`);
  t.match(w[0]!.text, /409 environment_unavailable/);
  t.same(w[0]!.environments, [UNAVAILABLE_ENV]);
});

t.test('environments that cannot run Lean for the same reason are one line, not one each', async (t) => {
  // As the probe words it: each reason names its own environment in the fix.
  const names = ['lean-4.21.0', 'lean-4.28.0', 'core-4.28.0'];
  const envs = names.map((name) => ({ ...cfg.environments[0]!, name }));
  const noToolchain = {
    availability: (name: string) => ({
      available: false as const,
      reason: `no Lean toolchain found; install elan, then run \`npm run lean:setup -- ${name}\``,
    }),
  };
  const w = environmentWarnings(envs, noToolchain, 'none', () => ({ usable: true }), {
    reparseFalse: ['theorem2sorry'],
  });
  t.equal(w.length, 1, 'one warning for the three');
  t.same(w[0]!.environments, names, 'the environments, as a field for machines');
  t.match(
    w[0]!.text,
    /^3 environments \(lean-4\.21\.0, lean-4\.28\.0, core-4\.28\.0\) cannot run Lean: no Lean toolchain found/,
  );
  t.match(w[0]!.text, 'npm run lean:setup -- NAME');
  t.match(w[0]!.text, 'theorem2sorry still answer with "reparse": false');
  const other = {
    availability: (name: string) =>
      name === 'core-4.28.0' ? { available: true as const } : noToolchain.availability(name),
  };
  t.same(
    environmentWarnings(envs, other, 'none', () => ({ usable: true })).map((x) => x.environments),
    [['lean-4.21.0', 'lean-4.28.0']],
    'only the ones that cannot',
  );
});

t.test('bubblewrap missing: warned when an environment asks for the jail, not otherwise', async (t) => {
  const missing = () => ({
    usable: false as const,
    reason: 'the sandbox is "bwrap" but bwrap is not installed (Debian: apt-get install bubblewrap)',
  });
  t.match(
    environmentWarnings(cfg.environments, registry, 'bwrap', missing).at(-1)?.text,
    /^bubblewrap: .*apt-get install bubblewrap/,
  );
  t.equal(environmentWarnings(cfg.environments, registry, 'none', missing).length, 1, 'no environment uses the jail');
  t.equal(environmentWarnings(cfg.environments, registry, 'bwrap', () => ({ usable: true })).length, 1, 'bwrap usable');
});

t.test('the daemon logs them at startup and lists them in /v1/status', async (t) => {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _e, cb) {
      for (const l of String(chunk).trim().split('\n')) lines.push(JSON.parse(l));
      cb();
    },
  });
  const app = await buildApp({
    config: testConfig({ environments: testEnvironments, lean: { sandbox: 'none', minWarm: 0 } }),
    probe: testProbe,
    logger: pino({ level: 'warn' }, sink),
  });
  t.teardown(() => app.close());
  await app.ready();
  t.ok(
    lines.some((l) => l.level === 40 && l.msg.startsWith(`environment ${UNAVAILABLE_ENV} cannot run Lean`)),
    'warned at startup',
  );
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json();
  t.ok(status.warnings.some((w: string) => w.startsWith(`environment ${UNAVAILABLE_ENV} cannot run Lean`)));
});
