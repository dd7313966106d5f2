/**
 * The guard end to end, through the built binary (or main.ts): a deny rule on
 * a harmless marker program holds through serve's terminal/create (with and
 * without args) and sessions/exec, and through mcp's terminal_execute; an ask
 * is answered by --yes and refused without; the audit log is complete after
 * SIGKILL of termbridge; an invalid config stops every mode with file:line:col;
 * a repository's shell is ignored unless trusted; `config` names its sources.
 * @module
 */

import { describe, it as nodeIt } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir, serverEnv, STEP_MS, tempDir, termbridgeCommand, withMcp } from "../mcp/_kit.ts";
import { markerWorkspace } from "./_workspace.ts";
import { Serve } from "./_serve.ts";

/** A workspace of its own (see markerWorkspace). */
function workspace(config: unknown): { dir: string; bin: string; env: Record<string, string> } {
  return markerWorkspace(config, "termbridge-guard-");
}

const S = "s1";

/**
 * A test with a generous timeout (Bun's default is 5 s). Not the shared
 * harness: these tests hold child processes' pipes that Deno's sanitizers
 * would count while the SDK's and node's streams wind down.
 */
function it(name: string, fn: () => Promise<void> | void): void {
  nodeIt(name, { timeout: 120_000 }, fn);
}

describe("guard", () => {
  it("guard: a deny rule on a program holds through serve in every spelling (the marker never runs)", async () => {
    const { dir, bin, env } = workspace({ policy: { deny: ["marker"] } });
    const serve = new Serve([], { cwd: dir, env });
    try {
      const rows: [string, string, unknown][] = [
        ["line", "terminal/create", { sessionId: S, command: "marker a" }],
        ["args", "terminal/create", { sessionId: S, command: "marker", args: ["b"] }],
        ["path", "terminal/create", { sessionId: S, command: join(bin, "marker"), args: ["c"] }],
        ["sh -c", "terminal/create", { sessionId: S, command: "sh", args: ["-c", "marker d"] }],
        ["list", "terminal/create", { sessionId: S, command: "echo x; marker e" }],
        ["wrapper", "terminal/create", { sessionId: S, command: "env FOO=1 marker f" }],
        ["quoted", "terminal/create", { sessionId: S, command: "'mar'ker g" }],
        ["substitution", "terminal/create", { sessionId: S, command: "echo $(marker h)" }],
      ];
      for (const [name, method, params] of rows) {
        const answer = await serve.request(method, params);
        const error = answer.error as { code: number; message: string; data: { rule: unknown } };
        assert.equal(error?.code, -32003, `${name}: ${JSON.stringify(answer)}`);
        assert.equal(error.message, "Denied by policy");
        assert.deepEqual(error.data.rule, { list: "deny", pattern: "marker" });
      }
      const opened = await serve.request("sessions/open", { name: "sh" });
      assert.equal(opened.error, undefined, JSON.stringify(opened));
      const exec = await serve.request("sessions/exec", { name: "sh", command: "marker i" });
      assert.equal((exec.error as { code: number })?.code, -32003, JSON.stringify(exec));
      // The control: an allowed command does run.
      const control = await serve.request("terminal/create", {
        sessionId: S,
        command: `touch ${dir}/ran-control`,
      });
      const terminalId = (control.result as { terminalId: string }).terminalId;
      await serve.request("terminal/wait_for_exit", { sessionId: S, terminalId });
      assert.ok(existsSync(join(dir, "ran-control")));
      for (const name of "abcdefghi") {
        assert.equal(existsSync(join(dir, `ran-${name}`)), false, `marker ${name} ran`);
      }
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("guard: an ask rule is run with --yes and refused (-32003) without", async () => {
    const { dir, env } = workspace({ policy: { ask: ["marker"] } });
    try {
      for (const yes of [true, false]) {
        const serve = new Serve(yes ? ["--yes"] : [], { cwd: dir, env });
        try {
          const name = yes ? "yes" : "no";
          const answer = await serve.request("terminal/create", {
            sessionId: S,
            command: `marker ${name}`,
          });
          if (yes) {
            const terminalId = (answer.result as { terminalId: string }).terminalId;
            await serve.request("terminal/wait_for_exit", { sessionId: S, terminalId });
          } else {
            assert.equal((answer.error as { code: number }).code, -32003);
            assert.match(JSON.stringify(answer.error), /not approved/);
          }
          assert.equal(existsSync(join(dir, `ran-${name}`)), yes);
        } finally {
          await serve.close();
        }
      }
    } finally {
      removeDir(dir);
    }
  });

  it("guard: mcp terminal_execute of a denied program is a tool error and it never runs", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    try {
      await withMcp(async (mcp) => {
        for (const command of ["marker a", "sh -c 'marker b'", "true && marker c"]) {
          const result = await mcp.call("terminal_execute", { command });
          assert.equal(result.isError, true, result.text);
          assert.match(result.text, /Denied by policy: deny rule "marker"/);
        }
        const ok = await mcp.call("terminal_execute", { command: "echo fine" });
        assert.equal(ok.isError, false, ok.text);
      }, { cwd: dir, env });
      for (const name of "abc") assert.equal(existsSync(join(dir, `ran-${name}`)), false);
    } finally {
      removeDir(dir);
    }
  });

  it("guard: the audit log has every event, parseable, after SIGKILL of termbridge mid-run", async () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    const audit = join(dir, "audit.jsonl");
    const serve = new Serve(["--audit", audit], { cwd: dir, env });
    try {
      const done = await serve.request("terminal/create", {
        sessionId: S,
        command: "echo",
        args: ["hi"],
        env: [{ name: "SECRET_NAME", value: "secret-value" }],
      });
      const first = (done.result as { terminalId: string }).terminalId;
      await serve.request("terminal/wait_for_exit", { sessionId: S, terminalId: first });
      await serve.request("terminal/release", { sessionId: S, terminalId: first });
      await serve.request("terminal/create", { sessionId: S, command: "marker x" });
      await serve.request("fs/write_text_file", {
        sessionId: S,
        path: join(dir, "note.txt"),
        content: "hello",
      });
      await serve.request("fs/read_text_file", { sessionId: S, path: join(dir, "note.txt") });
      const killed = await serve.request("terminal/create", { sessionId: S, command: "sleep 60" });
      const killedId = (killed.result as { terminalId: string }).terminalId;
      await serve.request("terminal/kill", { sessionId: S, terminalId: killedId });
      await serve.request("terminal/wait_for_exit", { sessionId: S, terminalId: killedId });
      const running = await serve.request("terminal/create", { sessionId: S, command: "sleep 30" });
      assert.ok(running.result, JSON.stringify(running));
      serve.child.kill("SIGKILL");
      await new Promise((resolve) => serve.child.once("exit", resolve));
    } finally {
      removeDir(join(dir, "bin"));
    }
    try {
      const text = readFileSync(audit, "utf8");
      assert.ok(text.endsWith("\n"));
      assert.doesNotMatch(text, /secret-value/);
      const records = text.trim().split("\n").map((line) => JSON.parse(line));
      const events = records.map((r) => `${r.event}${r.decision ? `:${r.decision}` : ""}`);
      for (
        const expected of [
          "command:allow",
          "start",
          "exit",
          "release",
          "command:deny",
          "write:allow",
          "read:allow",
          "kill",
        ]
      ) {
        assert.ok(events.includes(expected), `${expected} missing from ${events.join(", ")}`);
      }
      // The last command answered (sleep) was recorded with its start before the reply.
      assert.equal(records.filter((r) => r.event === "start").length, 3);
      const exits = records.filter((r) => r.event === "exit");
      assert.ok(
        exits.some((r) => r.signal === "SIGTERM" && r.exitCode === null),
        "the kill's exit",
      );
      assert.ok(exits.some((r) => r.exitCode === 0 && r.outputBytes > 0), "echo's exit");
      const first = records.find((r) => r.event === "command");
      assert.equal(first.mode, "serve");
      assert.deepEqual(first.env, ["SECRET_NAME"]);
      assert.ok(records.every((r) => typeof r.time === "string" && r.session === S));
    } finally {
      removeDir(dir);
    }
  });

  it("guard: fs/write_text_file obeys the sandbox's writable directories as well as the globs", async () => {
    const { dir, env } = workspace({ sandbox: { mode: "read-only" } });
    const serve = new Serve([], { cwd: dir, env });
    try {
      const inside = join(dir, "inside.txt");
      const answer = await serve.request("fs/write_text_file", {
        sessionId: S,
        path: inside,
        content: "x",
      });
      const error = answer.error as { code: number; data: { message: string } };
      assert.equal(error?.code, -32003, JSON.stringify(answer));
      assert.match(error.data.message, /the sandbox makes only nothing writable/);
      assert.equal(existsSync(inside), false);
    } finally {
      await serve.close();
      removeDir(dir);
    }
    const open = workspace({});
    const again = new Serve([], { cwd: open.dir, env: open.env });
    try {
      const inside = join(open.dir, "inside.txt");
      const answer = await again.request("fs/write_text_file", {
        sessionId: S,
        path: inside,
        content: "x",
      });
      assert.deepEqual(answer.result, {}, JSON.stringify(answer));
      // Outside ${cwd}/** and /tmp/** (the default write globs), and `..` cannot climb out.
      const outsidePath = `/var/tmp/termbridge-guard-${process.pid}.txt`;
      const outside = await again.request("fs/write_text_file", {
        sessionId: S,
        path: join(open.dir, "..", "..", outsidePath),
        content: "x",
      });
      assert.equal((outside.error as { code: number })?.code, -32003, JSON.stringify(outside));
      assert.equal(existsSync(outsidePath), false);
      assert.equal(existsSync(inside), true);
    } finally {
      await again.close();
      removeDir(open.dir);
    }
  });

  it("guard: an invalid termbridge.jsonc stops every mode with exit 2 and file:line:col", () => {
    const dir = tempDir("termbridge-guard-bad-");
    try {
      writeFileSync(join(dir, "termbridge.jsonc"), '{\n  "limits": { "terminals": "many" }\n}\n');
      const { command, args } = termbridgeCommand();
      const modes = [["acp", "--", "true"], ["serve"], ["mcp"], ["repl"], ["run", "-"]];
      for (const mode of modes) {
        const result = spawnSync(command, [...args, ...mode], {
          cwd: dir,
          env: { ...process.env, ...serverEnv(), XDG_STATE_HOME: join(dir, "state") },
          input: "",
          encoding: "utf8",
          timeout: STEP_MS,
        });
        assert.equal(result.status, 2, `${mode[0]}: ${result.stderr}`);
        assert.ok(
          result.stderr.includes(`${join(dir, "termbridge.jsonc")}:2:28:`),
          `${mode[0]}: ${result.stderr}`,
        );
        assert.match(result.stderr, /"limits.terminals" must be a whole number/);
      }
    } finally {
      removeDir(dir);
    }
  });

  it("guard: a repository's shell is ignored with a warning in mcp, and taken when trusted", async () => {
    const { dir, bin, env } = workspace({});
    writeFileSync(join(bin, "evil-shell"), `#!/bin/sh\ntouch "${dir}/ran-shell"\nexec bash "$@"\n`);
    chmodSync(join(bin, "evil-shell"), 0o755);
    writeFileSync(
      join(dir, "termbridge.jsonc"),
      JSON.stringify({ shell: [join(bin, "evil-shell")] }),
    );
    const config = join(dir, "config");
    try {
      let stderr = "";
      await withMcp(async (mcp) => {
        const result = await mcp.call("terminal_execute", { command: "echo hi" });
        assert.equal(result.isError, false, result.text);
        stderr = mcp.stderr;
      }, { cwd: dir, env: { ...env, XDG_CONFIG_HOME: config } });
      assert.equal(existsSync(join(dir, "ran-shell")), false, "the repository's shell ran");
      assert.match(stderr, /warning: ignoring settings .* run code or widen access: shell/);
      mkdirSync(join(config, "termbridge"), { recursive: true });
      writeFileSync(
        join(config, "termbridge", "termbridge.jsonc"),
        JSON.stringify({ trust: [dir] }),
      );
      await withMcp(async (mcp) => {
        const result = await mcp.call("terminal_execute", { command: "echo hi" });
        assert.equal(result.isError, false, result.text);
      }, { cwd: dir, env: { ...env, XDG_CONFIG_HOME: config } });
      assert.equal(existsSync(join(dir, "ran-shell")), true, "the trusted shell did not run");
    } finally {
      removeDir(dir);
    }
  });

  it("guard: termbridge config --json names each value's file and line, flag or default", () => {
    const { dir, env } = workspace({});
    try {
      writeFileSync(
        join(dir, "termbridge.jsonc"),
        '{\n  "cols": 100,\n  "policy": {\n    "deny": ["curl"]\n  }\n}\n',
      );
      const { command, args } = termbridgeCommand();
      const result = spawnSync(command, [...args, "config", "--json", "--audit", "/tmp/x.jsonl"], {
        cwd: dir,
        env,
        encoding: "utf8",
        timeout: STEP_MS,
      });
      assert.equal(result.status, 0, result.stderr);
      const { settings } = JSON.parse(result.stdout);
      const file = join(dir, "termbridge.jsonc");
      assert.deepEqual(settings.cols, { value: 100, source: `${file}:2 (repository)` });
      assert.deepEqual(settings["policy.deny"], {
        value: ["curl"],
        source: `${file}:4 (repository)`,
      });
      assert.deepEqual(settings["audit.path"], { value: "/tmp/x.jsonl", source: "--audit" });
      assert.equal(settings.rows.source, "default");
      // The text form lists the configured rules and counts the shipped ones.
      const text = spawnSync(command, [...args, "config"], {
        cwd: dir,
        env,
        encoding: "utf8",
        timeout: STEP_MS,
      });
      assert.equal(text.status, 0, text.stderr);
      const policy = text.stdout.split("\n").find((line) => line.startsWith("Policy in force"));
      assert.match(policy ?? "", /; ask the \d+ shipped rules; deny \["curl"\] /);
      assert.ok((policy ?? "").length < 300, policy);
    } finally {
      removeDir(dir);
    }
  });
});
