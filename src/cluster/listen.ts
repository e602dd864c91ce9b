/** Collects the messages of one core NATS subject so a caller can await the first acceptable one. */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { z } from 'zod';
import { decodeAs, type DropReporter } from './messages.ts';

export class Listener<T> {
  #queue: T[] = [];
  #wake: (() => void) | undefined;
  #sub: Subscription;

  constructor(nc: NatsConnection, subject: string, schema: z.ZodType<T>, kind: string, drop: DropReporter) {
    this.#sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        const m = decodeAs(schema, kind, msg.data, drop);
        if (m === undefined) return;
        this.#queue.push(m);
        this.#wake?.();
      },
    });
  }

  /** The next message `accept` takes (others are dropped); rejects with the signal's reason. */
  async next(accept: (m: T) => boolean, signal: AbortSignal): Promise<T> {
    for (;;) {
      signal.throwIfAborted();
      while (this.#queue.length) {
        const m = this.#queue.shift()!;
        if (accept(m)) return m;
      }
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal.addEventListener('abort', onAbort, { once: true });
        this.#wake = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  close(): void {
    this.#sub.unsubscribe();
  }
}
