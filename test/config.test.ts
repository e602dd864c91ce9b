import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig, PROJECT_ROOT } from '../src/config.ts';

t.test('the shipped config loads with documented defaults', async (t) => {
  const c = loadConfig({ LEAN_TOOL_CONFIG: '/nonexistent/overlay.json' });
  t.equal(c.server.host, '127.0.0.1');
  t.equal(c.server.port, 8080);
  t.equal(c.admission.anonymousConcurrency, 1);
  t.equal(c.admission.keyConcurrency, 20);
  t.equal(c.admission.maxTimeoutSeconds, 900);
  t.ok(c.environments.length >= 1);
  for (const e of c.environments) t.ok(path.isAbsolute(e.project_dir), 'project dirs resolve against the project root');
});

t.test('HOST, PORT and key variables override the files', async (t) => {
  const c = loadConfig({ HOST: '0.0.0.0', PORT: '9999', LEAN_TOOL_API_KEYS: 'aaaaaaaa1, bbbbbbbb2', LEAN_TOOL_ADMIN_KEYS: 'adminadmin', LEAN_TOOL_CONFIG: '/nonexistent' });
  t.equal(c.server.host, '0.0.0.0');
  t.equal(c.server.port, 9999);
  t.same(c.keys.map((k) => [k.key, k.admin]), [['aaaaaaaa1', false], ['bbbbbbbb2', false], ['adminadmin', true]]);
  t.throws(() => loadConfig({ PORT: 'http', LEAN_TOOL_CONFIG: '/nonexistent' }), /PORT/);
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
