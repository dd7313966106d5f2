/**
 * What Bun's and Deno's accepted Unix socket connections share: listeners,
 * bytes read while paused held back, the write queue and its count, the end
 * of each side. Each runtime moves the bytes (bun_listen.ts, deno_listen.ts).
 * @module
 */

import type { ServedConnection } from "./types.ts";

type DataListener = (chunk: Uint8Array) => void;
type Listener = () => void;

/** A served connection whose runtime part reads, writes and closes the socket. */
export abstract class ServedConnectionBase implements ServedConnection {
  readonly #data = new Set<DataListener>();
  readonly #end = new Set<Listener>();
  readonly #drain = new Set<Listener>();
  readonly #close = new Set<Listener>();
  /** Bytes to write, in order; the first may have been written in part (then it is a view of the rest). */
  protected readonly queue: Uint8Array[] = [];
  #unsent = 0;
  #held: Uint8Array[] = [];
  #paused = true;
  #closed = false;
  #ending = false;
  #shutDown = false;
  #peerEnded = false;
  #endReported = false;
  #flushWaiters: Listener[] = [];
  readonly #encoder = new TextEncoder();

  on(event: "data", listener: DataListener): void;
  on(event: "end" | "drain" | "close", listener: Listener): void;
  on(event: "data" | "end" | "drain" | "close", listener: DataListener | Listener): void {
    this.#listeners(event).add(listener as DataListener & Listener);
  }

  off(event: "data", listener: DataListener): void;
  off(event: "end" | "drain" | "close", listener: Listener): void;
  off(event: "data" | "end" | "drain" | "close", listener: DataListener | Listener): void {
    this.#listeners(event).delete(listener as DataListener & Listener);
  }

  #listeners(event: string): Set<DataListener & Listener> {
    switch (event) {
      case "data":
        return this.#data as Set<DataListener & Listener>;
      case "end":
        return this.#end;
      case "drain":
        return this.#drain;
      default:
        return this.#close;
    }
  }

  get unsentBytes(): number {
    return this.#unsent;
  }

  get closed(): boolean {
    return this.#closed;
  }

  get ended(): boolean {
    return this.#ending || this.#closed;
  }

  write(data: string | Uint8Array): void {
    if (this.#ending || this.#closed) return;
    // A copy: the caller may reuse its buffer once this returns.
    const bytes = typeof data === "string" ? this.#encoder.encode(data) : data.slice();
    if (bytes.length === 0) return;
    this.queue.push(bytes);
    this.#unsent += bytes.length;
    this.transmit();
  }

  flushed(): Promise<void> {
    if (this.#closed || this.#unsent === 0) return Promise.resolve();
    return new Promise((resolve) => this.#flushWaiters.push(resolve));
  }

  pause(): void {
    if (this.#paused || this.#closed) return;
    this.#paused = true;
    this.stopReading();
  }

  resume(): void {
    if (!this.#paused || this.#closed) return;
    this.#paused = false;
    this.#deliver();
    if (!this.#paused && !this.#closed && !this.#peerEnded) this.startReading();
  }

  end(): void {
    if (this.#ending || this.#closed) return;
    this.#ending = true;
    if (this.#unsent === 0) this.#shutdown();
  }

  destroy(): void {
    if (this.#closed) return;
    this.abort();
    this.gone();
  }

  /** The runtime read `chunk` (the connection's own copy). */
  protected received(chunk: Uint8Array): void {
    if (this.#closed) return;
    this.#held.push(chunk);
    this.#deliver();
  }

  /** The runtime read the end of the peer's side. */
  protected peerEnded(): void {
    if (this.#closed || this.#peerEnded) return;
    this.#peerEnded = true;
    this.#deliver();
    if (this.#shutDown) this.#finish();
  }

  /** The runtime handed the first `count` queued bytes to the kernel. */
  protected sent(count: number): void {
    if (this.#closed) return;
    let left = count;
    while (left > 0 && this.queue.length > 0) {
      const first = this.queue[0];
      if (first.length <= left) {
        left -= first.length;
        this.queue.shift();
      } else {
        this.queue[0] = first.subarray(left);
        left = 0;
      }
    }
    this.#unsent -= count;
    if (this.#unsent === 0) {
      for (const resolve of this.#flushWaiters.splice(0)) resolve();
      if (this.#ending && !this.#shutDown) this.#shutdown();
    }
    for (const listener of [...this.#drain]) listener();
  }

  /** The socket is gone (closed by either side, or broken). */
  protected gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#held = [];
    this.queue.length = 0;
    this.#unsent = 0;
    for (const resolve of this.#flushWaiters.splice(0)) resolve();
    for (const listener of [...this.#close]) listener();
  }

  /** Passes on what was held while paused, then the peer's end once everything before it was. */
  #deliver(): void {
    // Flowing with nobody listening, bytes are dropped (as node:net does): the end still comes.
    while (!this.#paused && !this.#closed && this.#held.length > 0) {
      const chunk = this.#held.shift()!;
      for (const listener of [...this.#data]) listener(chunk);
    }
    if (
      this.#peerEnded && !this.#endReported && this.#held.length === 0 && !this.#paused &&
      !this.#closed
    ) {
      this.#endReported = true;
      for (const listener of [...this.#end]) listener();
    }
  }

  #shutdown(): void {
    this.#shutDown = true;
    this.shutdownWrites();
    if (this.#peerEnded) this.#finish();
  }

  /** Both sides ended: the socket is closed. */
  #finish(): void {
    this.abort();
    this.gone();
  }

  /** Hands queued bytes to the kernel as far as it takes them, calling `sent`. */
  protected abstract transmit(): void;
  /** Stops reading from the socket. */
  protected abstract stopReading(): void;
  /** Reads from the socket again. */
  protected abstract startReading(): void;
  /** Ends this side (shutdown(2) of writes): the peer reads its end. */
  protected abstract shutdownWrites(): void;
  /** Closes the socket (its runtime handle), without calling `gone`. */
  protected abstract abort(): void;
}
