/**
 * The WebSocket channel's error contract: every error echoes the client's id and names the
 * field; a refused request is never announced as queued; cancelling an unknown id is answered.
 * Structural requests only (reparse false): no Lean, no REPL double needed.
 */
import t, { type Test } from 'tap';
import { waitFor } from '../backend/fake.ts';
import { makeApp, UNAVAILABLE_ENV } from '../helpers.ts';
import { listenLoopback, openStreamSocket } from '../helpers/loopback.ts';

async function stream(t: Test) {
  const app = await makeApp();
  t.teardown(() => app.close());
  await listenLoopback(app);
  /** Server events as received (their shape is what the tests assert). */
  interface Event {
    id: string | null;
    event: string;
    error: { code: string; message: string; details: { field: string; message: string }[] };
    result: { content: string };
  }
  const { ws, events } = await openStreamSocket<Event>(app);
  t.teardown(() => ws.close());
  /** Send one message and wait for its final event (result or error) for `id`. */
  const ask = async (msg: unknown, id: string | null) => {
    const before = events.length;
    ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
    await waitFor(() => events.slice(before).some((e) => e.id === id && (e.event === 'result' || e.event === 'error')));
    return events.slice(before).filter((e) => e.id === id);
  };
  return { ask };
}

t.test('errors echo the id and name the field; no queued before validation', async (t) => {
  const { ask } = await stream(t);
  const noEnv = await ask(
    { id: 'm1', tool: 'theorem2sorry', request: { content: 'theorem a : True := trivial' } },
    'm1',
  );
  t.same(
    noEnv.map((e) => e.event),
    ['error'],
    'refused before queued',
  );
  t.equal(noEnv[0]!.error.code, 'invalid_request');
  t.same(
    noEnv[0]!.error.details.map((d: { field: string }) => d.field),
    ['request.environment'],
  );
  t.match(noEnv[0]!.error.message, /request\.environment/);

  const noTool = await ask({ id: 'm2', request: {} }, 'm2');
  t.equal(noTool[0]!.error.code, 'invalid_request', 'the id is echoed even when the message is invalid');
  t.same(
    noTool[0]!.error.details.map((d: { field: string }) => d.field),
    ['tool'],
  );

  const noRequest = await ask({ id: 'm3', tool: 'check' }, 'm3');
  t.same(
    noRequest[0]!.error.details.map((d: { field: string }) => d.field),
    ['request'],
  );

  const extra = await ask({ id: 'm4', tool: 'check', request: {}, bogus: 1 }, 'm4');
  t.same(extra[0]!.error.details, [{ field: 'bogus', message: 'is not a parameter of the stream' }]);

  const unknownTool = await ask({ id: 'm5', tool: 'prove_everything', request: {} }, 'm5');
  t.equal(unknownTool[0]!.error.code, 'unknown_tool');

  const unknownEnv = await ask(
    { id: 'm6', tool: 'theorem2sorry', request: { content: 'x', environment: 'nope' } },
    'm6',
  );
  t.same(
    unknownEnv.map((e) => e.event),
    ['error'],
  );
  t.equal(unknownEnv[0]!.error.code, 'unknown_environment');
  t.same(unknownEnv[0]!.error.details, [{ field: 'request.environment', message: 'names no configured environment' }]);
  t.match(unknownEnv[0]!.error.message, /GET \/v1\/environments lists them/);

  const noId = await ask({ tool: 'check', request: {} }, null);
  t.same(
    noId[0]!.error.details.map((d: { field: string }) => d.field),
    ['id'],
    'no id: said so, with id null',
  );

  const notJson = await ask('{"id": "m7", ', null);
  t.equal(notJson[0]!.error.code, 'malformed_json');

  const ok = await ask(
    {
      id: 'ok',
      tool: 'theorem2sorry',
      request: { content: 'theorem a : True := trivial', environment: UNAVAILABLE_ENV, reparse: false },
    },
    'ok',
  );
  t.same(
    ok.map((e) => e.event),
    ['queued', 'started', 'result'],
    'a valid request: queued, started, result',
  );
  t.equal(ok.at(-1)!.result.content, 'theorem a : True := sorry');
});

t.test('cancelling an id that is not in flight is answered', async (t) => {
  const { ask } = await stream(t);
  const r = await ask({ id: 'ghost', cancel: true }, 'ghost');
  t.equal(r[0]!.event, 'error');
  t.equal(r[0]!.error.code, 'invalid_request');
  t.same(r[0]!.error.details, [{ field: 'id', message: 'no request with this id is in flight on this socket' }]);
  t.match(r[0]!.error.message, /cannot cancel ghost/);
  const badCancel = await ask({ id: 'c2', cancel: 'yes' }, 'c2');
  t.same(
    badCancel[0]!.error.details.map((d: { field: string }) => d.field),
    ['cancel'],
  );
});
