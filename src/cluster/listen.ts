/** Collects the messages of one core NATS subject so a caller can await the first acceptable one. */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { decode } from './messages.ts';

export class Listener<T> {
  #queue: T[] = [];
  #wake: (() => void) | undefined;
  #sub: Subscription;

  constructor(nc: NatsConnection, subject: string) {
    this.#sub = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          this.#queue.push(decode<T>(msg.data));
        } catch {
          return; // not ours to understand: ignored
        }
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
