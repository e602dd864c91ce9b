/**
 * The documentation in machine-readable form, as AXLE serves its own under `/v1/docs` (AXLE CHANGELOG
 * v1.7.0; its docs/index.md, "Machine-Readable Docs"): `pages.json`, the page manifest in navigation order;
 * `all.json`, the same with each page's markdown inlined; `raw/{slug}.md`, one page's markdown. AXLE's MCP
 * server reads these to learn a tool before using it.
 *
 * The pages are README.md (slug `index`) and docs/*.md (slug: the file name), in the order README.md links
 * them, then the rest by name. `npm run build` copies them to dist/site (the container has no docs/); from
 * source they are read where they are. Read once, at the first request under /v1/docs, within bounds.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { serviceError } from '../errors.ts';

export const DOC_PAGES_PREFIX = '/v1/docs';
/** Where `npm run build` copies README.md and docs/ (scripts/build.mjs). */
export const BUILT_SITE_DIR = path.join('dist', 'site');

/** Bounds on what is read: a docs folder that grew by mistake never makes an unbounded answer. */
export const DOC_PAGE_LIMITS = { pages: 200, pageBytes: 1 << 20, totalBytes: 8 << 20 } as const;

const SLUG = /^[a-z0-9][a-z0-9_-]*$/;

export interface DocPage {
  slug: string;
  title: string;
  /** The page's markdown here (this daemon renders no HTML pages; AXLE's manifest names its HTML page). */
  url: string;
  markdown: string;
}

/** The folder holding README.md and docs/: the repository when run from source, dist/site when built. */
export function docsRoot(projectRoot: string): string | undefined {
  for (const dir of [projectRoot, path.join(projectRoot, BUILT_SITE_DIR)])
    if (existsSync(path.join(dir, 'docs')) && existsSync(path.join(dir, 'README.md'))) return dir;
  return undefined;
}

const titleOf = (markdown: string, slug: string) => /^# (.+)$/m.exec(markdown)?.[1]?.trim() ?? slug;

/** README.md's links to docs pages, in order: the navigation order. */
function linkedOrder(readme: string): string[] {
  return [...readme.matchAll(/\(docs\/([a-z0-9_-]+)\.md[)#]/g)].map((m) => m[1]!);
}

/** Every page, in navigation order, within DOC_PAGE_LIMITS (a page over its bound is left out, named in the log). */
export function readDocPages(root: string, warn: (msg: string) => void = () => {}): DocPage[] {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const files = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md') && SLUG.test(f.slice(0, -3)))
    .map((f) => f.slice(0, -3))
    .sort();
  const linked = linkedOrder(readme).filter((s) => files.includes(s));
  const order = ['index', ...new Set([...linked, ...files])];
  const pages: DocPage[] = [];
  let total = 0;
  for (const slug of order.slice(0, DOC_PAGE_LIMITS.pages)) {
    const file = slug === 'index' ? path.join(root, 'README.md') : path.join(root, 'docs', `${slug}.md`);
    const size = statSync(file).size;
    if (size > DOC_PAGE_LIMITS.pageBytes || total + size > DOC_PAGE_LIMITS.totalBytes) {
      warn(`/v1/docs: ${slug} left out (${size} bytes; bounds ${JSON.stringify(DOC_PAGE_LIMITS)})`);
      continue;
    }
    total += size;
    const markdown = slug === 'index' ? readme : readFileSync(file, 'utf8');
    pages.push({ slug, title: titleOf(markdown, slug), url: `${DOC_PAGES_PREFIX}/raw/${slug}.md`, markdown });
  }
  return pages;
}

interface Served {
  pages: string;
  all: string;
  bySlug: Map<string, string>;
}

function serve(pages: DocPage[]): Served {
  return {
    pages: JSON.stringify({ pages: pages.map(({ slug, title, url }) => ({ slug, title, url })) }),
    all: JSON.stringify({ pages }),
    bySlug: new Map(pages.map((p) => [p.slug, p.markdown])),
  };
}

export function registerDocPages(app: FastifyInstance, projectRoot: string): void {
  let served: Served | undefined;
  const load = () => {
    if (served) return served;
    const root = docsRoot(projectRoot);
    return (served = serve(root ? readDocPages(root, (m) => app.log.warn(m)) : []));
  };
  const json = 'application/json; charset=utf-8';
  app.get(`${DOC_PAGES_PREFIX}/pages.json`, (_request, reply) => reply.type(json).send(load().pages));
  app.get(`${DOC_PAGES_PREFIX}/all.json`, (_request, reply) => reply.type(json).send(load().all));
  app.get<{ Params: { page: string } }>(`${DOC_PAGES_PREFIX}/raw/:page`, (request, reply) => {
    const page = request.params.page;
    const markdown = page.endsWith('.md') ? load().bySlug.get(page.slice(0, -3)) : undefined;
    if (markdown === undefined) throw serviceError('not_found', 'doc_page', { page: page.slice(0, 100) });
    return reply.type('text/markdown; charset=utf-8').send(markdown);
  });
}
