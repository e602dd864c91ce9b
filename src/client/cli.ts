/**
 * `lean-tool`: the command line over the client, with AXLE's conventions
 * (AxiomMath/axiom-lean-engine, axle/cli/main.py): kebab-case command names
 * (`repair-proofs`, `verify-proof`; the snake_case tool names work too), global options
 * before or after the command, `--version`, `--strict`, `-f/--force`, and its exit codes.
 *
 *   lean-tool [--url URL] [--json] <command> FILE|- [--field value …] [-o FILE [-f]] [--strict]
 *   lean-tool verify-proof STATEMENT PROOF [options]     (PROOF may be - for stdin)
 *   lean-tool merge FILE FILE… [options]
 *   lean-tool rename FILE --declarations old=new,… | --declarations-file MAP.json
 *   lean-tool <command> --batch DIR|FILE|RECORDS.jsonl … [--out-dir DIR] [--concurrency N]
 *   lean-tool environments | status
 *   lean-tool extract-decls FILE -d DIR [-f]   (one file per document; -f to overwrite)
 *
 * Options are the request fields of the tool (derived from its schema): `--names a,b`,
 * `--indices 0,-1`, `--reparse` / `--no-reparse`, `--timeout-seconds 60`,
 * `--global-options '{"maxHeartbeats": 400000}'`, `--formal-statement FILE`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { TOOLS, TOOL_NAMES, isToolName, type ToolName } from '../contract/tools.ts';
import { runBatch } from './batch.ts';
import { commandHelp } from './command-help.ts';
import { documentFiles, writeDocumentFiles } from './extract-files.ts';
import { LeanToolClient, ServiceRequestError } from './client.ts';
import { VERSION } from '../version.ts';
import { versionLine } from './version-line.ts';

/**
 * AXLE's exit codes: 0 done (whatever the verdict, unless --strict); 1 a general error (the
 * service refused or failed, a file is missing); 2 a usage error (as argparse) or an output
 * file that exists without -f; 3 --strict and the result is not okay; 130 interrupted.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, outputExists: 2, strict: 3, interrupted: 130 } as const;

// package.json's version, read through PROJECT_ROOT so the bundled CLI (dist/cli.cjs) finds it too.
export { VERSION };

class UsageError extends Error {}

export interface Io {
  stdin: () => string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

type JsonSchema = {
  type?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  anyOf?: JsonSchema[];
};

/** The request fields of a tool, as JSON Schema (the same derivation as the OpenAPI document). */
export function fieldsOf(tool: ToolName): Record<string, JsonSchema> {
  return (z.toJSONSchema(TOOLS[tool].request, { io: 'input', unrepresentable: 'any' }) as JsonSchema).properties ?? {};
}

/** The command a name denotes: `repair-proofs` and `repair_proofs` are the same tool. */
export function commandTool(name: string): ToolName | undefined {
  const snake = name.replace(/-/g, '_');
  return isToolName(snake) ? snake : undefined;
}

const kebab = (s: string) => s.replace(/_/g, '-');
const OTHER_COMMANDS = ['environments', 'status', 'mcp'] as const;

/** Options of the CLI itself, valid before or after the command; true when they take a value. */
const CLI_OPTIONS: Record<string, boolean> = {
  '--url': true,
  '--api-key': true,
  '-o': true,
  '--output': true,
  '--out-dir': true,
  '--concurrency': true,
  '--declarations-file': true,
  '-d': true,
  '--dir': true,
  '--output-dir': true,
  '--json': false,
  '--batch': false,
  '--strict': false,
  '-f': false,
  '--force': false,
};

/** Whether `--x` takes a value in any tool (to find the command among options given before it). */
const takesValue = (() => {
  const m = new Map<string, boolean>();
  for (const t of TOOL_NAMES)
    for (const [k, s] of Object.entries(fieldsOf(t)))
      m.set(kebab(k), (s.type ?? s.anyOf?.find((x) => x.type)?.type) !== 'boolean');
  return (flag: string) => CLI_OPTIONS[flag] ?? m.get(flag.replace(/^--/, '')) ?? false;
})();

const scalar = (v: string): boolean | number | string =>
  v === 'true' ? true : v === 'false' ? false : v !== '' && Number.isFinite(Number(v)) ? Number(v) : v;

function convert(field: string, schema: JsonSchema, raw: string): unknown {
  const type = schema.type ?? schema.anyOf?.find((s) => s.type)?.type;
  switch (type) {
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw new UsageError(`--${kebab(field)} takes true or false`);
      return raw === 'true';
    case 'integer':
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n))
        throw new UsageError(`--${kebab(field)} takes a number, got ${raw}`);
      return n;
    }
    case 'array': {
      const items =
        raw === ''
          ? []
          : raw
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s !== '');
      const it = schema.items?.type;
      if (it === 'integer' || it === 'number') {
        const nums = items.map(Number);
        if (nums.some((n) => !Number.isFinite(n)))
          throw new UsageError(`--${kebab(field)} takes comma-separated numbers, got ${raw}`);
        return nums;
      }
      return items;
    }
    case 'object': {
      if (raw.trim().startsWith('{')) {
        try {
          return JSON.parse(raw);
        } catch {
          throw new UsageError(`--${kebab(field)}: not valid JSON`);
        }
      }
      // k=v,k2=v2
      return Object.fromEntries(
        raw
          .split(',')
          .filter(Boolean)
          .map((kv) => {
            const i = kv.indexOf('=');
            if (i < 0) throw new UsageError(`--${kebab(field)} takes key=value pairs or JSON`);
            return [
              kv.slice(0, i).trim(),
              field === 'declarations' ? kv.slice(i + 1).trim() : scalar(kv.slice(i + 1).trim()),
            ];
          }),
      );
    }
    default:
      // Text fields may name a file (formal_statement FILE).
      return (field === 'formal_statement' || field === 'content') && existsSync(raw) ? readFileSync(raw, 'utf8') : raw;
  }
}

export interface Parsed {
  /** The command as typed, '' when none (help) */
  command: string;
  /** The tool it names, when it names one. */
  tool: ToolName | undefined;
  positionals: string[];
  fields: Record<string, unknown>;
  out?: string | undefined;
  json: boolean;
  batch: boolean;
  strict: boolean;
  force: boolean;
  version: boolean;
  help: boolean;
  declarationsFile?: string | undefined;
  outDir?: string | undefined;
  concurrency?: number | undefined;
  url?: string | undefined;
  apiKey?: string | undefined;
  /** `-d DIR`: write one file per document (extract_decls / extract_theorems). */
  dir?: string | undefined;
}

/** The index of the command word: the first argument that is neither an option nor an option's value. */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-' || !a.startsWith('-')) return i;
    if (!a.includes('=') && takesValue(a)) i++;
  }
  return -1;
}

/** What the command line says before its options are read: the command, and nothing set. */
function emptyParsed(command: string): Parsed {
  return {
    command,
    tool: commandTool(command),
    positionals: [],
    fields: {},
    json: false,
    batch: false,
    strict: false,
    force: false,
    version: false,
    help: command === 'help',
  };
}

/** `--url=URL` for the CLI's own options: the option and its inline value (tool fields handle `=` themselves). */
function splitInlineValue(arg: string): [option: string, inline: string | undefined] {
  const eqAt = arg.indexOf('=');
  return eqAt > 0 && CLI_OPTIONS[arg.slice(0, eqAt)] === true
    ? [arg.slice(0, eqAt), arg.slice(eqAt + 1)]
    : [arg, undefined];
}

/** One of the CLI's own options, set on `p`; false when `a` is not one. */
function applyCliOption(p: Parsed, a: string, next: () => string): boolean {
  if (a === '--version' || a === '-V') p.version = true;
  else if (a === '-h' || a === '--help') p.help = true;
  else if (a === '-o' || a === '--output') p.out = next();
  else if (a === '--json') p.json = true;
  else if (a === '--batch') p.batch = true;
  else if (a === '--strict') p.strict = true;
  else if (a === '-f' || a === '--force') p.force = true;
  else if (a === '--out-dir') p.outDir = next();
  else if (a === '--concurrency') p.concurrency = Number(next());
  else if (a === '--url') p.url = next();
  else if (a === '--api-key') p.apiKey = next();
  else if (a === '--declarations-file') p.declarationsFile = next();
  else if (a === '-d' || a === '--dir' || a === '--output-dir') p.dir = next();
  else return false;
  return true;
}

/** `--field value`, `--field=value` or `--no-flag`: a request field of the tool, converted by its schema. */
function applyToolField(
  p: Parsed,
  tool: ToolName,
  schema: Record<string, JsonSchema>,
  a: string,
  next: () => string,
): void {
  const eq = a.indexOf('=');
  let name = (eq > 0 ? a.slice(2, eq) : a.slice(2)).replace(/-/g, '_');
  let value: string | undefined = eq > 0 ? a.slice(eq + 1) : undefined;
  if (value === undefined && name.startsWith('no_') && schema[name.slice(3)]?.type === 'boolean') {
    name = name.slice(3);
    value = 'false';
  }
  const s = schema[name];
  if (!s)
    throw new UsageError(
      `${kebab(tool)} has no option --${kebab(name)}; its options: ${Object.keys(schema)
        .filter((k) => k !== 'content')
        .map((k) => `--${kebab(k)}`)
        .join(' ')}`,
    );
  if (value === undefined) value = s.type === 'boolean' ? 'true' : next();
  p.fields[name] = convert(name, s, value);
}

export function parseArgs(argv: string[]): Parsed {
  const ci = commandIndex(argv);
  const rest = argv.filter((_, i) => i !== ci);
  const p = emptyParsed(ci >= 0 ? argv[ci]! : '');
  const schema = p.tool ? fieldsOf(p.tool) : {};
  for (let i = 0; i < rest.length; i++) {
    const [a, inline] = splitInlineValue(rest[i]!);
    const next = () => {
      if (inline !== undefined) return inline;
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (applyCliOption(p, a, next)) continue;
    if (a.startsWith('--')) {
      if (p.tool) applyToolField(p, p.tool, schema, a, next);
      // No tool yet to say what its options are: the command itself is what is wrong.
      else if (!a.includes('=') && takesValue(a)) i++;
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else p.positionals.push(a);
  }
  return p;
}

export function usage(): string {
  return [
    'usage: lean-tool [--url URL] [--api-key KEY] [--json] <command> FILE|- [options]   (- reads stdin)',
    '       lean-tool verify-proof STATEMENT PROOF [options]',
    '       lean-tool merge FILE FILE… [options]',
    '       lean-tool rename FILE --declarations old=new,… | --declarations-file MAP.json',
    '       lean-tool <command> --batch DIR|FILE|RECORDS.jsonl… [--out-dir DIR] [--concurrency N]',
    '       lean-tool extract-decls FILE -d DIR [-f]              (one file per document)',
    '       lean-tool environments | status | --version',
    "       lean-tool mcp        (MCP over stdio, relayed to the running daemon's /mcp; docs/mcp.md)",
    '',
    `commands: ${TOOL_NAMES.map(kebab).join(', ')}, ${OTHER_COMMANDS.join(', ')}`,
    "options: the tool's request fields (--environment NAME or SERVICE_ENVIRONMENT, --names a,b, --indices 0,-1, --no-reparse, …);",
    '  -o FILE or -d DIR (-f to overwrite), --json, --strict, --url URL (SERVICE_API_URL), --api-key KEY (SERVICE_API_KEY)',
    'exit codes: 0 done; 1 error; 2 usage, or output file exists without -f; 3 --strict and not okay; 130 interrupted',
  ].join('\n');
}

/** `-d DIR`: the documents as files; refusing (exit 2, nothing written) when one exists and -f is not given. */
function writeDocuments(res: Record<string, unknown>, p: Parsed, io: Io): number {
  const documents = res.documents as Record<string, { content: string; declaration: string }> | undefined;
  if (!documents) throw new UsageError(`-d writes documents; ${p.command} returns none`);
  const files = documentFiles(documents, p.dir!, p.json);
  const r = writeDocumentFiles(files, p.dir!, p.force);
  report(res, io);
  if (r.existing.length > 0) {
    io.stderr(
      `lean-tool: ${r.existing.length} file(s) exist (${r.existing.slice(0, 5).join(', ')}${r.existing.length > 5 ? ', …' : ''}); ` +
        'nothing written, use -f to overwrite\n',
    );
    return EXIT.outputExists;
  }
  io.stderr(`lean-tool: wrote ${Object.keys(documents).length} document(s) to ${p.dir}\n`);
  return p.strict && notOkay(res) ? EXIT.strict : EXIT.ok;
}

/**
 * What --strict refuses: `okay: false` (AXLE's rule); for tools without `okay`, errors from
 * Lean or from the tool (for example a name that selects nothing).
 */
export function notOkay(res: Record<string, unknown>): boolean {
  if (typeof res.okay === 'boolean') return !res.okay;
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

/** Tools whose answer is a verdict: the whole response is printed as JSON (AXLE's json_stdout mode); the others print `content` (lean_stdout). */
const VERDICT_TOOLS = new Set<ToolName>([
  'verify_proof',
  'check',
  'disprove',
  'comparator',
  'extract_decls',
  'extract_theorems',
  'extract_proof_states',
]);

const readInput = (f: string, io: Io) => (f === '-' ? io.stdin() : readFileSync(f, 'utf8'));

/** The request of a single (non-batch) call, from positionals and fields. */
function buildRequest(tool: ToolName, p: Parsed, base: Record<string, unknown>, io: Io): Record<string, unknown> {
  if (tool === 'merge') {
    if (p.positionals.length === 0) throw new UsageError('merge needs the files to merge');
    return { ...base, documents: p.positionals.map((f) => readInput(f, io)) };
  }
  if ((tool === 'verify_proof' || tool === 'comparator') && base.formal_statement === undefined) {
    // AXLE's form: STATEMENT PROOF (the proof may be - for stdin).
    if (p.positionals.length !== 2)
      throw new UsageError(
        `${kebab(tool)} takes STATEMENT PROOF (two files; PROOF may be -), or --formal-statement FILE and one PROOF`,
      );
    return {
      ...base,
      formal_statement: readFileSync(p.positionals[0]!, 'utf8'),
      content: readInput(p.positionals[1]!, io),
    };
  }
  if (p.positionals.length !== 1) throw new UsageError(`${kebab(tool)} takes one FILE (or - for stdin)`);
  return { ...base, content: readInput(p.positionals[0]!, io) };
}

function declarationsFromFile(file: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw e;
    throw new UsageError(`--declarations-file ${file}: not valid JSON (${(e as Error).message})`);
  }
  if (
    !parsed ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((v) => typeof v === 'string')
  ) {
    throw new UsageError(`--declarations-file ${file}: expected a JSON object of old name to new name`);
  }
  return parsed as Record<string, string>;
}

/** The command line read, or the usage error's exit code (the message and the usage printed). */
function parseOrUsage(argv: string[], io: Io): Parsed | number {
  try {
    return parseArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) return usageFailure(e, io);
    throw e;
  }
}

function usageFailure(e: UsageError, io: Io): number {
  io.stderr(`lean-tool: ${e.message}\n\n${usage()}\n`);
  return EXIT.usage;
}

/** The answers that need no service: --version, the help, an unknown command; undefined for the others. */
function answerLocally(p: Parsed, io: Io): number | undefined {
  if (p.version) {
    io.stdout(versionLine());
    return EXIT.ok;
  }
  // No command: the help, and 0, as AXLE's CLI does.
  if (p.help || !p.command) {
    io.stdout(`${p.tool ? commandHelp(p.tool) : usage()}\n`);
    return EXIT.ok;
  }
  if (!p.tool && !(OTHER_COMMANDS as readonly string[]).includes(p.command)) {
    io.stderr(
      `lean-tool: unknown command '${p.command}'; the commands are: ${TOOL_NAMES.map(kebab).join(', ')}, ${OTHER_COMMANDS.join(', ')}\n`,
    );
    return EXIT.usage;
  }
  return undefined;
}

function makeClient(p: Parsed, io: Io): LeanToolClient {
  const onRetry = ({ attempt, waitMs, error }: { attempt: number; waitMs: number; error: ServiceRequestError }) =>
    io.stderr(`lean-tool: ${error.message}; retry ${attempt} in ${(waitMs / 1000).toFixed(1)} s\n`);
  return new LeanToolClient({
    env: io.env,
    onRetry,
    ...(p.url ? { url: p.url } : {}),
    ...(p.apiKey ? { apiKey: p.apiKey } : {}),
    ...(p.concurrency ? { maxConcurrency: p.concurrency } : {}),
  });
}

/** `environments` (a table, or JSON with --json) and `status` (JSON). */
async function printListing(p: Parsed, client: LeanToolClient, io: Io): Promise<number> {
  const r = p.command === 'status' ? await client.status() : await client.environments();
  if (p.json || p.command === 'status') io.stdout(`${JSON.stringify(r, null, 2)}\n`);
  else
    for (const e of r as { name: string; available: boolean; description: string; unavailable_reason?: string }[])
      io.stdout(`${e.name}\t${e.available ? 'available' : `unavailable: ${e.unavailable_reason}`}\t${e.description}\n`);
  return EXIT.ok;
}

/** The fields every request of the call shares: the options given, the environment, a declarations file's map. */
function baseRequest(tool: ToolName, p: Parsed, io: Io): Record<string, unknown> {
  const environment = (p.fields.environment as string | undefined) ?? io.env.SERVICE_ENVIRONMENT;
  if (!environment)
    throw new UsageError('--environment is required (or set SERVICE_ENVIRONMENT); `lean-tool environments` lists them');
  const base: Record<string, unknown> = { ...p.fields, environment };
  if (p.declarationsFile) {
    if (!('declarations' in fieldsOf(tool))) throw new UsageError(`${kebab(tool)} has no option --declarations-file`);
    base.declarations = {
      ...declarationsFromFile(p.declarationsFile),
      ...(base.declarations as Record<string, string> | undefined),
    };
  }
  return base;
}

/** A tool command ready to send: the tool, the command line, the fields every request shares. */
interface ToolCall {
  tool: ToolName;
  p: Parsed;
  base: Record<string, unknown>;
  client: LeanToolClient;
  io: Io;
}

async function runBatchCommand({ tool, p, base, client, io }: ToolCall): Promise<number> {
  if (p.outDir && !p.force && existsSync(path.join(p.outDir, 'results.jsonl'))) {
    io.stderr(`lean-tool: ${path.join(p.outDir, 'results.jsonl')} already exists; use -f to overwrite\n`);
    return EXIT.outputExists;
  }
  const code = await runBatch(client, tool, p.positionals, base, { outDir: p.outDir, io });
  // Batch keeps its own summary codes for failures; a not-okay record fails only --strict.
  return code === 1 ? (p.strict ? EXIT.strict : EXIT.ok) : code === 3 ? EXIT.error : code;
}

/** One request: sent, and its answer printed or written (-o, -d). */
async function runSingle({ tool, p, base, client, io }: ToolCall): Promise<number> {
  const request = buildRequest(tool, p, base, io);
  // Refuse before any work, as AXLE does, rather than after a long request.
  if (p.out && !p.force && existsSync(p.out)) {
    io.stderr(`lean-tool: ${p.out} already exists; use -f to overwrite\n`);
    return EXIT.outputExists;
  }
  const res = (await client.call(tool, request as never)) as Record<string, unknown>;
  if (p.dir !== undefined) return writeDocuments(res, p, io);
  const leanOut = !p.json && !VERDICT_TOOLS.has(tool) && typeof res.content === 'string';
  const text = leanOut ? (res.content as string) : `${JSON.stringify(res, null, 2)}\n`;
  if (p.out) {
    writeFileSync(p.out, text);
    io.stderr(`Output written to ${p.out}\n`);
  } else io.stdout(text);
  if (leanOut) report(res, io);
  return p.strict && notOkay(res) ? EXIT.strict : EXIT.ok;
}

/** The exit code of a failed command, its reason printed; what is not a known failure is thrown on. */
function failureCode(e: unknown, io: Io): number {
  if (e instanceof UsageError) return usageFailure(e, io);
  if (e instanceof ServiceRequestError) {
    io.stderr(
      `lean-tool: ${e.code} (${e.status || 'no response'}): ${e.message}\n${(e.details ?? []).map((d) => `  ${d.field}: ${d.message}\n`).join('')}`,
    );
    return EXIT.error;
  }
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOENT' || err.code === 'EISDIR') {
    io.stderr(`lean-tool: ${err.code === 'ENOENT' ? 'no such file' : 'is a directory'}: ${err.path}\n`);
    return EXIT.error;
  }
  throw e;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const p = parseOrUsage(argv, io);
  if (typeof p === 'number') return p;
  const local = answerLocally(p, io);
  if (local !== undefined) return local;
  const client = makeClient(p, io);
  if (p.command === 'mcp') {
    // Loaded on demand: the MCP SDK is not on the path of every other command.
    const { serveMcpStdio } = await import('./mcp-stdio.ts');
    return serveMcpStdio({
      url: client.url,
      apiKey: p.apiKey ?? io.env.SERVICE_API_KEY,
      log: (line) => io.stderr(`${line}\n`),
    });
  }
  try {
    if (!p.tool) return await printListing(p, client, io);
    const call: ToolCall = { tool: p.tool, p, base: baseRequest(p.tool, p, io), client, io };
    return await (p.batch ? runBatchCommand : runSingle)(call);
  } catch (e) {
    return failureCode(e, io);
  }
}
