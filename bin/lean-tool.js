#!/usr/bin/env node
// The CLI entry: registers the TypeScript loader, then runs src/client/cli.ts.
import { readFileSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/client/cli.ts');
process.exitCode = await main(process.argv.slice(2), {
  stdin: () => readFileSync(0, 'utf8'),
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
  isTTY: Boolean(process.stderr.isTTY),
});
