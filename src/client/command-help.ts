/**
 * `lean-tool <command> --help`: that command's usage and options, derived from the tool's
 * request schema (the same derivation as GET /v1/endpoints), so a new field appears here at once.
 */
import { endpointMeta, type EndpointInput } from '../contract/endpoints.ts';
import type { ToolName } from '../contract/tools.ts';

const kebab = (s: string) => s.replaceAll('_', '-');

/** What each command takes besides its options (the CLI's positionals). */
const POSITIONALS: Partial<Record<ToolName, string>> = {
  verify_proof: 'STATEMENT PROOF',
  comparator: 'STATEMENT PROOF',
  merge: 'FILE FILE…',
};

/** Fields given as positionals, not options (formal_statement where the command takes STATEMENT). */
const positionalFields = (tool: ToolName) =>
  new Set(['content', 'documents', ...(POSITIONALS[tool]?.startsWith('STATEMENT') ? ['formal_statement'] : [])]);

function flag(i: EndpointInput): string {
  const name = `--${kebab(i.name)}`;
  switch (i.type) {
    case 'checkbox':
      return `${name} / --no-${kebab(i.name)}`;
    case 'number':
      return `${name} N`;
    case 'list':
      return `${name} ${i.cli_list_type === 'int' ? '0,-1' : 'a,b'}`;
    case 'dict':
      return `${name} JSON|key=value,…`;
    case 'textarea':
      return `${name} FILE`;
    default:
      return `${name} ${i.name === 'environment' ? 'NAME' : 'VALUE'}`;
  }
}

function option(i: EndpointInput): string[] {
  const notes = [
    i.required ? 'required' : undefined,
    i.name === 'environment' ? 'or set SERVICE_ENVIRONMENT' : undefined,
    i.default !== undefined ? `default: ${JSON.stringify(i.default)}` : undefined,
  ].filter(Boolean);
  return [`  ${flag(i)}${notes.length ? `   (${notes.join('; ')})` : ''}`, `      ${i.description}`];
}

export function commandHelp(tool: ToolName): string {
  const meta = endpointMeta(tool);
  const cmd = kebab(tool);
  const lines = [
    `usage: lean-tool ${cmd} ${POSITIONALS[tool] ?? 'FILE|-'} [options]   (- reads stdin)`,
    `       lean-tool ${cmd} --batch DIR|FILE|RECORDS.jsonl… [--out-dir DIR] [--concurrency N]`,
    '',
    meta.description,
    '',
    'options:',
  ];
  // One form in the usage: STATEMENT is the positional (the CLI still reads --formal-statement FILE, AXLE's flag).
  const positional = positionalFields(tool);
  for (const i of meta.inputs) if (!positional.has(i.name)) lines.push(...option(i));
  if (tool === 'rename') lines.push('  --declarations-file MAP.json', '      The declarations map as a JSON file.');
  lines.push(
    '',
    'common: -o FILE (-f to overwrite), --json, --strict (exit 3 when not okay), --url URL (SERVICE_API_URL), --api-key KEY (SERVICE_API_KEY)',
  );
  return lines.join('\n');
}
