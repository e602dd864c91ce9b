/**
 * Running one job on a worker: the tool, environment and request checked again here (the
 * job crossed a process boundary), the header warmed and advertised first when it needs
 * Lean, then the tool under the job's travelling deadline. Every failure becomes an error
 * outcome for the front; nothing throws out of here.
 */
import { withDeadline } from '../admission/request-timeout.ts';
import { environmentCannotStart } from '../backend/errors.ts';
import type { LeanRunner } from '../backend/index.ts';
import { isToolName } from '../contract/tools.ts';
import { parseToolRequest } from '../contract/validate.ts';
import type { EnvironmentRegistry } from '../envs/registry.ts';
import { serviceError } from '../errors.ts';
import type { Log } from '../log.ts';
import { toServiceError } from '../server/error-handler.ts';
import { isCacheable } from '../server/pipeline.ts';
import type { ToolImpl, ToolTable } from '../tools/types.ts';
import type { Job, Outcome, ProgressEvent } from './messages.ts';
import { requestHeader, workKey, type WorkKey } from './names.ts';

export interface ExecuteDeps {
  registry: EnvironmentRegistry;
  tools: ToolTable;
  lean: LeanRunner;
  log: Log;
  nodeId: string;
  /** Sends a progress event to the job's front. */
  progress: (e: ProgressEvent) => void;
  /** Marks a header warm here (its bucket pulled and advertised from now on). */
  warmUp: (k: WorkKey) => Promise<void>;
}

export async function executeJob(job: Job, cancel: AbortSignal, seconds: number, d: ExecuteDeps): Promise<Outcome> {
  try {
    if (!isToolName(job.tool)) throw serviceError('invalid_request', 'cluster_unknown_tool', { tool: job.tool });
    const request = parseToolRequest(job.tool, job.request);
    const env = d.registry.get(job.environment);
    if (!env) throw serviceError('unknown_environment', 'cluster_worker', { env: job.environment, node: d.nodeId });
    const impl = d.tools[job.tool] as ToolImpl<typeof job.tool> | undefined;
    if (!impl) throw serviceError('not_implemented', 'cluster_worker', { tool: job.tool, node: d.nodeId });
    const needsLean = impl.needsLean(request);
    if (needsLean) {
      const a = d.registry.availability(env.name);
      if (!a.available)
        throw serviceError('environment_unavailable', 'cluster_worker', {
          env: env.name,
          node: d.nodeId,
          reason: a.reason,
        });
      await d.warmUp(
        workKey(env.name, requestHeader(request as { content?: unknown; ignore_imports?: unknown }, env.imports)),
      );
    }
    const progress = job.progress ? d.progress : () => {};
    const log = d.log.child({ job: job.id, tool: job.tool });
    let leanFailed = false;
    const result = await withDeadline(seconds, cancel, (signal) =>
      impl.run(request, {
        env,
        signal,
        log,
        lean: d.lean,
        progress,
        leanFailed: () => {
          leanFailed = true;
        },
      }),
    );
    return {
      job: job.id,
      status: 'ok',
      result,
      cacheable: isCacheable(impl, result, leanFailed),
      worker: d.nodeId,
    };
  } catch (err) {
    // Lean cannot start here for this environment: our heartbeat says so from now on (fronts route elsewhere).
    if (environmentCannotStart(err)) d.registry.reportUnavailable(job.environment, err.message);
    const se = toServiceError(err);
    if (se.code === 'internal') d.log.error({ err, job: job.id }, 'cluster job failed');
    return { job: job.id, status: 'error', worker: d.nodeId, error: se.toBody().error };
  }
}
