/**
 * Structural tools over the corpus through the daemon (reparse false: no Lean), against
 * the same transformations called in-process (the baseline: the cost of HTTP, validation
 * and admission on top of the source model).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import { configSchema } from '../../src/config.ts';
import { applyEdits } from '../../src/syntax/edits.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { proofToSorry } from '../../src/tools/theorem2sorry.ts';
import { sharedPath, sharedSkip } from '../../test/shared-data.ts';
import { skipped, drive, round, rssSampler, stats, type ScenarioResult } from '../lib.ts';
import { poster } from './http-client.ts';

// External data (not in the repository): ../shared/corpus or $LEAN_TOOL_SHARED/corpus; skipped, saying why, when absent.
const CORPUS = sharedPath('corpus');
const files = (d: string): string[] =>
  readdirSync(d)
    .sort()
    .flatMap((n) => {
      const p = path.join(d, n);
      return statSync(p).isDirectory() ? files(p) : n.endsWith('.lean') ? [p] : [];
    });

export async function structuralScenario(): Promise<ScenarioResult> {
  if (!CORPUS) return skipped('structural', sharedSkip('corpus') as string);
  const texts = files(CORPUS).map((f) => readFileSync(f, 'utf8'));
  const config = configSchema.parse({
    keys: [{ key: 'bench-key-0002', concurrency: 64 }],
    cache: { maxBytes: 0 }, // measure the work, not the cache
    lean: { minWarm: 0 },
    environments: [
      { name: 'bench', lean_toolchain: 'leanprover/lean4:v4.28.0', imports: '', project_dir: '/nonexistent' },
    ],
  });
  const app = await buildApp({
    config,
    logger: false,
    probe: () => ({ available: false, reason: 'benchmark: no Lean' }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { post, close } = poster(
    `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    'bench-key-0002',
  );

  // Baseline: the same transformation in-process.
  const b0 = performance.now();
  for (const s of texts) {
    const f = parseSource(s);
    applyEdits(
      s,
      f.decls
        .filter((d) => d.kind === 'theorem')
        .map((d) => proofToSorry(s, d))
        .filter((e) => e !== undefined),
    );
  }
  const baselineS = (performance.now() - b0) / 1000;

  const rows: [string, string, string][] = [];
  const figures: Record<string, unknown> = { files: texts.length, baselineS: round(baselineS, 3) };
  const mem = rssSampler();
  for (const tool of ['theorem2sorry', 'theorem2lemma', 'rename'] as const) {
    const body = (content: string) => ({
      content,
      environment: 'bench',
      reparse: false,
      ...(tool === 'rename' ? { declarations: { nonexistent_decl: 'x' } } : {}),
    });
    const run = await drive(texts, 8, async (content) => (await post(`/api/v1/${tool}`, body(content))).status);
    const lat = stats(run.latencies);
    const ok = run.statuses.get(200) ?? 0;
    figures[tool] = {
      seconds: round(run.seconds, 3),
      filesPerS: round(texts.length / run.seconds, 1),
      latencyMs: lat,
      statuses: Object.fromEntries(run.statuses),
    };
    rows.push([
      `${tool} (reparse false), 8 clients`,
      `${round(texts.length / run.seconds, 1)} files/s; p50 ${round(lat.p50, 2)} / p95 ${round(lat.p95, 2)} / p99 ${round(lat.p99, 2)} ms`,
      `${ok}/${texts.length} ok, ${texts.length - ok} errors`,
    ]);
  }
  const peak = mem.stop();
  close();
  await app.close();
  const t2s = figures.theorem2sorry as { seconds: number };
  rows.push([
    'baseline: theorem2sorry in-process',
    `${round(texts.length / baselineS, 1)} files/s`,
    `daemon ÷ in-process time = ${round(t2s.seconds / baselineS, 2)}×`,
  ]);
  rows.push(['peak RSS (daemon)', `${peak.daemonPeakMb} MiB`, '']);
  figures.peakRss = peak;
  return {
    name: 'structural',
    summary: `theorem2sorry over ${texts.length} corpus files through the daemon at ${round(texts.length / t2s.seconds, 1)} files/s (${round(t2s.seconds / baselineS, 2)}× the in-process time)`,
    figures,
    table: rows,
  };
}
