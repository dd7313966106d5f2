/**
 * `runtime.connectUnix`, the socket client of the short subcommands: bytes
 * both ways in order (a write larger than the socket takes at once
 * included), the end reported, and the error codes the autostart relies on.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runtime } from "../../lib/runtime/mod.ts";

describe("runtime.connectUnix", () => {
  it("echoes 4 MiB in order and reports the end when the peer closes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "termbridge-unix-"));
    const path = join(dir, "echo.sock");
    const sockets = new Set<Socket>();
    const size = 4 * 1024 * 1024;
    // Echoes everything, then closes once it has seen `size` bytes.
    const server = createServer((socket) => {
      sockets.add(socket);
      let seen = 0;
      socket.on("data", (chunk: Uint8Array) => {
        seen += chunk.length;
        socket.write(chunk);
        if (seen >= size) socket.end();
      });
      socket.on("error", () => {}); // The test's own client; "close" follows.
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    try {
      const received: Uint8Array[] = [];
      let total = 0;
      const ended = new Promise<Error | undefined>((resolve) => {
        void runtime.connectUnix(path, {
          data: (chunk) => {
            received.push(chunk);
            total += chunk.length;
          },
          close: resolve,
        }).then((connection) => {
          const payload = new Uint8Array(size);
          for (let i = 0; i < size; i++) payload[i] = i % 251;
          connection.write(payload);
        });
      });
      const error = await ended;
      assert.equal(error, undefined);
      assert.equal(total, size);
      const joined = new Uint8Array(total);
      let at = 0;
      for (const chunk of received) {
        joined.set(chunk, at);
        at += chunk.length;
      }
      for (let i = 0; i < size; i += 4099) assert.equal(joined[i], i % 251, `byte ${i}`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails with ENOENT for a missing socket and ECONNREFUSED for a stale one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "termbridge-unix-"));
    try {
      const events = { data: () => {}, close: () => {} };
      await assert.rejects(
        runtime.connectUnix(join(dir, "missing.sock"), events),
        (error: Error & { code?: string }) => error.code === "ENOENT",
      );
      // A file nobody listens on, as a killed server's socket is: the kernel refuses.
      const stale = join(dir, "stale.sock");
      writeFileSync(stale, "");
      await assert.rejects(
        runtime.connectUnix(stale, events),
        (error: Error & { code?: string }) => error.code === "ECONNREFUSED",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
