/**
 * A test daemon on a loopback port, and a WebSocket client of its /v1/stream: the setup the
 * stream, request-id, first-contact and CLI tests share.
 */
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';

/** Listens on a free loopback port; the port and the base URLs. */
export async function listenLoopback(app: FastifyInstance): Promise<{ port: number; http: string; ws: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const a = app.server.address();
  if (!a || typeof a === 'string') throw new Error('the daemon listens on no port');
  return { port: a.port, http: `http://127.0.0.1:${a.port}`, ws: `ws://127.0.0.1:${a.port}` };
}

export interface StreamSocket<E> {
  ws: WebSocket;
  /** Every message received, in order: as text, and parsed. */
  texts: string[];
  events: E[];
  /** Resolves with the close code. */
  closed: Promise<number>;
}

/** A WebSocket open on the /v1/stream of a listening daemon, recording every message from the first. */
export async function openStreamSocket<E = Record<string, unknown>>(
  app: FastifyInstance,
  headers: Record<string, string> = {},
): Promise<StreamSocket<E>> {
  const a = app.server.address();
  if (!a || typeof a === 'string') throw new Error('listen first (listenLoopback)');
  const ws = new WebSocket(`ws://127.0.0.1:${a.port}/v1/stream`, { headers });
  const texts: string[] = [];
  const events: E[] = [];
  ws.on('message', (d) => {
    texts.push(String(d));
    events.push(JSON.parse(String(d)) as E);
  });
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, texts, events, closed };
}
