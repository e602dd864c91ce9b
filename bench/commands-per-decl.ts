/**
 * `node --import tsx bench/commands-per-decl.ts`: the REPL commands `check` sends for a snippet of
 * 1, 10, 100 and 1,000 theorems (no imports), counted at the backend's door: the content's units
 * (one per declaration here) and the one input that asks every declaration's axioms. The baseline
 * is Kimina's one command per snippet. Counts, not timings: they are the same on every machine.
 * Records bench/results/commands-per-decl-<date>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import type { LeanRunner } from '../src/backend/index.ts';
import { parseToolRequest } from '../src/contract/validate.ts';
import { environmentConfig } from '../src/envs/config.ts';
import { check } from '../src/tools/check.ts';
import { round } from './lib.ts';

const env = environmentConfig.parse({
  name: 'x',
  lean_toolchain: 'leanprover/lean4:v4.28.0',
  imports: '',
  project_dir: '/tmp',
});

/** A runner that answers nothing and counts what reaches it. */
function counting(): LeanRunner & { commands: number; lines: number } {
  const r = {
    commands: 0,
    lines: 0,
    async elaborate(_e: unknown, job: { commands: { text: string }[] }) {
      r.commands += job.commands.length;
      for (const c of job.commands) r.lines += c.text.split('\n').length;
      const commands = job.commands.map(() => ({ messages: [], sorries: [], cached: false, ms: 0 }));
      return { headerMessages: [], session: 1, reused: 0, sent: job.commands.length, commands };
    },
  };
  return r as LeanRunner & { commands: number; lines: number };
}

const rows = [];
for (const n of [1, 10, 100, 1000]) {
  const content = Array.from({ length: n }, (_, i) => `theorem t${i} : ${i} = ${i} := rfl`).join('\n\n');
  const lean = counting();
  const ctx = { env, signal: new AbortController().signal, log: pino({ level: 'silent' }), lean, progress: () => {} };
  await check.run(parseToolRequest('check', { content, environment: 'x' }), ctx);
  rows.push({ theorems: n, commands: lean.commands, perDeclaration: round(lean.commands / n, 3), kiminaCommands: 1 });
}
const result = {
  kind: 'commands-per-decl',
  date: new Date().toISOString(),
  node: process.version,
  load: os.loadavg().map((x) => round(x, 1)),
  target: '≤ 1.05 REPL commands per declaration (issue: fewer REPL commands per proof)',
  rows,
};
const dir = path.join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
const file = path.join(dir, `commands-per-decl-${result.date.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
for (const r of rows)
  console.log(`${r.theorems} theorems: ${r.commands} commands, ${r.perDeclaration} per declaration (Kimina: 1 in all)`);
console.log(`recorded: ${path.relative(process.cwd(), file)}`);
