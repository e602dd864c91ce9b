/** The request's light abort controller behaves as Node's AbortController does, use by use. */
import { once, EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { RequestAbortController } from '../../src/util/request-abort.ts';

type Ctrl = { signal: AbortSignal; abort(reason?: unknown): void };
const KINDS: [string, () => Ctrl][] = [
  ['node', () => new AbortController()],
  ['light', () => new RequestAbortController()],
];

/** What a scenario records, for Node's controller and the light one alike. */
function trace(make: () => Ctrl, scenario: (c: Ctrl, log: string[]) => void): string[] {
  const log: string[] = [];
  scenario(make(), log);
  return log;
}

const scenarios: Record<string, (c: Ctrl, log: string[]) => void> = {
  'order, duplicates, objects, once, removal': (c, log) => {
    const f = (ev: Event) => log.push(`f ${ev.type}`);
    const g = () => log.push('g');
    const obj = { handleEvent: (ev: Event) => log.push(`obj ${ev.type}`) };
    c.signal.addEventListener('abort', f);
    c.signal.addEventListener('abort', f);
    c.signal.addEventListener('abort', obj, { once: true });
    c.signal.addEventListener('abort', g);
    c.signal.removeEventListener('abort', g);
    c.signal.addEventListener('other', g);
    c.signal.onabort = () => log.push('onabort');
    log.push(`before ${c.signal.aborted}`);
    c.abort('why');
    c.abort('again');
    log.push(`after ${c.signal.aborted} ${String(c.signal.reason)}`);
    c.signal.addEventListener('abort', g);
  },
  'a listener added by the last one called is not called': (c, log) => {
    const late = () => log.push('late');
    c.signal.addEventListener('abort', () => {
      log.push('first');
      c.signal.addEventListener('abort', late);
    });
    c.abort();
  },
  'a listener removed during the dispatch is not called': (c, log) => {
    const removed = () => log.push('removed');
    c.signal.addEventListener('abort', () => {
      log.push('first');
      c.signal.removeEventListener('abort', removed);
    });
    c.signal.addEventListener('abort', removed);
    c.signal.addEventListener('abort', () => log.push('last'));
    c.abort();
  },
  'an abort event dispatched by hand: once listeners leave, the others stay': (c, log) => {
    c.signal.addEventListener('abort', () => log.push('once'), { once: true });
    c.signal.addEventListener('abort', () => log.push('kept'));
    c.signal.dispatchEvent(new Event('abort'));
    c.signal.dispatchEvent(new Event('abort'));
    log.push(`aborted ${c.signal.aborted}`);
  },
  'reason without one: an AbortError; throwIfAborted throws the reason': (c, log) => {
    c.signal.throwIfAborted();
    c.abort();
    const r = c.signal.reason as DOMException;
    log.push(`${r.name} ${r.message} ${r instanceof DOMException}`);
    try {
      c.signal.throwIfAborted();
    } catch (e) {
      log.push(`threw ${(e as Error).name}`);
    }
  },
  'the signal option removes a listener': (c, log) => {
    const remover = new AbortController();
    c.signal.addEventListener('abort', () => log.push('kept'), { signal: remover.signal });
    c.signal.addEventListener('abort', () => log.push('removed'), { signal: remover.signal });
    remover.abort();
    c.signal.addEventListener('abort', () => log.push('kept'));
    c.abort();
  },
};

for (const [name, scenario] of Object.entries(scenarios)) {
  t.test(name, async (t) => {
    const node = trace(KINDS[0]![1], scenario);
    t.ok(node.length > 0);
    t.same(trace(KINDS[1]![1], scenario), node, 'the light controller records what Node’s records');
  });
}

t.test('a throwing listener is reported as uncaught and the others still run', async (t) => {
  for (const [kind, make] of KINDS) {
    const c = make();
    const ran: string[] = [];
    c.signal.addEventListener('abort', () => {
      throw new Error('boom');
    });
    c.signal.addEventListener('abort', () => ran.push('second'));
    const saved = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    const uncaught = once(process, 'uncaughtException');
    c.abort();
    const [err] = (await uncaught) as [Error];
    process.removeAllListeners('uncaughtException');
    for (const l of saved) process.on('uncaughtException', l);
    t.equal(err.message, 'boom', kind);
    t.same(ran, ['second'], kind);
  }
});

t.test("Node's APIs that take a signal take it: events.once and timers/promises", async (t) => {
  const c = new RequestAbortController();
  const waiting = once(new EventEmitter(), 'never', { signal: c.signal });
  const sleeping = sleep(60_000, undefined, { signal: c.signal });
  c.abort(new Error('gone'));
  await t.rejects(waiting, { name: 'AbortError' });
  await t.rejects(sleeping, { name: 'AbortError' });
});
