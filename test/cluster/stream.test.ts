/**
 * What travels with a job besides its result, against a real nats-server: progress events
 * back to the front's WebSocket client, cancellation from the client, and the deadline.
 * Skips, saying why, when nats-server is not installed.
 */
import t from 'tap';
import WebSocket from 'ws';
import type { ToolImpl } from '../../src/tools/types.ts';
import { checkResult, TEST_ENV } from '../helpers.ts';
import { clusterApp, postCheck, until, workersSeen } from './fixtures.ts';
import { natsServerOrSkip } from './nats-for-tests.ts';
import { startNatsServer } from './nats-server.ts';

const bin = natsServerOrSkip('the cluster stream tests');

/** A `check` double: three progress events, then (for content with SLOW) a 5 s wait; records how each run ended. */
function progressCheck(ended: string[]): ToolImpl<'check'> {
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  return {
    needsLean: () => false,
    async run(req, ctx) {
      try {
        for (let i = 1; i <= 3; i++) {
          ctx.progress({ stage: 'elaborate', done: i, total: 3 });
          await sleep(30, ctx.signal);
        }
        if (req.content.includes('SLOW')) await sleep(5000, ctx.signal);
      } catch (e) {
        ended.push(`aborted: ${(e as { code?: string }).code ?? String(e)}`);
        throw e;
      }
      ended.push('finished');
      return {
        ...checkResult(req.content),
        timings: { total_ms: 90 },
      } as never;
    },
  };
}

if (bin) {
  t.test('progress, cancellation and the deadline travel between front and worker', async (t) => {
    const nats = await startNatsServer(bin);
    t.teardown(() => nats.stop());
    const ended: string[] = [];
    const worker = await clusterApp(nats.url, 'w1', 'worker', { prefix: 'stream', check: progressCheck(ended) });
    const front = await clusterApp(nats.url, 'f1', 'front', { prefix: 'stream' });
    t.teardown(async () => {
      await front.close();
      await worker.close();
    });
    await until(() => workersSeen(front) === 1, 10_000, 'the worker');
    await front.listen({ port: 0, host: '127.0.0.1' });
    const ws = new WebSocket(`ws://127.0.0.1:${(front.server.address() as { port: number }).port}/v1/stream`);
    const events: Record<string, unknown>[] = [];
    ws.on('message', (d) => events.push(JSON.parse(String(d)) as Record<string, unknown>));
    await new Promise((r) => ws.once('open', r));
    t.teardown(() => ws.close());

    ws.send(
      JSON.stringify({
        id: 'p',
        tool: 'check',
        request: { content: 'theorem p : True := trivial\n', environment: TEST_ENV },
      }),
    );
    await until(() => events.some((e) => e.id === 'p' && e.event === 'result'), 10_000, 'the result');
    const of = (id: string) => events.filter((e) => e.id === id);
    t.same(
      of('p').map((e) => e.event),
      ['queued', 'started', 'progress', 'progress', 'progress', 'result'],
      'progress from the worker reaches the client before the result',
    );
    t.same(
      of('p')
        .filter((e) => e.event === 'progress')
        .map((e) => e.done),
      [1, 2, 3],
    );

    ws.send(
      JSON.stringify({
        id: 'c',
        tool: 'check',
        request: { content: 'theorem c : True := trivial -- SLOW\n', environment: TEST_ENV },
      }),
    );
    await until(() => of('c').some((e) => e.event === 'progress'), 10_000, 'the slow job to start');
    ws.send(JSON.stringify({ id: 'c', cancel: true }));
    await until(() => of('c').some((e) => e.event === 'error'), 10_000, 'the cancellation');
    t.match(of('c').at(-1), { event: 'error', error: { code: 'cancelled' } });
    await until(() => ended.length === 2, 5000, 'the worker to stop the job');
    t.equal(ended[1], 'aborted: cancelled', 'the cancel reached the worker, which stopped the job');

    const r = await front.inject(postCheck('theorem d : True := trivial -- SLOW\n', TEST_ENV, { timeout_seconds: 1 }));
    t.equal(r.statusCode, 504, 'the deadline answers the client');
    await until(() => ended.length === 3, 5000, 'the worker to stop the late job');
    t.match(ended[2], /^aborted: (cancelled|timeout)$/, 'the worker stopped it too');
  });
}
