/**
 * Cluster test fixtures: daemons in a given role on a test NATS server, and a stand-in
 * tool that reports which node ran it (and how often), optionally slowly. The stand-in
 * replaces `check` in these daemons only; it is a test double, not a product tool.
 */
import type { FastifyInstance } from 'fastify';
import type { LeanRunner } from '../../src/backend/index.ts';
import type { Probe } from '../../src/envs/registry.ts';
import type { ToolImpl } from '../../src/tools/types.ts';
import { makeApp, TEST_ENV, testConfig, testEnvironments } from '../helpers.ts';

export interface Ran {
  count: number;
  contents: string[];
}

export const newRan = (): Ran => ({ count: 0, contents: [] });

/** `POST /api/v1/check` of `content` as `inject` takes it (`extra`: more request fields). */
export const postCheck = (content: string, environment = TEST_ENV, extra: object = {}) => ({
  method: 'POST' as const,
  url: '/api/v1/check',
  payload: JSON.stringify({ content, environment, ...extra }),
  headers: { 'content-type': 'application/json' },
});

/** A `check` answer naming the node that ran it (its one tool info). */
export const nodeAnswer = (node: string, content: string, ms = 0) =>
  ({
    okay: true,
    content,
    lean_messages: { errors: [], warnings: [], infos: [] },
    tool_messages: { errors: [], warnings: [], infos: [node] },
    failed_declarations: [],
    timings: { total_ms: ms },
  }) as never;

/** A `check` double: waits `ms` (or until aborted), then answers naming its node (`lean`: whether it claims to need Lean, for routing). */
export function reportingCheck(node: string, ran: Ran, ms = 0, onStart?: () => void, lean = false): ToolImpl<'check'> {
  return {
    needsLean: () => lean,
    async run(req, ctx) {
      onStart?.();
      if (ms) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, ms);
          ctx.signal.addEventListener(
            'abort',
            () => {
              clearTimeout(t);
              reject(ctx.signal.reason);
            },
            { once: true },
          );
        });
      }
      ran.count++;
      ran.contents.push(req.content);
      return nodeAnswer(node, req.content, ms);
    },
  };
}

export const clusterSettings = (url: string, nodeId: string, role: 'front' | 'worker' | 'both') => ({
  role,
  natsUrl: url,
  nodeId,
  ackWaitSeconds: 1,
  heartbeatMs: 200,
  missedHeartbeats: 3,
  stealAfterMs: 500,
  workerSlots: 1,
});

export async function clusterApp(
  url: string,
  nodeId: string,
  role: 'front' | 'worker' | 'both',
  extra: {
    check?: ToolImpl<'check'>;
    lean?: LeanRunner;
    prefix?: string;
    probe?: Probe;
    cluster?: Record<string, unknown>;
    environments?: typeof testEnvironments;
  } = {},
): Promise<FastifyInstance> {
  return makeApp({
    config: testConfig({
      cluster: { ...clusterSettings(url, nodeId, role), prefix: extra.prefix ?? 'lean', ...extra.cluster },
      admission: { anonymousConcurrency: 16 },
      ...(extra.environments ? { environments: extra.environments } : {}),
    }),
    ...(extra.check ? { tools: { check: extra.check } } : {}),
    ...(extra.lean ? { lean: extra.lean } : {}),
    ...(extra.probe ? { probe: extra.probe } : {}),
  });
}

/** Polls `cond` every 50 ms until true or `ms` elapse. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const workersSeen = (front: FastifyInstance) => ((front.cluster!.status().workers as unknown[]) ?? []).length;
