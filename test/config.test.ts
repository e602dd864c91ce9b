import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig, loadConfigFiles, PROJECT_ROOT } from '../src/config.ts';
import { TS_LOADER } from './ts-loader.ts';

/** An empty overlay, so a developer's config/local.json cannot change what these tests see. */
const none = (() => {
  const f = path.join(mkdtempSync(path.join(os.tmpdir(), 'cfg-none-')), 'none.json');
  writeFileSync(f, '{}');
  return f;
})();

t.test('the shipped config loads with documented defaults', async (t) => {
  const c = loadConfig({ LEAN_TOOL_CONFIG: none });
  t.equal(c.server.host, '127.0.0.1');
  t.equal(c.server.port, 8080);
  t.equal(c.admission.anonymousConcurrency, 1);
  t.equal(c.admission.keyConcurrency, 20);
  t.equal(c.admission.maxTimeoutSeconds, 900);
  t.ok(c.environments.length >= 1);
  for (const e of c.environments) t.ok(path.isAbsolute(e.project_dir), 'project dirs resolve against the project root');
});

t.test('HOST, PORT and key variables override the files', async (t) => {
  const c = loadConfig({
    HOST: '0.0.0.0',
    PORT: '9999',
    LEAN_TOOL_API_KEYS: 'aaaaaaaa1, bbbbbbbb2',
    LEAN_TOOL_ADMIN_KEYS: 'adminadmin',
    LEAN_TOOL_CONFIG: none,
  });
  t.equal(c.server.host, '0.0.0.0');
  t.equal(c.server.port, 9999);
  t.same(
    c.keys.map((k) => [k.key, k.admin]),
    [
      ['aaaaaaaa1', false],
      ['bbbbbbbb2', false],
      ['adminadmin', true],
    ],
  );
  t.throws(() => loadConfig({ PORT: 'http', LEAN_TOOL_CONFIG: none }), /PORT/);
});

t.test('an overlay file replaces sections key by key; bad config is refused with the field named', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
  mkdirSync(path.join(dir, 'config'));
  writeFileSync(path.join(dir, 'config', 'default.json'), JSON.stringify({ server: { port: 1 }, environments: [] }));
  writeFileSync(path.join(dir, 'overlay.json'), JSON.stringify({ admission: { keyConcurrency: 5 } }));
  const c = loadConfig({ LEAN_TOOL_CONFIG: path.join(dir, 'overlay.json') }, dir);
  t.equal(c.admission.keyConcurrency, 5);
  t.equal(c.admission.anonymousConcurrency, 1);
  t.equal(c.server.port, 1);
  writeFileSync(path.join(dir, 'overlay.json'), JSON.stringify({ admission: { keyConcurrency: -1 } }));
  t.throws(() => loadConfig({ LEAN_TOOL_CONFIG: path.join(dir, 'overlay.json') }, dir), /keyConcurrency/);
  t.ok(PROJECT_ROOT.length > 0);
});

t.test('config errors are one line naming the setting', async (t) => {
  const short = t.throws(() =>
    loadConfig({ LEAN_TOOL_API_KEYS: 'goodgoodkey,short', LEAN_TOOL_CONFIG: none }),
  ) as Error;
  t.ok(short instanceof ConfigError);
  t.match(
    short.message,
    /^LEAN_TOOL_API_KEYS: key 2 of 2 is invalid: API keys must be at least 8 characters \(it has 5\)$/,
  );
  t.notMatch(short.message, /short/, 'the key itself is never printed');
  t.notMatch(short.message, /\n/, 'one line');
  t.match(
    (t.throws(() => loadConfig({ LEAN_TOOL_ADMIN_KEYS: 'x', LEAN_TOOL_CONFIG: none })) as Error).message,
    /^LEAN_TOOL_ADMIN_KEYS: /,
  );

  const missing = t.throws(() => loadConfig({ LEAN_TOOL_CONFIG: '/nonexistent/overlay.json' })) as Error;
  t.ok(missing instanceof ConfigError);
  t.equal(
    missing.message,
    'LEAN_TOOL_CONFIG names /nonexistent/overlay.json, which does not exist (unset it to use config/local.json when present)',
  );
  t.ok(
    loadConfig({ LEAN_TOOL_CONFIG: '/nonexistent/overlay.json' }, PROJECT_ROOT, { overlayMayBeMissing: true }),
    'lean:setup may name the file it is about to write',
  );

  const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
  mkdirSync(path.join(dir, 'config'));
  writeFileSync(path.join(dir, 'config', 'default.json'), JSON.stringify({ environments: [] }));
  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ admission: { keyConcurrency: 0 }, server: { prot: 1 } }));
  const e = t.throws(() => loadConfig({ LEAN_TOOL_CONFIG: bad }, dir)) as Error;
  t.match(e.message, /^invalid configuration in config\/default\.json \+ .*bad\.json: /);
  t.match(e.message, /admission\.keyConcurrency: /);
  t.match(e.message, /server: unknown setting prot/);
  t.notMatch(e.message, /\n/, 'one line');
  writeFileSync(bad, '{ nope');
  t.match(
    (t.throws(() => loadConfig({ LEAN_TOOL_CONFIG: bad }, dir)) as Error).message,
    /^LEAN_TOOL_CONFIG: .*bad\.json is not valid JSON/,
  );
});

t.test('the files loaded are reported', async (t) => {
  const r = loadConfigFiles({ LEAN_TOOL_CONFIG: none });
  t.same(r.files, [path.join(PROJECT_ROOT, 'config', 'default.json'), none]);
});

t.test('the daemon stops with one line on a config error (no stack)', async (t) => {
  for (const [env, pattern] of [
    [
      { LEAN_TOOL_CONFIG: '/nonexistent/overlay.json' },
      /LEAN_TOOL_CONFIG names \/nonexistent\/overlay\.json, which does not exist/,
    ],
    [{ LEAN_TOOL_CONFIG: none, LEAN_TOOL_API_KEYS: 'short' }, /LEAN_TOOL_API_KEYS: key 1 of 1 is invalid/],
  ] as const) {
    const r = spawnSync(process.execPath, [...TS_LOADER, path.join(PROJECT_ROOT, 'src', 'main.ts')], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, PORT: '0', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    t.equal(r.status, 1);
    t.match(r.stderr, pattern);
    t.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr.trim()}`);
    t.notMatch(r.stderr, /ZodError|at .*\.ts:\d+/, 'no stack');
  }
});
