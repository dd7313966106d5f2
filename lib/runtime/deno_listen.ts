/**
 * A Unix socket server with Deno's own sockets (`Deno.listen`), lighter
 * than its node:net emulation.
 * @module
 */

import { ServedConnectionBase } from "./served_connection.ts";
import type { ServedConnection, UnixListener } from "./types.ts";

/** Bytes read from a connection at a time. */
const READ_BYTES = 64 * 1024;

/** One accepted connection over a Deno.UnixConn. */
class DenoConnection extends ServedConnectionBase {
  readonly #conn: Deno.UnixConn;
  #writing = false;
  #reading = false;
  #wake: (() => void) | undefined;

  constructor(conn: Deno.UnixConn) {
    super();
    this.#conn = conn;
    void this.#readLoop();
  }

  async #readLoop(): Promise<void> {
    const buffer = new Uint8Array(READ_BYTES);
    try {
      for (;;) {
        while (!this.#reading && !this.closed) {
          await new Promise<void>((resume) => this.#wake = resume);
        }
        if (this.closed) return;
        const count = await this.#conn.read(buffer);
        if (count === null) return this.peerEnded();
        this.received(buffer.slice(0, count));
      }
    } catch {
      this.destroy(); // Reset by the peer, or closed under the read.
    }
  }

  protected transmit(): void {
    if (this.#writing) return;
    this.#writing = true;
    void (async () => {
      try {
        while (this.queue.length > 0 && !this.closed) {
          this.sent(await this.#conn.write(this.queue[0]));
        }
      } catch {
        this.destroy(); // The peer is gone.
      } finally {
        this.#writing = false;
      }
    })();
  }

  protected stopReading(): void {
    this.#reading = false;
  }

  protected startReading(): void {
    this.#reading = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  protected shutdownWrites(): void {
    this.#conn.closeWrite().catch(() => {});
  }

  protected abort(): void {
    try {
      this.#conn.close();
    } catch {
      // Closed already.
    }
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** Listens on `path`; see `Runtime.listenUnix`. */
export function listenUnix(
  path: string,
  accept: (connection: ServedConnection) => void,
): Promise<UnixListener> {
  let listener: Deno.UnixListener;
  try {
    listener = Deno.listen({ transport: "unix", path });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      Object.assign(error as Error, { code: "EADDRINUSE" });
    }
    return Promise.reject(error);
  }
  void (async () => {
    for await (const conn of listener) accept(new DenoConnection(conn));
  })().catch(() => {}); // Closed.
  return Promise.resolve({
    close: () => {
      try {
        listener.close();
      } catch {
        // Closed already.
      }
    },
  });
}
