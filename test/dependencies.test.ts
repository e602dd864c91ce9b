/**
 * What an install without dev packages (`npm ci --omit=dev`, the container image) runs must be
 * in `dependencies`: a package script an operator runs there (`lean:setup`, `lean:doctor`,
 * `config:defaults`) that loads a package through `--import` needs that package at run time
 * (docs/architecture.md, on tsx).
 */
import { readFileSync } from 'node:fs';
import t from 'tap';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The scripts run on a production install (the rest are development: build, test, lint, bench, start:dev). */
const OPERATOR_SCRIPTS = ['start', 'lean:setup', 'lean:doctor', 'config:defaults'];

t.test('the packages an operator script imports are runtime dependencies', async (t) => {
  for (const name of OPERATOR_SCRIPTS) {
    const script = pkg.scripts[name];
    t.ok(script, `${name} exists`);
    for (const m of (script ?? '').matchAll(/--import[= ](\S+)/g)) {
      const imported = m[1]!;
      if (imported.startsWith('.')) continue;
      t.ok(Object.hasOwn(pkg.dependencies, imported), `${name}: ${imported} is in dependencies`);
    }
  }
  t.ok(Object.hasOwn(pkg.dependencies, 'tsx'), 'tsx: the runtime fallback of bin/lean-tool.js and the worker entries');
  t.notOk(Object.hasOwn(pkg.devDependencies, 'tsx'), 'not in both lists');
});
