/**
 * The checkout's root directory, for files the daemon reads (config/, lean/, package.json).
 * This is the one module allowed to use its own URL: it sits one level below the root both as
 * source (src/project-root.ts) and in the bundle (dist/main.js), which scripts/build.mjs checks.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
