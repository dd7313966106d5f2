/**
 * End-to-end tests of `termbridge mcp` as a process: end of stdin kills and
 * reaps every session and exits 0, stdout carries only protocol, `--record`,
 * `--config` (JSONC) and a bad config's error.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { isAlive, waitUntil } from "../helpers.ts";
import {
  McpProcess,
  removeDir,
  serverEnv,
  STEP_MS,
  tempDir,
  termbridgeCommand,
  withMcp,
} from "./_kit.ts";
import { call, INITIALIZE, RawServer } from "./_raw.ts";

/** The processes of `pids` still alive, with their names. */
function stillAlive(pids: number[]): string {
  return pids.filter(isAlive).map((pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return `${pid} ${stat.slice(stat.indexOf("("), stat.lastIndexOf(")") + 1)}`;
  }).join(", ");
}

describe("mcp process", () => {
  it("mcp: closing the client (end of stdin) ends the server with exit 0", async () => {
    const mcp = await McpProcess.start();
    const pid = mcp.pid;
    try {
      assert.ok(isAlive(pid), "the server runs");
      await mcp.ok("getContent"); // With a shell to end too.
    } finally {
      assert.deepEqual(await mcp.close(), { code: 0, signal: null });
    }
    assert.ok(!isAlive(pid), "reaped");
    assert.deepEqual(mcp.protocolErrors, []);
  });

  it("mcp: end of stdin kills and reaps every session's processes and exits 0", async () => {
    const pids: number[] = [];
    await withMcp(async (mcp) => {
      await mcp.ok("openSession", { name: "second" });
      const running = JSON.parse(
        await mcp.ok("terminal_execute", {
          command: "sh -c 'echo pid=$$; exec sleep 100'",
          timeout: 0.5,
        }),
      );
      assert.equal(running.status, "running");
      pids.push(Number(/pid=(\d+)/.exec(running.content)![1]));
      const { sessions } = JSON.parse(await mcp.ok("listSessions"));
      assert.equal(sessions.length, 2);
      pids.push(...sessions.map((session: { pid: number }) => session.pid));
      assert.ok(pids.every(isAlive), `all alive before stdin ends: ${pids}`);
    }); // Closes stdin and checks the exit status is 0.
    await waitUntil(() => !pids.some(isAlive), "every process to be gone", 5000).catch(() => {
      assert.fail(`still alive 5 s after the exit: ${stillAlive(pids)}`);
    });
  });

  it("mcp: end of stdin also kills background jobs, even one started with nohup", async () => {
    // Interactive bash puts each job in a process group of its own: closing must reach every
    // group of the terminal's session, also jobs that ignore SIGHUP (nohup).
    const pids: number[] = [];
    try {
      await withMcp(async (mcp) => {
        const job = JSON.parse(
          await mcp.ok("terminal_execute", {
            command: "nohup sleep 200 >/dev/null 2>&1 & echo bg=$!",
          }),
        );
        pids.push(Number(/bg=(\d+)/.exec(job.content)![1]));
        assert.ok(isAlive(pids[0]), "the job runs");
      });
      await waitUntil(() => !pids.some(isAlive), "the job to be gone", 5000).catch(() => {
        assert.fail(`still alive 5 s after the exit: ${stillAlive(pids)}`);
      });
    } finally {
      for (const pid of pids.filter(isAlive)) process.kill(pid, "SIGKILL"); // Leave nothing behind.
    }
  });

  it("mcp: stdout carries only JSON-RPC, whatever the commands print", async () => {
    const server = new RawServer();
    try {
      server.send(INITIALIZE);
      assert.ok("result" in await server.response(1));
      server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      server.send(call(2, "terminal_execute", {
        command: "echo noise-out; echo noise-err >&2; printf '\\033[31mred\\033[0m\\n'",
      }));
      const executed = await server.response(2) as { result: { content: { text: string }[] } };
      assert.match(executed.result.content[0].text, /noise-out/);
      server.send("this is not json");
      assert.equal((await server.response(null) as { error: { code: number } }).error.code, -32700);
      server.send(call(3, "getContent", {}));
      assert.ok(await server.response(3));
      assert.deepEqual(await server.stop(), { code: 0, signal: null });
      assert.ok(server.lines.length >= 4, server.lines.join("\n"));
      for (const line of server.lines) {
        assert.equal(JSON.parse(line).jsonrpc, "2.0", line);
      }
    } finally {
      await server.stop();
    }
  });

  it("mcp: a command in flight when stdin ends is answered promptly and the server exits 0", async () => {
    // At end of stdin the shell is hung up: a terminal_execute still waiting for its command
    // to start must end then, not wait out its timeout (timing-dependent; execute.test.ts
    // shows the same case deterministically).
    const server = new RawServer();
    try {
      server.send(INITIALIZE);
      await server.response(1);
      server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      server.send(call(2, "terminal_execute", { command: "echo warm" }));
      await server.response(2);
      const started = performance.now();
      server.endInput(call(3, "terminal_execute", { command: "sleep 100", timeout: 6 }));
      // Not killed after a grace: a killed server would leave its shells' start-up files behind.
      const status = await server.stop(STEP_MS);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 4000, `exited ${Math.round(elapsed)} ms after stdin ended`);
      assert.deepEqual(status, { code: 0, signal: null });
      assert.ok(server.lines.some((line) => JSON.parse(line).id === 3), "request 3 answered");
    } finally {
      await server.stop();
    }
  });

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`mcp: ${signal} answers a pending wait and exits 0`, async () => {
      const server = new RawServer();
      try {
        server.send(INITIALIZE);
        await server.response(1);
        server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        server.send(call(2, "terminal_execute", { command: "echo warm" }));
        await server.response(2);
        server.send(call(3, "wait", { text: "never-printed", timeout: 60 }));
        await new Promise((resume) => setTimeout(resume, 300)); // The request read.
        server.signal(signal);
        assert.deepEqual(await server.exited, { code: 0, signal: null });
        const answer = await server.response(3);
        assert.equal((answer.error as { code: number }).code, -32800);
      } finally {
        await server.stop();
      }
    });
  }

  it("mcp: once its stdout's reader is gone, the next answer ends it: shells killed, exit 0", async () => {
    const server = new RawServer();
    try {
      server.send(INITIALIZE);
      await server.response(1);
      server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      server.send(call(2, "terminal_execute", { command: "echo pid=$$" }));
      const answer = JSON.stringify(await server.response(2));
      const shell = Number(/pid=(\d+)/.exec(answer)![1]);
      assert.ok(isAlive(shell));
      server.closeStdout();
      server.send(call(3, "terminal_execute", { command: "echo again" }));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise((done) => timer = setTimeout(() => done("still running"), 5000));
      const ended = await Promise.race([server.exited, timeout]);
      clearTimeout(timer);
      assert.deepEqual(ended, { code: 0, signal: null });
      await waitUntil(() => !isAlive(shell), `shell ${shell} to be gone`, 5000);
    } finally {
      await server.stop();
    }
  });

  it("mcp: a tools/call without params is -32602 in words, not zod's issues as JSON", async () => {
    const server = new RawServer();
    try {
      server.send(INITIALIZE);
      await server.response(1);
      server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      server.send({ jsonrpc: "2.0", id: 2, method: "tools/call" });
      const { error } = await server.response(2) as { error: { code: number; message: string } };
      assert.equal(error.code, -32602);
      assert.match(error.message, /^Invalid params: params: .*expected object/);
      assert.doesNotMatch(error.message, /[[{]/);
    } finally {
      await server.stop();
    }
  });

  it("mcp: --record DIR writes one asciicast v2 file per session", async () => {
    const dir = tempDir("termbridge-mcp-record-");
    try {
      await withMcp(async (mcp) => {
        await mcp.ok("terminal_execute", { command: "echo recorded-$((40+2))" });
        await mcp.ok("openSession", { name: "other", cols: 90, rows: 20 });
        await mcp.ok("terminal_execute", { command: "echo other-line", terminal_id: "other" });
      }, { args: ["--record", join(dir, "casts")] });
      const files = readdirSync(join(dir, "casts")).sort();
      assert.equal(files.length, 2, files.join(", "));
      assert.match(files[0], /^default-.*\.cast$/);
      assert.match(files[1], /^other-.*\.cast$/);
      const [defaultCast, otherCast] = files.map((file) =>
        readFileSync(join(dir, "casts", file), "utf8").trimEnd().split("\n").map((line) =>
          JSON.parse(line)
        )
      );
      assert.deepEqual(
        [defaultCast[0].version, defaultCast[0].width, defaultCast[0].height],
        [2, 120, 40],
      );
      assert.deepEqual([otherCast[0].version, otherCast[0].width, otherCast[0].height], [
        2,
        90,
        20,
      ]);
      const output = defaultCast.slice(1).filter((event) => event[1] === "o").map((e) => e[2]);
      assert.match(output.join(""), /recorded-42/);
      for (const event of defaultCast.slice(1)) {
        assert.ok(typeof event[0] === "number" && ["o", "i", "r"].includes(event[1]), event);
      }
    } finally {
      removeDir(dir);
    }
  });

  it("mcp: --config reads a JSONC file (comments, trailing comma) for the session size", async () => {
    const dir = tempDir("termbridge-mcp-config-");
    try {
      const config = join(dir, "termbridge.jsonc");
      writeFileSync(
        config,
        [
          "// termbridge test configuration",
          "{",
          "  /* the size of new sessions */",
          '  "cols": 100,',
          '  "rows": 30, // a trailing comma follows',
          "}",
          "",
        ].join("\n"),
      );
      await withMcp(async (mcp) => {
        const shot = JSON.parse(await mcp.ok("takeScreenshot"));
        assert.deepEqual(shot.dimensions, { cols: 100, rows: 30 });
        const size = JSON.parse(await mcp.ok("terminal_execute", { command: "stty size" }));
        assert.equal(size.content, "30 100\n");
      }, { args: ["--config", config] });
      // A command-line option wins over the file.
      await withMcp(async (mcp) => {
        const shot = JSON.parse(await mcp.ok("takeScreenshot"));
        assert.deepEqual(shot.dimensions, { cols: 90, rows: 30 });
      }, { args: ["--config", config, "--cols", "90"] });
    } finally {
      removeDir(dir);
    }
  });

  const badConfigs: [string, string | undefined, RegExp][] = [
    [
      "a syntax error",
      '{\n  "cols": 100,\n  "rows": \n}',
      /^Invalid config .*:4:1: expected a value$/,
    ],
    ["an unknown key", '{ "colz": 100 }', /^Invalid config .*:1:3: unknown key "colz"/],
    [
      "a wrong value",
      '{ "rows": 0 }',
      /^Invalid config .*:1:11: "rows" must be a whole number >= 1, not 0$/,
    ],
    ["a missing file", undefined, /^Cannot read config ".*": no such file$/],
  ];
  for (const [name, text, expected] of badConfigs) {
    it(`mcp: a bad --config (${name}) is a clear error on stderr and exit 2`, () => {
      const dir = tempDir("termbridge-mcp-bad-config-");
      try {
        const path = join(dir, "bad.jsonc");
        if (text !== undefined) writeFileSync(path, text);
        const { command, args } = termbridgeCommand();
        const result = spawnSync(command, [...args, "mcp", "--config", path], {
          env: { ...process.env, ...serverEnv() },
          input: "",
          encoding: "utf8",
          timeout: STEP_MS,
        });
        assert.equal(result.status, 2, result.stderr);
        assert.equal(result.stdout, "");
        const message = result.stderr.trim().replace(/^termbridge: /, "");
        assert.match(message, expected);
        assert.ok(message.includes(path), message);
      } finally {
        removeDir(dir);
      }
    });
  }
});
