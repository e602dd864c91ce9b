#!/usr/bin/env node
// The CLI entry: registers the TypeScript loader, then runs src/client/cli.ts.
// Exit codes as AXLE's CLI: 130 on Ctrl-C, 1 on an unexpected error (see src/client/cli.ts).
import { readFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

process.on('SIGINT', () => {
  process.stderr.write('\nInterrupted\n');
  process.exit(130);
});
register();
const { main } = await import('../src/client/cli.ts');
try {
  process.exitCode = await main(process.argv.slice(2), {
    stdin: () => readFileSync(0, 'utf8'),
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    isTTY: Boolean(process.stderr.isTTY),
  });
} catch (e) {
  process.stderr.write(`lean-tool: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
