/**
 * Configuration flows one way: the process's environment is read where the daemon is composed
 * (src/main.ts, buildApp in src/app.ts) and by the AXLE-compatible client (it reads AXLE_API_KEY
 * and AXLE_API_URL by design, as AXLE's does); every other module gets what it needs passed in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const SRC = path.join(import.meta.dirname, '..', 'src');
const READERS = new Set(['main.ts', 'app.ts', path.join('client', 'client.ts')]);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Uses of `process.env` in code (comments stripped, so a comment naming it does not count). */
const envReads = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').match(/\bprocess\.env\b/g)?.length ?? 0;

t.test('only the composition root and the client read process.env', async (t) => {
  const files = tsFiles(SRC);
  t.ok(files.length > 100, `${files.length} modules scanned`);
  const readers = files.filter((f) => envReads(readFileSync(f, 'utf8')) > 0).map((f) => path.relative(SRC, f));
  t.same(
    readers.filter((f) => !READERS.has(f)),
    [],
    'no other module reads the environment',
  );
  t.ok(readers.includes('main.ts'), 'the scan sees the root reading it');
});

t.test('the scan counts code, not comments', async (t) => {
  t.equal(envReads('const a = process.env.HOME;'), 1);
  t.equal(envReads('// defaults to process.env\n/* process.env */ const a = 1;'), 0);
});
