/** What `lean-tool --version` prints (src/client/cli.ts and the bundle's entry, cli-entry.ts). */
import { VERSION } from '../version.ts';

export const versionLine = (): string => `lean-tool ${VERSION}\n`;
