/**
 * `/v1/docs` as AXLE serves it (CHANGELOG v1.7.0; its docs/index.md, "Machine-Readable Docs"): the page
 * manifest, the manifest with markdown inlined, and one page's markdown, read from README.md and docs/.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/config.ts';
import { DOC_PAGE_LIMITS, docsRoot, readDocPages } from '../../src/server/doc-pages.ts';
import { makeApp } from '../helpers.ts';

t.test('pages.json, all.json and raw/{slug}.md over HTTP', async (t) => {
  const app = await makeApp();
  t.teardown(() => app.close());
  const pages = await app.inject({ method: 'GET', url: '/v1/docs/pages.json' });
  t.equal(pages.statusCode, 200);
  t.match(pages.headers['content-type'], /application\/json/);
  const manifest = pages.json().pages as { slug: string; title: string; url: string }[];
  t.same(manifest[0], {
    slug: 'index',
    title: readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8').split('\n')[0]!.slice(2),
    url: '/v1/docs/raw/index.md',
  });
  const errors = manifest.find((p) => p.slug === 'errors');
  t.same(errors, { slug: 'errors', title: 'Request-level errors', url: '/v1/docs/raw/errors.md' });
  t.equal(new Set(manifest.map((p) => p.slug)).size, manifest.length, 'one entry per page');
  t.ok(manifest.length > 20, `every docs page listed (${manifest.length})`);

  const all = (await app.inject({ method: 'GET', url: '/v1/docs/all.json' })).json().pages as {
    slug: string;
    markdown: string;
  }[];
  t.same(
    all.map((p) => p.slug),
    manifest.map((p) => p.slug),
    'the same manifest, same order',
  );
  const errorsMd = readFileSync(path.join(PROJECT_ROOT, 'docs', 'errors.md'), 'utf8');
  t.equal(all.find((p) => p.slug === 'errors')?.markdown, errorsMd, 'markdown inlined as written');

  const raw = await app.inject({ method: 'GET', url: '/v1/docs/raw/errors.md' });
  t.equal(raw.statusCode, 200);
  t.match(raw.headers['content-type'], /^text\/markdown/);
  t.equal(raw.body, errorsMd);
  for (const url of [
    '/v1/docs/raw/nope.md',
    '/v1/docs/raw/errors',
    '/v1/docs/raw/..%2Fpackage.json.md',
    '/v1/docs/raw/constructor.md',
  ]) {
    const r = await app.inject({ method: 'GET', url });
    t.equal(r.statusCode, 404, url);
    t.equal(r.json().error.code, 'not_found', url);
  }
});

t.test('navigation order follows README.md; a page over its bound is left out', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'docpages-'));
  mkdirSync(path.join(root, 'docs'));
  writeFileSync(path.join(root, 'README.md'), '# Home\n\nSee [b](docs/b.md) then [a](docs/a.md#x).\n');
  writeFileSync(path.join(root, 'docs', 'a.md'), '# Page A\n');
  writeFileSync(path.join(root, 'docs', 'b.md'), 'no heading\n');
  writeFileSync(path.join(root, 'docs', 'c.md'), '# C\n');
  writeFileSync(path.join(root, 'docs', 'huge.md'), 'x'.repeat(DOC_PAGE_LIMITS.pageBytes + 1));
  writeFileSync(path.join(root, 'docs', 'notes.txt'), 'not a page');
  t.equal(docsRoot(root), root);
  const warned: string[] = [];
  const pages = readDocPages(root, (m) => warned.push(m));
  t.same(
    pages.map((p) => [p.slug, p.title]),
    [
      ['index', 'Home'],
      ['b', 'b'],
      ['a', 'Page A'],
      ['c', 'C'],
    ],
  );
  t.match(warned, [/huge left out/]);
  t.equal(docsRoot(path.join(root, 'docs')), undefined, 'no README.md and docs/ there: none');
});
