/** Toolchain discovery lives in the host leaf module (shared with backend/); re-exported for existing callers. */
export { discoverToolchain, searchDirs, which, type Toolchain } from '../host/discovery.ts';
