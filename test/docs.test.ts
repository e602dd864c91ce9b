/**
 * The documentation stays true: every relative link between README.md and docs/ reaches a file
 * (and a heading, when it names one), every configuration setting is documented exactly once,
 * and the README stays a first screen, not a manual.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const ROOT = path.join(import.meta.dirname, '..');
const DOCS = path.join(ROOT, 'docs');
const pages = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f)),
];

/** Text outside fenced code blocks (a link inside a code sample is not a link). */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');

function anchorsIn(file: string): Set<string> {
  return new Set([...prose(readFileSync(file, 'utf8')).matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]!)));
}

t.test('every relative link reaches its file and heading', async (t) => {
  const broken: string[] = [];
  let links = 0;
  for (const page of pages) {
    for (const m of prose(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      links++;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const dest = file ? path.resolve(path.dirname(page), file) : page;
      if (!existsSync(dest)) broken.push(`${path.relative(ROOT, page)}: ${target} (no such file)`);
      else if (anchor && dest.endsWith('.md') && !anchorsIn(dest).has(anchor))
        broken.push(`${path.relative(ROOT, page)}: ${target} (no such heading)`);
    }
  }
  t.ok(links > 50, `${links} relative links checked`);
  t.same(broken, [], 'no broken link');
});

/** The settings of config/default.json as dotted paths; `environments` and the comparator pins are documented as wholes. */
function settings(node: unknown, prefix = ''): string[] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [prefix];
  if (prefix === 'environments' || prefix === 'comparator.pins') return [prefix];
  return Object.entries(node).flatMap(([k, v]) => settings(v, prefix ? `${prefix}.${k}` : k));
}

/** Each `name` in the first cell of a table row whose table's header starts with "setting". */
function documentedSettings(): string[] {
  const names: string[] = [];
  for (const page of pages) {
    let inSettings = false;
    for (const line of prose(readFileSync(page, 'utf8')).split('\n')) {
      if (!line.startsWith('|')) inSettings = false;
      else if (/^\| setting\b/.test(line)) inSettings = true;
      else if (inSettings && !line.startsWith('|---'))
        for (const m of line.split('|')[1]!.matchAll(/`([^`]+)`/g)) names.push(m[1]!);
    }
  }
  return names;
}

t.test('every configuration setting is documented exactly once, and only real ones', async (t) => {
  const config = JSON.parse(readFileSync(path.join(ROOT, 'config', 'default.json'), 'utf8')) as object;
  const real = settings(config).filter((s) => s !== 'environments');
  const documented = documentedSettings();
  const count = (s: string) => documented.filter((d) => d === s).length;
  t.ok(real.length > 60, `${real.length} settings in config/default.json`);
  t.same(
    real.filter((s) => count(s) !== 1).map((s) => `${s}: documented ${count(s)} times`),
    [],
    'each setting has one row in a settings table (docs/configuration.md)',
  );
  t.same(
    documented.filter((d) => !real.includes(d)),
    [],
    'no settings table documents a setting that does not exist',
  );
});

t.test('the README is a first screen: at most 250 lines, the two commands first', async (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const lines = readme.split('\n');
  t.ok(lines.length <= 250, `${lines.length} lines`);
  const top = lines.slice(0, 8).join('\n');
  t.match(top, /npm ci && npm start/, 'install and start');
  t.match(top, /npm test/, 'test');
});
