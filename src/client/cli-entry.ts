/**
 * The bundled CLI's entry (dist/cli.cjs, run by bin/lean-tool.js). `lean-tool --version` alone is
 * answered here, before the CLI's own modules are evaluated: they are in the same bundle, but
 * esbuild evaluates a dynamically imported module only when the import runs, so the contract's
 * zod schemas and the client are never built for it (the import was most of such a call's time). Every
 * other call is src/client/cli.ts's `main`, unchanged.
 */
import type { Io } from './cli.ts';
import { versionLine } from './version-line.ts';

export async function main(argv: string[], io: Io): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout(versionLine());
    return 0;
  }
  const cli = await import('./cli.ts');
  return cli.main(argv, io);
}
