/**
 * The `sessions/*` JSON-RPC methods of `termbridge serve`, through the real
 * CLI run by the runtime running the tests.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { ServeClient } from "../acp/serve_client.ts";
import { tempDir } from "./_kit.ts";

/** Runs `body` with a fresh `termbridge serve` and a temporary HOME for its sessions. */
async function withServe(body: (client: ServeClient, home: string) => Promise<void>) {
  const home = tempDir("termbridge-serve-sessions-");
  const client = ServeClient.start();
  try {
    await body(client, home);
  } finally {
    await client.dispose();
    rmSync(home, { recursive: true, force: true });
  }
}

/** `sessions/open` params of a bash session in `home`. */
function bashIn(name: string, home: string) {
  return { name, program: ["bash"], cwd: home, env: { HOME: home, HISTFILE: "/dev/null" } };
}

describe("sessions: serve", () => {
  it("sessions: serve opens, runs, lists and closes a session", async () => {
    await withServe(async (client, home) => {
      const opened = await client.call("sessions/open", bashIn("main", home));
      assert.equal(opened.name, "main");
      assert.equal(opened.integration, "shell");
      assert.equal(opened.cwd, home);

      const done = await client.call("sessions/exec", {
        name: "main",
        command: "echo from-rpc; cd /usr; (exit 4)",
        timeout: 4000,
      });
      assert.deepEqual(
        [done.status, done.exitCode, done.output, done.cwd, done.completion],
        ["completed", 4, "from-rpc\n", "/usr", "shell-integration"],
      );

      const running = await client.call("sessions/exec", {
        name: "main",
        command: "sleep 0.5; echo late",
        timeout: 50,
      });
      assert.equal(running.status, "running");
      const busy = await client.request("sessions/exec", { name: "main", command: "ls" });
      assert.equal(busy.error?.code, -32001);
      assert.match(busy.error!.message, /"sleep 0.5; echo late" is still running/);
      const rest = await client.call("sessions/exec", { name: "main", command: "", timeout: 4000 });
      assert.deepEqual([rest.status, rest.output], ["completed", "late\n"]);

      const { sessions } = await client.call("sessions/list", {});
      assert.equal(sessions.length, 1);
      assert.deepEqual([sessions[0].name, sessions[0].cwd, sessions[0].running], [
        "main",
        "/usr",
        null,
      ]);

      const shot = await client.call("sessions/screenshot", { name: "main" });
      assert.match(shot.content, /^from-rpc$/m);
      assert.deepEqual(shot.dimensions, { cols: 120, rows: 40 });

      assert.deepEqual(await client.call("sessions/close", { name: "main" }), {});
      assert.deepEqual((await client.call("sessions/list", {})).sessions, []);
      await waitUntil(() => !isAlive(opened.pid), "the closed session's shell to be gone");
    });
  });

  it("sessions: serve answers errors with their JSON-RPC codes", async () => {
    await withServe(async (client, home) => {
      await client.call("sessions/open", bashIn("errs", home));

      const badKey = await client.request("sessions/key", { name: "errs", keys: ["C-Nope"] });
      assert.equal(badKey.error?.code, -32602);
      assert.match(badKey.error!.message, /C-Nope/);

      const unknown = await client.request("sessions/exec", { name: "ghost", command: "ls" });
      assert.equal(unknown.error?.code, -32002);
      assert.match(unknown.error!.message, /No session is called "ghost" \(open: "errs"\)/);

      await client.call("sessions/exec", { name: "errs", command: "echo visible-text" });
      const timedOut = await client.request("sessions/wait", {
        name: "errs",
        text: "never shows",
        timeout: 200,
      });
      assert.equal(timedOut.error?.code, -32001);
      assert.match(timedOut.error!.message, /Timed out after 200 ms/);
      const data = timedOut.error!.data as { screen: string };
      assert.match(data.screen, /^visible-text$/m);

      const duplicate = await client.request("sessions/open", bashIn("errs", home));
      assert.equal(duplicate.error?.code, -32602);
      assert.match(duplicate.error!.message, /a session with that name is open/);

      const badParams = await client.request("sessions/exec", { name: "errs" });
      assert.equal(badParams.error?.code, -32602);

      const keys = await client.call("sessions/key", { name: "errs", keys: ["C-c"] });
      assert.deepEqual(keys, { sent: ["C-c"] });
    });
  });

  it("sessions: $/cancel_request stops an exec's wait, not the command, and loses none of its output", async () => {
    await withServe(async (client, home) => {
      await client.call("sessions/open", bashIn("cancel", home));
      const command = "echo before; sleep 2.5; echo after";
      const sent = performance.now();
      const { id, response } = await client.begin("sessions/exec", {
        name: "cancel",
        command,
        timeout: 2000,
      });
      await client.call("sessions/wait", { name: "cancel", regex: "^before$", timeout: 1800 });
      await client.notify("$/cancel_request", { requestId: id });
      assert.equal((await response).error?.code, -32800);
      // Past the cancelled exec's own timeout: it must not have taken "before" for itself.
      await new Promise((resolve) => setTimeout(resolve, 2200 - (performance.now() - sent)));
      const rest = await client.call("sessions/exec", {
        name: "cancel",
        command: "",
        timeout: 4000,
      });
      assert.deepEqual(
        [rest.status, rest.command, rest.output],
        ["completed", command, "before\nafter\n"],
      );
    });
  });

  it("sessions: $/cancel_request answers a pending sessions/wait with -32800", async () => {
    await withServe(async (client, home) => {
      await client.call("sessions/open", bashIn("waiting", home));
      const { id, response } = await client.begin("sessions/wait", {
        name: "waiting",
        text: "never printed",
        timeout: 30_000,
      });
      await client.notify("$/cancel_request", { requestId: id });
      assert.equal((await response).error?.code, -32800);
      const done = await client.call("sessions/exec", { name: "waiting", command: "echo ok" });
      assert.equal(done.output, "ok\n");
    });
  });

  it("sessions: serve's sessions/type writes its text as given; paste: true is one bracketed paste", async () => {
    await withServe(async (client, home) => {
      await client.call("sessions/open", bashIn("t", home));
      // The echoed line shows ty''ped: only the command's output shows typed.
      const typed = await client.call("sessions/type", { name: "t", text: "echo ty''ped\n" });
      assert.deepEqual(typed, { typed: 13 });
      await client.call("sessions/wait", { name: "t", regex: "^typed$", timeout: 15_000 });
      // The output can arrive before bash's next prompt: exec refuses while the line still runs.
      await client.call("sessions/wait", { name: "t", prompt: true, timeout: 15_000 });
      await client.call("sessions/exec", {
        name: "t",
        command: "printf '\\033[?2004h'; stty -icanon -echo; echo re''ady; cat -v",
        timeout: 100,
      });
      await client.call("sessions/wait", { name: "t", regex: "^ready$", timeout: 15_000 });
      await client.call("sessions/type", { name: "t", text: "a\nb", paste: true });
      await client.call("sessions/wait", {
        name: "t",
        regex: "\\^\\[\\[200~a$[\\s\\S]*^b\\^\\[\\[201~",
        timeout: 15_000,
      });
      await client.call("sessions/key", { name: "t", keys: ["C-c"] });
    });
  });

  it("sessions: the end of serve's stdin closes every session", async () => {
    const home = tempDir("termbridge-serve-sessions-");
    const client = ServeClient.start();
    try {
      const first = await client.call("sessions/open", bashIn("first", home));
      const second = await client.call("sessions/open", bashIn("second", home));
      await client.call("sessions/exec", { name: "second", command: "sleep 100", timeout: 50 });
      assert.ok(isAlive(first.pid) && isAlive(second.pid));
      await client.child.closeStdin();
      const finished = await client.child.finished(4000);
      assert.deepEqual(finished.status, { exitCode: 0, signal: null });
      await waitUntil(
        () => !isAlive(first.pid) && !isAlive(second.pid),
        "the sessions' shells to be gone",
        2000,
      );
    } finally {
      await client.dispose();
      rmSync(home, { recursive: true, force: true });
    }
  });

  // Interactive bash ignores SIGTERM: the end of stdin must hang the shells up
  // (SIGHUP, so EXIT traps run), not wait out a TERM grace period.
  it("sessions: the end of serve's stdin hangs up the shells promptly", async () => {
    const home = tempDir("termbridge-serve-sessions-");
    const client = ServeClient.start();
    try {
      const marker = join(home, "exit-trap-ran");
      await client.call("sessions/open", bashIn("hup", home));
      // A builtin writes the marker (no fork), so a loaded machine cannot make
      // the trap outlast the hang-up grace period.
      await client.call("sessions/exec", { name: "hup", command: `trap ': > ${marker}' EXIT` });
      await client.child.closeStdin();
      const started = performance.now();
      await client.child.finished(4000);
      const stopMs = performance.now() - started;
      assert.ok(existsSync(marker), "the shell's EXIT trap ran: it was hung up, not killed");
      assert.ok(stopMs < 1500, `serve stopped in ${Math.round(stopMs)} ms`);
    } finally {
      await client.dispose();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
