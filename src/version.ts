/** The daemon's version, as package.json states it (read once, at startup). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './project-root.ts';

export const VERSION: string = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;
