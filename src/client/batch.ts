/**
 * Batch mode: many inputs through one tool with bounded concurrency and a progress line
 * (done / failed / queued, rate, ETA). Inputs: directories (every .lean file below),
 * .lean files, or JSONL files whose lines are request records (`content` plus any fields;
 * an `id` or `name` labels the record). Results go to `<out-dir>/results.jsonl` (or stdout)
 * and, for file inputs with --out-dir, the output `content` to the same relative path.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ToolName } from '../contract/tools.ts';
import type { LeanToolClient } from './client.ts';
import { ServiceRequestError } from './client.ts';

interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
}

interface Item {
  label: string;
  /** Relative output path for file inputs. */
  rel?: string;
  request: Record<string, unknown>;
}

function collect(inputs: string[], base: Record<string, unknown>): Item[] {
  const items: Item[] = [];
  const walk = (dir: string, root: string) => {
    for (const n of readdirSync(dir).sort()) {
      const p = path.join(dir, n);
      if (statSync(p).isDirectory()) walk(p, root);
      else if (n.endsWith('.lean'))
        items.push({ label: p, rel: path.relative(root, p), request: { ...base, content: readFileSync(p, 'utf8') } });
    }
  };
  for (const input of inputs) {
    if (statSync(input).isDirectory()) walk(input, input);
    else if (input.endsWith('.jsonl')) {
      readFileSync(input, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!line.trim()) return;
          const rec = JSON.parse(line) as Record<string, unknown>;
          const label = String(rec.id ?? rec.name ?? `${path.basename(input)}:${i + 1}`);
          const { id: _id, name: _name, ...fields } = rec;
          items.push({ label, request: { ...base, ...fields } });
        });
    } else
      items.push({
        label: input,
        rel: path.basename(input),
        request: { ...base, content: readFileSync(input, 'utf8') },
      });
  }
  return items;
}

/** The counts of a batch run a progress line shows. */
interface BatchCounts {
  done: number;
  ok: number;
  notOkay: number;
  failed: number;
  total: number;
  elapsedS: number;
}

export function progressLine(s: BatchCounts): string {
  const width = 20;
  const filled = s.total ? Math.round((s.done / s.total) * width) : width;
  const rate = s.elapsedS > 0 ? s.done / s.elapsedS : 0;
  const eta = rate > 0 ? Math.round((s.total - s.done) / rate) : 0;
  const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
  const counts = `${s.done}/${s.total} done (${s.ok} ok, ${s.notOkay} not okay, ${s.failed} failed)`;
  return `${bar} ${counts}, ${s.total - s.done} queued, ${rate.toFixed(1)}/s, ETA ${eta}s`;
}

/** Counts of a batch run and the lines of its results.jsonl. */
interface BatchState extends BatchCounts {
  failures: string[];
  results: string[];
}

/** A response that is not okay: `okay: false`, or errors in its messages. */
const notOkay = (res: Record<string, unknown>) =>
  res.okay === false ||
  ((res.lean_messages as { errors: unknown[] } | undefined)?.errors.length ?? 0) > 0 ||
  ((res.tool_messages as { errors: unknown[] } | undefined)?.errors.length ?? 0) > 0;

/** One input: call the tool, count and record the outcome, write its content under `outDir`. */
async function runItem(
  client: LeanToolClient,
  tool: ToolName,
  item: ReturnType<typeof collect>[number],
  s: BatchState,
  outDir: string | undefined,
): Promise<void> {
  try {
    const res = (await client.call(tool, item.request as never)) as Record<string, unknown>;
    const bad = notOkay(res);
    if (bad) s.notOkay++;
    else s.ok++;
    s.results.push(JSON.stringify({ input: item.label, status: bad ? 'not_okay' : 'ok', response: res }));
    if (outDir && item.rel && typeof res.content === 'string') {
      const out = path.join(outDir, item.rel);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, res.content);
    }
  } catch (e) {
    s.failed++;
    const msg = e instanceof ServiceRequestError ? `${e.code}: ${e.message}` : (e as Error).message;
    s.failures.push(`${item.label}: ${msg}`);
    s.results.push(JSON.stringify({ input: item.label, status: 'error', error: msg }));
  }
  s.done++;
}

/** results.jsonl (to `outDir`, or stdout), the summary and the first failures; the exit code. */
function finishBatch(s: BatchState, outDir: string | undefined, io: Io): number {
  if (io.isTTY) io.stderr('\n');
  const jsonl = `${s.results.join('\n')}\n`;
  if (outDir) writeFileSync(path.join(outDir, 'results.jsonl'), jsonl);
  else io.stdout(jsonl);
  io.stderr(
    `summary: ${s.total} inputs, ${s.ok} ok, ${s.notOkay} not okay, ${s.failed} failed in ${s.elapsedS.toFixed(1)} s` +
      `${outDir ? `; results in ${path.join(outDir, 'results.jsonl')}` : ''}\n`,
  );
  for (const f of s.failures.slice(0, 10)) io.stderr(`  failed: ${f}\n`);
  return s.failed > 0 ? 3 : s.notOkay > 0 ? 1 : 0;
}

export async function runBatch(
  client: LeanToolClient,
  tool: ToolName,
  inputs: string[],
  base: Record<string, unknown>,
  opts: { outDir?: string | undefined; io: Io },
): Promise<number> {
  const { io } = opts;
  if (inputs.length === 0) {
    io.stderr('lean-tool: --batch needs inputs (directories, .lean files or .jsonl records)\n');
    return 2;
  }
  const items = collect(inputs, base);
  const started = performance.now();
  const s: BatchState = {
    done: 0,
    ok: 0,
    notOkay: 0,
    failed: 0,
    total: items.length,
    elapsedS: 0,
    failures: [],
    results: [],
  };
  let lastPrint = 0;
  const tick = (force = false) => {
    s.elapsedS = (performance.now() - started) / 1000;
    const now = performance.now();
    if (!force && now - lastPrint < (io.isTTY ? 100 : 1000)) return;
    lastPrint = now;
    io.stderr(io.isTTY ? `\r${progressLine(s)}` : `${progressLine(s)}\n`);
  };
  if (opts.outDir) mkdirSync(opts.outDir, { recursive: true });
  tick(true);
  await Promise.all(
    items.map(async (item) => {
      await runItem(client, tool, item, s, opts.outDir);
      tick(s.done === s.total);
    }),
  );
  return finishBatch(s, opts.outDir, io);
}
