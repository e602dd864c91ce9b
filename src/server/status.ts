/** The body of `GET /v1/status`: health, version, warnings, and each layer's own statistics. */
import type { KeyRing } from '../admission/keys.ts';
import type { ConcurrencyLimiter } from '../admission/limiter.ts';
import type { LeanBackend } from '../backend/index.ts';
import type { ResultCache } from '../cache/result-cache.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';

export interface StatusSources {
  version: string;
  warnings: string[];
  startedAt: number;
  registry: EnvironmentRegistry;
  limiter: ConcurrencyLimiter;
  backend: LeanBackend;
  cache: ResultCache;
  keys: KeyRing;
}

export function statusReport(s: StatusSources): Record<string, unknown> {
  return {
    status: 'healthy',
    version: s.version,
    ...(s.warnings.length ? { warnings: s.warnings } : {}),
    uptime_s: Math.round((Date.now() - s.startedAt) / 1000),
    environments: s.registry.list().map((e) => ({ name: e.name, available: e.available })),
    admission: s.limiter.stats(),
    pools: s.backend.stats(),
    comment_memo: s.backend.commentMemoStats(),
    cache: s.cache.stats(),
    keys_configured: s.keys.size,
  };
}
