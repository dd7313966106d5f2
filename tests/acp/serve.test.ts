/**
 * End-to-end tests of `termbridge serve`: raw JSON-RPC lines on its stdin,
 * responses read from its stdout, real commands in real PTYs.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { GRANDCHILD_COMMAND, GRANDCHILD_PIDS } from "./agents/kit.ts";
import { ServeClient } from "./serve_client.ts";

const SESSION = "sess-1";

/** Runs `body` with a fresh `termbridge serve`, always stopped afterwards. */
async function withServe(body: (client: ServeClient) => Promise<void>): Promise<void> {
  const client = ServeClient.start();
  try {
    await body(client);
  } finally {
    await client.dispose();
  }
}

/** Creates a terminal in SESSION and returns its id. */
async function create(client: ServeClient, params: Record<string, unknown>): Promise<string> {
  const { terminalId } = await client.call("terminal/create", { sessionId: SESSION, ...params });
  assert.equal(typeof terminalId, "string");
  return terminalId;
}

/** Runs a command to its end; returns its exit status and final output. */
async function run(client: ServeClient, params: Record<string, unknown>) {
  const terminalId = await create(client, params);
  const ids = { sessionId: SESSION, terminalId };
  const exit = await client.call("terminal/wait_for_exit", ids);
  const output = await client.call("terminal/output", ids);
  await client.call("terminal/release", ids);
  return { terminalId, exit, output };
}

/** Polls terminal/output until `pattern` matches; returns the match. */
async function outputMatching(
  client: ServeClient,
  terminalId: string,
  pattern: RegExp,
): Promise<RegExpMatchArray> {
  const deadline = performance.now() + 20_000;
  for (;;) {
    const { output } = await client.call("terminal/output", { sessionId: SESSION, terminalId });
    const match = (output as string).match(pattern);
    if (match !== null) return match;
    if (performance.now() > deadline) {
      throw new Error(`Timed out waiting for ${pattern} in ${JSON.stringify(output)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("serve", () => {
  it("serve: initialize reports protocol version 1 and the methods served", async () => {
    await withServe(async (client) => {
      const result = await client.call("initialize", { protocolVersion: 1 });
      assert.equal(result.protocolVersion, 1);
      for (const method of ["terminal/create", "terminal/wait_for_exit", "fs/read_text_file"]) {
        assert.ok(result.methods.includes(method), `${method} in ${result.methods}`);
      }
    });
  });

  it("serve: a shell line's exit code and output come back", async () => {
    await withServe(async (client) => {
      const { exit, output } = await run(client, { command: "echo hi; exit 3" });
      assert.deepEqual(exit, { exitCode: 3, signal: null });
      assert.deepEqual(output, {
        output: "hi\n",
        truncated: false,
        exitStatus: { exitCode: 3, signal: null },
      });
    });
  });

  it("serve: a signal death is exitCode null with the signal's name", async () => {
    await withServe(async (client) => {
      const { exit, output } = await run(client, { command: "kill -TERM $$" });
      assert.deepEqual(exit, { exitCode: null, signal: "SIGTERM" });
      assert.deepEqual(output.exitStatus, { exitCode: null, signal: "SIGTERM" });
    });
  });

  it("serve: kill keeps the terminal readable; release makes its id unknown (-32002)", async () => {
    await withServe(async (client) => {
      const terminalId = await create(client, { command: "echo started; exec sleep 100" });
      const ids = { sessionId: SESSION, terminalId };
      await outputMatching(client, terminalId, /started/);
      const running = await client.call("terminal/output", ids);
      assert.equal(running.exitStatus, undefined);
      assert.deepEqual(await client.call("terminal/kill", ids), {});
      const killed = await client.call("terminal/output", ids);
      assert.equal(killed.output, "started\n");
      assert.deepEqual(killed.exitStatus, { exitCode: null, signal: "SIGTERM" });
      assert.deepEqual(await client.call("terminal/wait_for_exit", ids), {
        exitCode: null,
        signal: "SIGTERM",
      });
      assert.deepEqual(await client.call("terminal/release", ids), {});
      const gone = await client.request("terminal/output", ids);
      assert.equal(gone.error?.code, -32002);
      assert.match(gone.error!.message, new RegExp(`"${terminalId}".*released`));
      // A second release succeeds, as under acpx (claude-code-acp releases twice);
      // not for another session.
      assert.deepEqual(await client.call("terminal/release", ids), {});
      const intruder = await client.request("terminal/release", { ...ids, sessionId: "intruder" });
      assert.equal(intruder.error?.code, -32002);
    });
  });

  it("serve: a malformed line is answered -32700 and the loop goes on", async () => {
    await withServe(async (client) => {
      const parseError = client.responseTo(null);
      await client.send("{this is not json");
      assert.equal((await parseError).error?.code, -32700);
      const { exit } = await run(client, { command: "true" });
      assert.deepEqual(exit, { exitCode: 0, signal: null });
    });
  });

  it("serve: a message with an id but neither a method nor a result is -32600 with that id", async () => {
    await withServe(async (client) => {
      const answer = client.responseTo(12);
      await client.send('{"jsonrpc":"2.0","id":12}');
      const { error } = await answer;
      assert.equal(error?.code, -32600);
      assert.match(error?.message ?? "", /neither a method .* nor a result or an error/);
    });
  });

  it("serve: $/cancel_request sent with an id cancels and is answered {}", async () => {
    await withServe(async (client) => {
      const terminalId = await create(client, { command: "sleep", args: ["100"] });
      const ids = { sessionId: SESSION, terminalId };
      const { id, response } = await client.begin("terminal/wait_for_exit", ids);
      assert.deepEqual(await client.call("$/cancel_request", { requestId: id }), {});
      assert.equal((await response).error?.code, -32800);
      await client.call("terminal/release", ids);
    });
  });

  it("serve: a NUL in a path is -32602; writing to a FIFO is -32012, neither an internal error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-serve-fifo-"));
    try {
      const fifo = join(dir, "fifo");
      spawnSync("mkfifo", [fifo]);
      await withServe(async (client) => {
        for (const method of ["fs/read_text_file", "fs/write_text_file"]) {
          const { error } = await client.request(method, {
            sessionId: SESSION,
            path: `${dir}/a\u0000b`,
            content: "x",
          });
          assert.equal(error?.code, -32602, method);
          assert.match(error?.message ?? "", /the path contains a NUL character/);
        }
        const { error } = await client.request("fs/write_text_file", {
          sessionId: SESSION,
          path: fifo,
          content: "x",
        });
        assert.equal(error?.code, -32012);
        assert.match(error?.message ?? "", /it is a special file \(a FIFO, socket or device\)/);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serve: an unknown method is -32601", async () => {
    await withServe(async (client) => {
      const response = await client.request("terminal/teleport", { sessionId: SESSION });
      assert.equal(response.error?.code, -32601);
    });
  });

  it("serve: missing params are -32602", async () => {
    await withServe(async (client) => {
      const response = await client.request("terminal/create");
      assert.equal(response.error?.code, -32602);
      const noCommand = await client.request("terminal/create", { sessionId: SESSION });
      assert.equal(noCommand.error?.code, -32602);
    });
  });

  it("serve: a relative cwd is -32602 saying the path must be absolute", async () => {
    await withServe(async (client) => {
      const response = await client.request("terminal/create", {
        sessionId: SESSION,
        command: "true",
        cwd: "some/dir",
      });
      assert.equal(response.error?.code, -32602);
      assert.match(response.error!.message, /absolute/);
      assert.match(response.error!.message, /"some\/dir"/);
    });
  });

  it("serve: another session's terminal is not found", async () => {
    await withServe(async (client) => {
      const terminalId = await create(client, { command: "sleep", args: ["100"] });
      for (const method of ["terminal/output", "terminal/kill", "terminal/release"]) {
        const response = await client.request(method, { sessionId: "intruder", terminalId });
        assert.equal(response.error?.code, -32002, method);
        assert.match(response.error!.message, /another session/);
      }
      // It still runs for its own session, which releases it.
      const own = await client.call("terminal/output", { sessionId: SESSION, terminalId });
      assert.equal(own.exitStatus, undefined);
      await client.call("terminal/release", { sessionId: SESSION, terminalId });
    });
  });

  const truncations = [
    { name: "2-byte", text: "ééééé", limit: 5, expected: "éé" },
    { name: "3-byte", text: "a€€€", limit: 7, expected: "€€" },
    { name: "4-byte", text: "😀😀x", limit: 6, expected: "😀x" },
    { name: "exact fit", text: "ab€", limit: 4, expected: "b€" },
  ];
  for (const { name, text, limit, expected } of truncations) {
    it(`serve: outputByteLimit keeps the tail on a character boundary (${name})`, async () => {
      await withServe(async (client) => {
        const { output } = await run(client, {
          command: "printf",
          args: ["%s", text],
          outputByteLimit: limit,
        });
        assert.equal(output.output, expected);
        assert.equal(output.truncated, true);
        assert.ok(!output.output.startsWith("\uFFFD"));
        assert.ok(new TextEncoder().encode(output.output).length <= limit);
      });
    });
  }

  it("serve: output polled during a pending wait_for_exit only grows", async () => {
    await withServe(async (client) => {
      const terminalId = await create(client, {
        command: "for i in 1 2 3 4 5 6 7 8; do echo line $i; sleep 0.1; done",
      });
      const ids = { sessionId: SESSION, terminalId };
      const { response: exited } = await client.begin("terminal/wait_for_exit", ids);
      let done = false;
      void exited.then(() => done = true);
      const snapshots: string[] = [];
      while (!done) {
        snapshots.push((await client.call("terminal/output", ids)).output);
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      assert.deepEqual((await exited).result, { exitCode: 0, signal: null });
      const last = await client.call("terminal/output", ids);
      snapshots.push(last.output);
      for (let i = 1; i < snapshots.length; i++) {
        assert.ok(
          snapshots[i].startsWith(snapshots[i - 1]),
          `snapshot ${i} ${JSON.stringify(snapshots[i])} extends ${
            JSON.stringify(snapshots[i - 1])
          }`,
        );
      }
      assert.ok(
        new Set(snapshots).size >= 3,
        `output grew while polled: ${snapshots.length} polls`,
      );
      assert.equal(last.output, [1, 2, 3, 4, 5, 6, 7, 8].map((i) => `line ${i}\n`).join(""));
      await client.call("terminal/release", ids);
    });
  });

  it("serve: args are passed literally, a line without args goes through the shell", async () => {
    await withServe(async (client) => {
      const literal = await run(client, { command: "printf", args: ["%s|", "a b", "$HOME"] });
      assert.equal(literal.output.output, "a b|$HOME|");
      const shell = await run(client, { command: 'echo "$((1+2))"' });
      assert.equal(shell.output.output, "3\n");
    });
  });

  it("serve: commands get stdin at end of file, so cat exits at once", async () => {
    await withServe(async (client) => {
      const { exit, output } = await run(client, { command: "cat" });
      assert.deepEqual(exit, { exitCode: 0, signal: null });
      assert.equal(output.output, "");
    });
  });

  it("serve: pagers and git prompts are off unless the request sets them", async () => {
    await withServe(async (client) => {
      const line = 'printf "%s,%s,%s" "$PAGER" "$GIT_PAGER" "$GIT_TERMINAL_PROMPT"';
      assert.equal((await run(client, { command: line })).output.output, "cat,cat,0");
      const mine = await run(client, { command: line, env: [{ name: "PAGER", value: "less" }] });
      assert.equal(mine.output.output, "less,cat,0");
    });
  });

  it("serve: an exit code above 128 stays an exit code; SIGKILL is a signal", async () => {
    await withServe(async (client) => {
      assert.deepEqual((await run(client, { command: "exit 143" })).exit, {
        exitCode: 143,
        signal: null,
      });
      assert.deepEqual((await run(client, { command: "kill -KILL $$" })).exit, {
        exitCode: null,
        signal: "SIGKILL",
      });
    });
  });

  it("serve: a character split across two writes arrives whole", async () => {
    await withServe(async (client) => {
      // The two halves of "€" (e2 82 | ac) come 0.2 s apart, in separate reads.
      const { output } = await run(client, {
        command: String.raw`printf '\342\202'; sleep 0.2; printf '\254|'`,
      });
      assert.equal(output.output, "€|");
    });
  });

  it("serve: --output-limit caps every terminal, even a larger outputByteLimit", async () => {
    const client = ServeClient.start(["--output-limit", "8"]);
    try {
      const { output } = await run(client, {
        command: "printf",
        args: ["0123456789abcdef"],
        outputByteLimit: 100,
      });
      assert.equal(output.output, "89abcdef");
      assert.equal(output.truncated, true);
    } finally {
      await client.dispose();
    }
  });

  it("serve: a bad environment variable name is -32602 naming it", async () => {
    await withServe(async (client) => {
      const response = await client.request("terminal/create", {
        sessionId: SESSION,
        command: "true",
        env: [{ name: "A=B", value: "x" }],
      });
      assert.equal(response.error?.code, -32602);
      assert.match(response.error!.message, /"A=B"/);
    });
  });

  it("serve: null optional fields and _meta are accepted", async () => {
    await withServe(async (client) => {
      const { output } = await run(client, {
        command: "printf abc",
        args: null,
        env: null,
        cwd: null,
        outputByteLimit: null,
        _meta: { "vendor.example/trace": "1" },
      });
      assert.equal(output.output, "abc");
    });
  });

  it("serve: a wait_for_exit pending at release is answered with the signal", async () => {
    await withServe(async (client) => {
      const terminalId = await create(client, { command: "sleep", args: ["100"] });
      const ids = { sessionId: SESSION, terminalId };
      const { response } = await client.begin("terminal/wait_for_exit", ids);
      assert.deepEqual(await client.call("terminal/release", ids), {});
      assert.deepEqual((await response).result, { exitCode: null, signal: "SIGTERM" });
    });
  });

  it("serve: $/cancel_request of a pending wait_for_exit answers -32800", async () => {
    await withServe(async (client) => {
      const terminalId = await create(client, { command: "sleep", args: ["100"] });
      const ids = { sessionId: SESSION, terminalId };
      const { id, response } = await client.begin("terminal/wait_for_exit", ids);
      await client.notify("$/cancel_request", { requestId: id });
      assert.equal((await response).error?.code, -32800);
      // The terminal itself is untouched.
      assert.equal((await client.call("terminal/output", ids)).exitStatus, undefined);
      await client.call("terminal/release", ids);
    });
  });

  it("serve: fs methods read and write real files with absolute paths only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-serve-"));
    try {
      await withServe(async (client) => {
        const path = join(dir, "a.txt");
        await client.call("fs/write_text_file", { sessionId: SESSION, path, content: "x\ny\n" });
        assert.equal(readFileSync(path, "utf8"), "x\ny\n");
        const read = await client.call("fs/read_text_file", { sessionId: SESSION, path, line: 2 });
        assert.equal(read.content, "y\n");
        const relative = await client.request("fs/read_text_file", {
          sessionId: SESSION,
          path: "a.txt",
        });
        assert.equal(relative.error?.code, -32602);
        assert.match(relative.error!.message, /absolute/);
        const missing = await client.request("fs/read_text_file", {
          sessionId: SESSION,
          path: join(dir, "nope.txt"),
        });
        assert.equal(missing.error?.code, -32010);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serve: stdout carries only JSON-RPC lines", async () => {
    await withServe(async (client) => {
      await run(client, { command: "echo noise; echo more noise >&2" });
      await client.send("not json either");
      await client.responseTo(null);
      for (const line of client.child.lines) assert.doesNotThrow(() => JSON.parse(line), line);
    });
  });

  it("serve: end of stdin kills every terminal, grandchildren too, and exits 0", async () => {
    const client = ServeClient.start();
    try {
      const sleeper = await create(client, { command: 'echo "pid=$$"; exec sleep 100' });
      const [, pid] = await outputMatching(client, sleeper, /pid=(\d+)/);
      const family = await create(client, { command: GRANDCHILD_COMMAND });
      const [, leader, child] = await outputMatching(client, family, GRANDCHILD_PIDS);
      const pids = [pid, leader, child].map(Number);
      assert.ok(pids.every(isAlive), "all running before stdin closes");
      await client.child.closeStdin();
      const { status } = await client.child.finished();
      assert.deepEqual(status, { exitCode: 0, signal: null });
      await waitUntil(() => !pids.some(isAlive), `pids ${pids} to be gone`, 5000);
    } finally {
      await client.dispose();
    }
  });

  it("serve: end of stdin after invalid requests with ids still exits 0", async () => {
    const client = ServeClient.start();
    try {
      // Answered with id null (the SDK's way), so they must not count as pending.
      await client.send('{"id":8,"method":"x"}');
      await client.send('{"jsonrpc":"2.0","id":10,"method":5}');
      const invalid = await client.responseTo(null);
      assert.equal(invalid.error?.code, -32600);
      await client.child.closeStdin();
      const { status } = await client.child.finished();
      assert.deepEqual(status, { exitCode: 0, signal: null });
    } finally {
      await client.dispose();
    }
  });

  it("serve: requests that reuse an id are all answered before the end of stdin", async () => {
    const client = ServeClient.start();
    try {
      const sleeper = await create(client, { command: "sleep 100" });
      const ids = { sessionId: SESSION, terminalId: sleeper };
      await client.send(
        JSON.stringify({ jsonrpc: "2.0", id: 77, method: "terminal/wait_for_exit", params: ids }),
      );
      await client.send(
        JSON.stringify({ jsonrpc: "2.0", id: 77, method: "terminal/output", params: ids }),
      );
      await client.child.closeStdin();
      const { status } = await client.child.finished();
      assert.deepEqual(status, { exitCode: 0, signal: null });
      const answers = client.child.lines.filter((line) => JSON.parse(line).id === 77);
      assert.equal(answers.length, 2, answers.join("\n"));
    } finally {
      await client.dispose();
    }
  });

  it("serve: NUL characters in a command are invalid params naming the field", async () => {
    await withServe(async (client) => {
      for (
        const params of [{ command: "echo", args: ["a\0b"] }, {
          command: "echo",
          env: [{ name: "A", value: "x\0y" }],
        }]
      ) {
        const response = await client.request("terminal/create", { sessionId: SESSION, ...params });
        assert.equal(response.error?.code, -32602);
        assert.match(response.error?.message ?? "", /NUL character/);
      }
    });
  });

  for (const signal of ["SIGTERM", "SIGHUP"]) {
    it(`serve: ${signal} answers a pending wait_for_exit and sessions/wait before exiting 0`, async () => {
      const client = ServeClient.start(["--no-audit"]);
      try {
        const terminalId = await create(client, { command: "sleep", args: ["100"] });
        const exit = await client.begin("terminal/wait_for_exit", {
          sessionId: SESSION,
          terminalId,
        });
        await client.call("sessions/open", { name: "a" });
        const wait = await client.begin("sessions/wait", { name: "a", text: "never" });
        await new Promise((resume) => setTimeout(resume, 300)); // Both requests read.
        client.child.signal(signal);
        const { status } = await client.child.finished();
        assert.deepEqual(status, { exitCode: 0, signal: null });
        assert.deepEqual((await exit.response).result, { exitCode: null, signal: "SIGTERM" });
        const waited = await wait.response;
        assert.equal(waited.error?.code, -32800);
        assert.match(waited.error?.message ?? "", /input ended/);
      } finally {
        await client.dispose();
      }
    });
  }

  it("serve: SIGTERM kills every terminal and exits 0", async () => {
    const client = ServeClient.start();
    try {
      const sleeper = await create(client, { command: 'echo "pid=$$"; exec sleep 100' });
      const [, pid] = await outputMatching(client, sleeper, /pid=(\d+)/);
      client.child.signal("SIGTERM");
      const { status } = await client.child.finished();
      assert.deepEqual(status, { exitCode: 0, signal: null });
      await waitUntil(() => !isAlive(Number(pid)), `pid ${pid} to be gone`, 5000);
    } finally {
      await client.dispose();
    }
  });
});
