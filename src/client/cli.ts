/**
 * `lean-tool`: the command line over the client.
 *
 *   lean-tool <tool> FILE|- [--field value …] [-o FILE] [--json]
 *   lean-tool merge FILE FILE… [options]
 *   lean-tool <tool> --batch DIR|FILE|RECORDS.jsonl … [--out-dir DIR] [--concurrency N]
 *   lean-tool environments | status
 *   lean-tool extract-decls FILE -d DIR [-f]   (one file per document; -f to overwrite)
 *
 * Options are the request fields of the tool (derived from its schema): `--names a,b`,
 * `--indices 0,-1`, `--reparse` / `--no-reparse`, `--timeout-seconds 60`,
 * `--declarations old=new,…`, `--global-options '{"maxHeartbeats": 400000}'`,
 * `--formal-statement FILE`. Exit codes: 0 ok, 1 the tool said not okay, 2 usage,
 * 3 service error.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { TOOLS, TOOL_NAMES, isToolName, type ToolName } from '../contract/tools.ts';
import { runBatch } from './batch.ts';
import { documentFiles, writeDocumentFiles } from './extract-files.ts';
import { LeanToolClient, ServiceRequestError } from './client.ts';

export const EXIT = { ok: 0, notOkay: 1, usage: 2, service: 3 } as const;

class UsageError extends Error {}

interface Io {
  stdin: () => string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

type JsonSchema = { type?: string; items?: JsonSchema; properties?: Record<string, JsonSchema>; enum?: unknown[]; anyOf?: JsonSchema[] };

/** The request fields of a tool, as JSON Schema (the same derivation as the OpenAPI document). */
export function fieldsOf(tool: ToolName): Record<string, JsonSchema> {
  return (z.toJSONSchema(TOOLS[tool].request, { io: 'input', unrepresentable: 'any' }) as JsonSchema).properties ?? {};
}

const scalar = (v: string): boolean | number | string => (v === 'true' ? true : v === 'false' ? false : v !== '' && Number.isFinite(Number(v)) ? Number(v) : v);

function convert(field: string, schema: JsonSchema, raw: string): unknown {
  const type = schema.type ?? schema.anyOf?.find((s) => s.type)?.type;
  switch (type) {
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${field} takes true or false`);
      return raw === 'true';
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new UsageError(`--${field} takes a number, got ${raw}`);
      return n;
    }
    case 'array': {
      const items = raw === '' ? [] : raw.split(',').map((s) => s.trim());
      const it = schema.items?.type;
      return it === 'integer' || it === 'number' ? items.map(Number) : items;
    }
    case 'object': {
      if (raw.trim().startsWith('{')) {
        try {
          return JSON.parse(raw);
        } catch {
          throw new UsageError(`--${field}: not valid JSON`);
        }
      }
      // k=v,k2=v2
      return Object.fromEntries(raw.split(',').filter(Boolean).map((kv) => {
        const i = kv.indexOf('=');
        if (i < 0) throw new UsageError(`--${field} takes key=value pairs or JSON`);
        return [kv.slice(0, i).trim(), field === 'declarations' ? kv.slice(i + 1).trim() : scalar(kv.slice(i + 1).trim())];
      }));
    }
    default:
      // Text fields may name a file (formal_statement FILE).
      return (field === 'formal_statement' || field === 'content') && existsSync(raw) ? readFileSync(raw, 'utf8') : raw;
  }
}

export interface Parsed {
  tool: string;
  positionals: string[];
  fields: Record<string, unknown>;
  out?: string | undefined;
  json: boolean;
  batch: boolean;
  outDir?: string | undefined;
  concurrency?: number | undefined;
  url?: string | undefined;
  apiKey?: string | undefined;
  /** `-d DIR`: write one file per document (extract_decls / extract_theorems). */
  dir?: string | undefined;
  force: boolean;
}

export function parseArgs(argv: string[]): Parsed {
  const [given, ...rest] = argv;
  if (!given || given === '-h' || given === '--help' || given === 'help') throw new UsageError('');
  // `extract-decls` spells the tool `extract_decls`.
  const tool = isToolName(given.replace(/-/g, '_')) ? given.replace(/-/g, '_') : given;
  const p: Parsed = { tool, positionals: [], fields: {}, json: false, batch: false, force: false };
  const schema = isToolName(tool) ? fieldsOf(tool) : {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const next = () => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '-o' || a === '--output') p.out = next();
    else if (a === '--json') p.json = true;
    else if (a === '--batch') p.batch = true;
    else if (a === '--out-dir') p.outDir = next();
    else if (a === '--concurrency') p.concurrency = Number(next());
    else if (a === '--url') p.url = next();
    else if (a === '--api-key') p.apiKey = next();
    else if (a === '-d' || a === '--dir') p.dir = next();
    else if (a === '-f' || a === '--force') p.force = true;
    else if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      let name = (eq > 0 ? a.slice(2, eq) : a.slice(2)).replace(/-/g, '_');
      let value: string | undefined = eq > 0 ? a.slice(eq + 1) : undefined;
      if (value === undefined && name.startsWith('no_') && schema[name.slice(3)]?.type === 'boolean') {
        name = name.slice(3);
        value = 'false';
      }
      const s = schema[name];
      if (!s) throw new UsageError(`${tool} has no option --${name.replace(/_/g, '-')}${isToolName(tool) ? `; its options: ${Object.keys(schema).filter((k) => k !== 'content').map((k) => `--${k.replace(/_/g, '-')}`).join(' ')}` : ''}`);
      if (value === undefined) value = s.type === 'boolean' ? 'true' : next();
      p.fields[name] = convert(name, s, value);
    } else p.positionals.push(a);
  }
  return p;
}

function usage(): string {
  return [
    'usage: lean-tool <tool> FILE|- [options]      (content from a file, or - for stdin)',
    '       lean-tool merge FILE FILE… [options]',
    '       lean-tool <tool> --batch DIR|FILE|RECORDS.jsonl… [--out-dir DIR] [--concurrency N]',
    '       lean-tool environments | status',
    '',
    `tools: ${TOOL_NAMES.join(', ')}`,
    'common: --environment NAME (or SERVICE_ENVIRONMENT), -o FILE, --json, --url URL (SERVICE_API_URL), --api-key KEY (SERVICE_API_KEY)',
    'exit codes: 0 ok, 1 the tool said not okay, 2 usage, 3 service error',
  ].join('\n');
}

/** `-d DIR`: the documents as files; refusing (exit 2, nothing written) when one exists and -f is not given. */
function writeDocuments(res: Record<string, unknown>, p: Parsed, io: Io): number {
  const documents = res.documents as Record<string, { content: string; declaration: string }> | undefined;
  if (!documents) throw new UsageError(`-d writes documents; ${p.tool} returns none`);
  const files = documentFiles(documents, p.dir!, p.json);
  const r = writeDocumentFiles(files, p.dir!, p.force);
  report(res, io);
  if (r.existing.length > 0) {
    io.stderr(`lean-tool: ${r.existing.length} file(s) exist (${r.existing.slice(0, 5).join(', ')}${r.existing.length > 5 ? ', …' : ''}); nothing written, use -f to overwrite\n`);
    return EXIT.usage;
  }
  io.stderr(`lean-tool: wrote ${Object.keys(documents).length} document(s) to ${p.dir}\n`);
  return notOkay(res) ? EXIT.notOkay : EXIT.ok;
}

/** Whether a response says "not okay": okay false, or errors from Lean or the tool. */
export function notOkay(res: Record<string, unknown>): boolean {
  if (res.okay === false) return true;
  const errs = (k: string) => ((res[k] as { errors?: unknown[] } | undefined)?.errors?.length ?? 0) > 0;
  return errs('lean_messages') || errs('tool_messages');
}

function report(res: Record<string, unknown>, io: Io): void {
  for (const k of ['lean_messages', 'tool_messages']) {
    const m = res[k] as { errors: string[]; warnings: string[] } | undefined;
    for (const e of m?.errors ?? []) io.stderr(`${k === 'tool_messages' ? 'tool: ' : ''}${e}\n`);
    for (const w of m?.warnings ?? []) io.stderr(`${k === 'tool_messages' ? 'tool: ' : ''}${w}\n`);
  }
}

export async function main(argv: string[], io: Io): Promise<number> {
  let p: Parsed;
  try {
    p = parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`${e.message ? `lean-tool: ${e.message}\n\n` : ''}${usage()}\n`);
      return EXIT.usage;
    }
    throw e;
  }
  const onRetry = ({ attempt, waitMs, error }: { attempt: number; waitMs: number; error: ServiceRequestError }) =>
    io.stderr(`lean-tool: ${error.message}; retry ${attempt} in ${(waitMs / 1000).toFixed(1)} s (until SERVICE_TIMEOUT_SECONDS runs out)\n`);
  const client = new LeanToolClient({ env: io.env, onRetry, ...(p.url ? { url: p.url } : {}), ...(p.apiKey ? { apiKey: p.apiKey } : {}), ...(p.concurrency ? { maxConcurrency: p.concurrency } : {}) });
  try {
    if (p.tool === 'environments' || p.tool === 'status') {
      const r = p.tool === 'status' ? await client.status() : await client.environments();
      if (p.json || p.tool === 'status') io.stdout(`${JSON.stringify(r, null, 2)}\n`);
      else for (const e of r as { name: string; available: boolean; description: string; unavailable_reason?: string }[]) io.stdout(`${e.name}\t${e.available ? 'available' : `unavailable: ${e.unavailable_reason}`}\t${e.description}\n`);
      return EXIT.ok;
    }
    if (!isToolName(p.tool)) {
      io.stderr(`lean-tool: unknown tool ${p.tool}\n\n${usage()}\n`);
      return EXIT.usage;
    }
    const tool = p.tool;
    const environment = (p.fields.environment as string | undefined) ?? io.env.SERVICE_ENVIRONMENT;
    if (!environment) {
      io.stderr('lean-tool: --environment is required (or set SERVICE_ENVIRONMENT); `lean-tool environments` lists them\n');
      return EXIT.usage;
    }
    const base = { ...p.fields, environment };
    if (p.batch) return await runBatch(client, tool, p.positionals, base, { outDir: p.outDir, io });
    let request: Record<string, unknown>;
    if (tool === 'merge') {
      if (p.positionals.length === 0) throw new UsageError('merge needs the files to merge');
      request = { ...base, documents: p.positionals.map((f) => (f === '-' ? io.stdin() : readFileSync(f, 'utf8'))) };
    } else {
      if (p.positionals.length !== 1) {
        io.stderr(`lean-tool: ${tool} takes one FILE (or - for stdin)\n\n${usage()}\n`);
        return EXIT.usage;
      }
      const f = p.positionals[0]!;
      request = { ...base, content: f === '-' ? io.stdin() : readFileSync(f, 'utf8') };
    }
    const res = (await client.call(tool, request as never)) as Record<string, unknown>;
    if (p.dir !== undefined) return writeDocuments(res, p, io);
    if (p.json) {
      const text = `${JSON.stringify(res, null, 2)}\n`;
      if (p.out) writeFileSync(p.out, text);
      else io.stdout(text);
    } else if (typeof res.content === 'string' && !('documents' in res)) {
      if (p.out) writeFileSync(p.out, res.content);
      else io.stdout(res.content);
      report(res, io);
    } else {
      io.stdout(`${JSON.stringify(res, null, 2)}\n`);
    }
    return notOkay(res) ? EXIT.notOkay : EXIT.ok;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`lean-tool: ${e.message}\n\n${usage()}\n`);
      return EXIT.usage;
    }
    if (e instanceof ServiceRequestError) {
      io.stderr(`lean-tool: ${e.code} (${e.status || 'no response'}): ${e.message}\n${(e.details ?? []).map((d) => `  ${d.field}: ${d.message}\n`).join('')}`);
      return e.code === 'invalid_request' || e.status === 404 ? EXIT.usage : EXIT.service;
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') {
      io.stderr(`lean-tool: no such file: ${err.path}\n`);
      return EXIT.usage;
    }
    throw e;
  }
}
