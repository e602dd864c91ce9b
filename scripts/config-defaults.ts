/**
 * config/default.json, generated: every setting's default comes from the zod schema in
 * src/config.ts (the one source), and only shipped data — the environment catalogue and
 * comparator's pinned commits, which are not defaults but facts about releases — is kept
 * from the file as it stands. `npm run config:defaults` rewrites the file;
 * test/config-defaults.test.ts fails when the committed file differs from what this makes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema, PROJECT_ROOT } from '../src/config.ts';

export const DEFAULT_CONFIG_FILE = path.join(PROJECT_ROOT, 'config', 'default.json');

/** The file's text as it should be, given the shipped data in `current`. */
export function generatedDefaults(current: { environments?: unknown; comparator?: { pins?: unknown } }): string {
  const defaults = configSchema.parse({}) as Record<string, unknown> & { comparator: Record<string, unknown> };
  const out = {
    ...defaults,
    comparator: { ...defaults.comparator, pins: current.comparator?.pins ?? {} },
    environments: current.environments ?? [],
  };
  return JSON.stringify(out, null, 2) + '\n';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const current = JSON.parse(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')) as Parameters<typeof generatedDefaults>[0];
  writeFileSync(DEFAULT_CONFIG_FILE, generatedDefaults(current));
  console.log(`wrote ${path.relative(process.cwd(), DEFAULT_CONFIG_FILE)}`);
}
