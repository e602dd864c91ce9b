/**
 * Parser throughput over the whole shared corpus: ms per 1000 lines, MB/s, and how time
 * grows with file size. Baseline in the same run: one pass of `text.split('\n')` plus a
 * char loop, so ratios survive noisy machines.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseSource } from '../../src/syntax/source.ts';
import { utf8Length } from '../../src/syntax/positions.ts';
import { sharedPath, sharedSkip } from '../../test/shared-data.ts';
import { skipped, round, stats, timeRuns, type ScenarioResult } from '../lib.ts';

// External data (not in the repository): ../shared/corpus or $LEAN_TOOL_SHARED/corpus; skipped, saying why, when absent.
const CORPUS = sharedPath('corpus');

function leanFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? leanFiles(p) : n.endsWith('.lean') ? [p] : [];
    });
}

function baseline(text: string): number {
  let n = text.split('\n').length;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 32) n++;
  return n;
}

export async function parserScenario(opts: { runs?: number } = {}): Promise<ScenarioResult> {
  const runs = opts.runs ?? 7;
  if (!CORPUS) return skipped('parser', sharedSkip('corpus') as string);
  const texts = leanFiles(CORPUS).map((f) => readFileSync(f, 'utf8'));
  const lines = texts.reduce((a, s) => a + s.split('\n').length, 0);
  const bytes = texts.reduce((a, s) => a + utf8Length(s), 0);
  let sink = 0;
  const parse = stats(
    timeRuns(() => {
      for (const s of texts) sink += parseSource(s).commands.length;
    }, runs),
  );
  const base = stats(
    timeRuns(() => {
      for (const s of texts) sink += baseline(s);
    }, runs),
  );
  const msPer1000 = (parse.p50 / lines) * 1000;
  const mbPerS = bytes / 1e6 / (parse.p50 / 1000);

  // Size buckets: files sorted by lines, split into 5 quintiles; µs per line in each.
  const bySize = texts.map((s) => ({ s, lines: s.split('\n').length })).sort((a, b) => a.lines - b.lines);
  const buckets = [0, 1, 2, 3, 4].map((q) =>
    bySize.slice(Math.floor((q * bySize.length) / 5), Math.floor(((q + 1) * bySize.length) / 5)),
  );
  const bucketRows = buckets.map((b) => {
    const l = b.reduce((a, x) => a + x.lines, 0);
    const ms = stats(
      timeRuns(() => {
        for (const x of b) sink += parseSource(x.s).commands.length;
      }, runs),
    ).p50;
    return {
      files: b.length,
      linesPerFile: `${b[0]!.lines}–${b[b.length - 1]!.lines}`,
      msPer1000: round((ms / l) * 1000),
    };
  });

  // Linearity: the largest file concatenated 1×…16×; time per line should stay flat.
  const largest = bySize[bySize.length - 1]!.s;
  const growth = [1, 2, 4, 8, 16].map((k) => {
    const text = Array.from({ length: k }, () => largest).join('\n');
    const l = text.split('\n').length;
    const ms = stats(
      timeRuns(
        () => {
          sink += parseSource(text).commands.length;
        },
        Math.max(7, runs),
      ),
    ).p50;
    return { copies: k, lines: l, ms: round(ms, 2), msPer1000: round((ms / l) * 1000) };
  });
  // Between two warm sizes (×2 and ×16): the ×1 run is the first of the series and the
  // shortest, so its per-line figure carries warm-up and timer noise a ratio must not divide by.
  const flatness = growth[growth.length - 1]!.msPer1000 / growth[1]!.msPer1000;
  if (sink === 42) console.log('');

  return {
    name: 'parser',
    summary: `${round(msPer1000)} ms per 1000 lines (target ≤ 2), ${round(mbPerS, 1)} MB/s over ${texts.length} files / ${lines} lines; 16× input costs ${round(flatness, 2)}× per line of 2× input`,
    figures: {
      files: texts.length,
      lines,
      bytes,
      parseMs: parse,
      baselineMs: base,
      msPer1000: round(msPer1000),
      mbPerS: round(mbPerS, 2),
      vsBaseline: round(parse.p50 / base.p50, 2),
      buckets: bucketRows,
      growth,
      flatness: round(flatness, 3),
    },
    table: [
      ['corpus', `${texts.length} files, ${lines} lines, ${round(bytes / 1e6, 1)} MB`, ''],
      ['parse, ms per 1000 lines (p50 of runs)', String(round(msPer1000)), 'target ≤ 2'],
      ['throughput', `${round(mbPerS, 1)} MB/s`, ''],
      [
        'whole corpus, ms (p50 ± sd)',
        `${round(parse.p50, 1)} ± ${round(parse.sd, 1)}`,
        `${runs} runs after 2 warm-ups`,
      ],
      ['vs baseline (split + char loop)', `${round(parse.p50 / base.p50, 2)}×`, `baseline ${round(base.p50, 1)} ms`],
      ...bucketRows.map((b, i): [string, string, string] => [
        `size quintile ${i + 1} (${b.linesPerFile} lines/file)`,
        `${b.msPer1000} ms/1000 lines`,
        `${b.files} files`,
      ]),
      ...growth.map((g): [string, string, string] => [
        `largest file ×${g.copies} (${g.lines} lines)`,
        `${g.msPer1000} ms/1000 lines`,
        `${g.ms} ms`,
      ]),
      ['linearity: per-line cost ×16 ÷ ×2', `${round(flatness, 2)}`, '1.0 = linear; medians of ≥ 7 warm runs each'],
    ],
  };
}
