/**
 * A session's program gets its terminal read-write on stdin, stdout and
 * stderr, through the built binary (the sources when it is not current):
 * tmux, which draws on the descriptor its client got as stdin, showed a blank
 * screen in a session (and `tmux attach` nothing in bench/server.ts) while
 * the PTY's stdin was opened read-only.
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, it, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld } from "./_kit.ts";
import { onPath } from "../helpers.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";

/** Whether tmux is installed. */
const HAS_TMUX = onPath("tmux");

describe("session server: a program's stdio is its terminal, read-write", () => {
  it("writing to stdin works in a session's shell", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "rw", "--", "bash", "--norc", "--noprofile"]);
      const out = await world.ok(["exec", "rw", "echo via-fd0 >&0 && echo fd0-ok"]);
      assert.match(out, /fd0-ok/);
      assert.doesNotMatch(out, /Bad file descriptor/);
    }));

  itWhen(
    HAS_TMUX,
    "tmux in a session draws its window and status line",
    () =>
      inWorld(BUILD, async (world) => {
        const sock = join(world.dir, "inner-tmux.sock");
        try {
          await world.ok([
            "new",
            "tm",
            "--",
            "tmux",
            "-S",
            sock,
            "-f",
            "/dev/null",
            "new-session",
            "bash --norc --noprofile",
          ]);
          let screen = "";
          const deadline = performance.now() + 20_000;
          while (!/\[0\] 0:bash\*/.test(screen)) {
            if (performance.now() > deadline) {
              throw new Error(`tmux drew no status line; the screen shows:\n${screen}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 100));
            screen = await world.ok(["screen", "tm"]);
          }
        } finally {
          const kill = runtime.spawnPiped({
            argv: ["tmux", "-S", sock, "kill-server"],
            stderr: "pipe",
          });
          await kill.stdin.close();
          await Promise.all([
            kill.exited,
            new Response(kill.stdout).text(),
            new Response(kill.stderr!).text(),
          ]);
        }
      }),
  );
});
