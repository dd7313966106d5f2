/**
 * The bubblewrap sandbox, through the terminal service and the sessions:
 * writes outside the workspace and connections to a listener on 127.0.0.1
 * are stopped while the same commands work with the sandbox off; exit codes,
 * signals and the pid stay the program's; a sandbox that cannot be had is a
 * refusal that says how to install it, never an unsandboxed run.
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { runtime } from "../../lib/runtime/mod.ts";
import {
  type SandboxSettings,
  SandboxUnavailableError,
  writeRoots,
} from "../../lib/sandbox/mod.ts";
import { TerminalService } from "../../lib/service/terminal_service.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";
import { Child } from "../acp/child.ts";
import { currentBinary } from "../built_binary.ts";
import { termbridgeArgv } from "../helpers.ts";
import { writeTextFile } from "../../lib/service/text_files.ts";
import { PolicyDeniedError } from "../../lib/safety/guard.ts";

/** The compiled binary when it is built and current (`make build`). */
const binary = currentBinary();
const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);
const WORKSPACE: SandboxSettings = { mode: "workspace-write", network: false };

interface Dirs {
  workspace: string;
  outside: string;
}

async function withDirs(body: (dirs: Dirs) => Promise<void>): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), "tb-sandbox-ws-"));
  // Outside the workspace and outside /tmp (which the sandbox replaces).
  const outside = mkdtempSync("/var/tmp/tb-sandbox-out-");
  try {
    await body({ workspace, outside });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
}

/** Runs a shell line to its end in a service with `sandbox`; returns output and status. */
async function run(
  line: string,
  cwd: string,
  sandbox?: SandboxSettings,
  env?: Record<string, string>,
) {
  const service = new TerminalService({ cwd, sandbox, env });
  try {
    const id = await service.create({ sessionId: "s", command: line });
    const status = await service.waitForExit("s", id);
    const pid = service.terminal("s", id).pid;
    return { status, output: service.output("s", id).output, pid };
  } finally {
    await service.releaseAll();
  }
}

async function listening(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.end("hello\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe("sandbox", () => {
  itWhen(
    hasBwrap,
    "sandbox: workspace-write stops a write outside the workspace, not inside",
    async () => {
      await withDirs(async ({ workspace, outside }) => {
        const line = `echo x >${outside}/escaped; echo x >${workspace}/inside; echo done`;
        const boxed = await run(line, workspace, WORKSPACE);
        assert.match(boxed.output, /Read-only file system/);
        assert.equal(existsSync(join(outside, "escaped")), false);
        assert.equal(existsSync(join(workspace, "inside")), true);
        rmSync(join(workspace, "inside"));
        const free = await run(line, workspace);
        assert.doesNotMatch(free.output, /Read-only/);
        assert.equal(existsSync(join(outside, "escaped")), true, "works with the sandbox off");
      });
    },
  );

  itWhen(hasBwrap, "sandbox: read-only leaves only a private /tmp writable", async () => {
    await withDirs(async ({ workspace }) => {
      const marker = `/tmp/tb-private-${Date.now()}`;
      const line = `echo x >${workspace}/inside; echo x >${marker} && cat ${marker}`;
      const boxed = await run(line, workspace, { mode: "read-only" });
      assert.match(boxed.output, /Read-only file system/);
      assert.match(boxed.output, /^x$/m, "the private /tmp is writable");
      assert.equal(existsSync(join(workspace, "inside")), false);
      assert.equal(existsSync(marker), false, "the private /tmp is not the host's");
    });
  });

  itWhen(
    hasBwrap,
    "sandbox: network false stops a connection to 127.0.0.1; off, it connects",
    async () => {
      const { server, port } = await listening();
      try {
        await withDirs(async ({ workspace }) => {
          const line = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3'`;
          const boxed = await run(line, workspace, WORKSPACE);
          assert.doesNotMatch(boxed.output, /hello/);
          assert.notEqual(boxed.status.exitCode, 0);
          const free = await run(line, workspace, { ...WORKSPACE, mode: "off" });
          assert.match(free.output, /hello/);
          const networked = await run(line, workspace, { ...WORKSPACE, network: true });
          assert.match(networked.output, /hello/, "network: true keeps the network");
        });
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    },
  );

  itWhen(
    hasBwrap,
    "sandbox: exit codes, signal deaths and the pid stay the program's",
    async () => {
      await withDirs(async ({ workspace }) => {
        const r3 = await run("exit 3", workspace, WORKSPACE);
        assert.deepEqual(r3.status, {
          exitCode: 3,
          signal: null,
        });
        assert.deepEqual((await run("kill -TERM $$", workspace, WORKSPACE)).status, {
          exitCode: null,
          signal: "SIGTERM",
        });
        const { output, pid } = await run('echo "pid=$$"', workspace, WORKSPACE);
        assert.match(output, new RegExp(`pid=${pid}\\b`));
      });
    },
  );

  itWhen(
    hasBwrap,
    "sandbox: a request's cwd outside the workspace stays read-only, relative paths included",
    async () => {
      await withDirs(async ({ workspace, outside }) => {
        const service = new TerminalService({ cwd: workspace, sandbox: WORKSPACE });
        try {
          const id = await service.create({
            sessionId: "s",
            cwd: outside,
            command:
              `pwd; echo x >relative; echo x >${outside}/absolute; echo x >${workspace}/inside`,
          });
          await service.waitForExit("s", id);
          const { output } = service.output("s", id);
          assert.match(output, new RegExp(`^${outside}$`, "m"), "it runs in its cwd");
          assert.match(output, /Read-only file system/);
          const seen = `; the output: ${JSON.stringify(output)}`;
          assert.equal(
            existsSync(join(outside, "relative")),
            false,
            `relative: not the host's${seen}`,
          );
          assert.equal(existsSync(join(outside, "absolute")), false, `absolute${seen}`);
          assert.equal(
            existsSync(join(workspace, "inside")),
            true,
            `the workspace: writable${seen}`,
          );
        } finally {
          await service.releaseAll();
        }
        const sessions = new SessionManager({ cwd: workspace, sandbox: WORKSPACE });
        try {
          const session = await sessions.open({
            name: "elsewhere",
            program: ["bash"],
            cwd: outside,
          });
          const write = await session.exec("echo x >relative", 10_000);
          assert.notEqual(write.exitCode, 0, `the session's write: ${JSON.stringify(write)}`);
          assert.equal(existsSync(join(outside, "relative")), false);
        } finally {
          await sessions.closeAll();
        }
      });
    },
  );

  itWhen(
    hasBwrap,
    "sandbox: read-only refuses a relative write in the working directory too",
    async () => {
      await withDirs(async ({ workspace }) => {
        const boxed = await run("echo x >relative", workspace, { mode: "read-only" });
        assert.match(boxed.output, /Read-only file system/);
        assert.equal(existsSync(join(workspace, "relative")), false);
      });
    },
  );

  itWhen(
    hasBwrap,
    "sandbox: termbridge's own files in the writable workspace stay read-only (serve)",
    async () => {
      await withDirs(async ({ workspace }) => {
        const config = join(workspace, "termbridge.jsonc");
        const text = '{ "sandbox": { "mode": "workspace-write", "network": false } }\n';
        writeFileSync(config, text);
        const child = Child.start([...termbridgeArgv(), "serve"], { cwd: workspace });
        try {
          const send = (id: number, method: string, params: unknown) =>
            child.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
          await send(1, "terminal/create", {
            sessionId: "s",
            command: `echo '{}' >termbridge.jsonc; echo '{}' >${config}; rm -f ${config}; ` +
              `mv ${config} ${workspace}/moved; echo x >inside`,
          });
          await child.waitForLine((line) => line.includes('"terminalId"'), "the terminal id");
          await send(2, "terminal/wait_for_exit", { sessionId: "s", terminalId: "term-1" });
          await child.waitForLine((line) => line.includes('"id":2'), "the exit status");
          assert.equal(readFileSync(config, "utf8"), text);
          assert.equal(existsSync(join(workspace, "inside")), true, "the workspace is writable");
        } finally {
          await child.dispose();
        }
      });
    },
  );

  itWhen(
    hasBwrap && process.getuid?.() === 0,
    "sandbox: the cgroup hierarchy stays read-only even under a writable directory (no leaving one's cgroup)",
    async () => {
      const mount = readFileSync("/proc/self/mountinfo", "utf8").split("\n")
        .map((line) => line.split(" ")).find((fields) =>
          fields[fields.indexOf("-") + 1] === "cgroup2"
        );
      if (mount === undefined) return; // No cgroup v2 here.
      await withDirs(async ({ workspace }) => {
        const line = `echo $$ >${mount[4]}/cgroup.procs && echo moved`;
        const boxed = await run(line, workspace, { ...WORKSPACE, write: ["/sys/**"] });
        assert.match(boxed.output, /Read-only file system/);
        assert.doesNotMatch(boxed.output, /moved/);
      });
    },
  );

  itWhen(
    hasBwrap,
    'sandbox: a write glob "/**" makes the host writable and still starts (devices stay usable)',
    async () => {
      await withDirs(async ({ workspace, outside }) => {
        const line = `echo >/dev/null && echo x >${outside}/written && echo done`;
        const boxed = await run(line, workspace, { ...WORKSPACE, write: ["/**"] });
        assert.match(boxed.output, /^done$/m);
        assert.equal(existsSync(join(outside, "written")), true);
      });
    },
  );

  itWhen(
    hasBwrap,
    'sandbox: a workspace "/" (the session server runs there) is not made writable, nor is "${cwd}/**"',
    async () => {
      await withDirs(async ({ outside }) => {
        const sessions = new SessionManager({ cwd: "/", sandbox: WORKSPACE });
        try {
          const session = await sessions.open({ name: "server", program: ["bash"], cwd: outside });
          const write = await session.exec(
            `echo x >${outside}/escaped; echo >/dev/null && echo ok`,
            10_000,
          );
          assert.match(write.output, /Read-only file system/);
          assert.match(write.output, /^ok$/m);
          assert.equal(existsSync(join(outside, "escaped")), false);
        } finally {
          await sessions.closeAll();
        }
        assert.deepEqual(writeRoots({ ...WORKSPACE, write: ["${cwd}/**", "/var/tmp/**"] }, "/"), [
          "/var/tmp",
        ]);
      });
    },
  );

  itWhen(hasBwrap, "sandbox: kill takes the process group inside", async () => {
    await withDirs(async ({ workspace }) => {
      const service = new TerminalService({ cwd: workspace, sandbox: WORKSPACE });
      try {
        const id = await service.create({ sessionId: "s", command: "sleep 100 & sleep 100" });
        await service.kill("s", id);
        assert.deepEqual(await service.waitForExit("s", id), {
          exitCode: null,
          signal: "SIGTERM",
        });
      } finally {
        await service.releaseAll();
      }
    });
  });

  itWhen(
    hasBwrap,
    "sandbox: a shell session runs with its PTY as controlling terminal",
    async () => {
      await withDirs(async ({ workspace, outside }) => {
        const sessions = new SessionManager({ cwd: workspace, sandbox: WORKSPACE });
        try {
          const session = await sessions.open({ name: "boxed", program: ["bash"] });
          const tty = await session.exec("tty; echo $((6*7))", 10_000);
          assert.match(tty.output, /^\/dev\/pts\/\d+$/m);
          assert.match(tty.output, /^42$/m);
          const write = await session.exec(`echo x >${outside}/escaped`, 10_000);
          assert.notEqual(write.exitCode, 0);
          assert.equal(existsSync(join(outside, "escaped")), false);
        } finally {
          await sessions.closeAll();
        }
      });
    },
  );

  itWhen(
    hasBwrap && binary !== undefined,
    "sandbox: the built binary applies termbridge.jsonc's sandbox (serve)",
    async () => {
      await withDirs(async ({ workspace, outside }) => {
        writeFileSync(
          join(workspace, "termbridge.jsonc"),
          '{ "sandbox": { "mode": "workspace-write", "network": false } }\n',
        );
        const child = Child.start([binary!, "serve"], { cwd: workspace });
        try {
          const send = (id: number, method: string, params: unknown) =>
            child.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
          await send(1, "terminal/create", {
            sessionId: "s",
            command: `echo x >${outside}/escaped; echo x >${workspace}/inside`,
          });
          await child.waitForLine((line) => line.includes('"terminalId"'), "the terminal id");
          await send(2, "terminal/wait_for_exit", { sessionId: "s", terminalId: "term-1" });
          await child.waitForLine((line) => line.includes('"id":2'), "the exit status");
          assert.equal(existsSync(join(outside, "escaped")), false);
          assert.equal(existsSync(join(workspace, "inside")), true);
        } finally {
          await child.dispose();
        }
      });
    },
  );

  it("sandbox: asked for without bwrap on PATH, commands are refused with how to install it", async () => {
    await withDirs(async ({ workspace }) => {
      const env = { ...runtime.env(), PATH: "/nonexistent" };
      const service = new TerminalService({ cwd: workspace, sandbox: WORKSPACE, env });
      await assert.rejects(
        service.create({ sessionId: "s", command: `/bin/sh -c 'echo x >${workspace}/ran'` }),
        (error: Error) =>
          error instanceof SandboxUnavailableError &&
          /bubblewrap \(bwrap\) is not installed/.test(error.message) &&
          /apt-get install bubblewrap/.test(error.message),
      );
      assert.equal(existsSync(join(workspace, "ran")), false, "never run unsandboxed");
      const sessions = new SessionManager({ cwd: workspace, sandbox: WORKSPACE, env });
      await assert.rejects(sessions.open({ name: "x" }), SandboxUnavailableError);
      await sessions.closeAll();
    });
  });

  it("sandbox: fs/write_text_file obeys the sandbox's write roots", async () => {
    await withDirs(async ({ workspace, outside }) => {
      const write = (sandbox: SandboxSettings | undefined, path: string) => {
        const service = new TerminalService({ cwd: workspace, sandbox });
        return writeTextFile(path, "x", service.fileAccess("s"));
      };
      await write(WORKSPACE, join(workspace, "inside"));
      assert.equal(existsSync(join(workspace, "inside")), true);
      await assert.rejects(
        write(WORKSPACE, join(outside, "escaped")),
        (error: Error) =>
          error instanceof PolicyDeniedError &&
          /Denied by policy: cannot write .*: the sandbox makes only ".*" writable/.test(
            error.message,
          ),
      );
      await assert.rejects(
        write({ mode: "read-only" }, join(workspace, "again")),
        /the sandbox makes only nothing writable/,
      );
      assert.equal(existsSync(join(outside, "escaped")), false);
      assert.equal(existsSync(join(workspace, "again")), false);
      await write(undefined, join(outside, "free"));
      assert.equal(existsSync(join(outside, "free")), true, "the sandbox off restricts nothing");
    });
  });

  it("sandbox: the write roots the fs methods obey", () => {
    assert.equal(writeRoots(undefined, "/w"), null);
    assert.equal(writeRoots({ mode: "off" }, "/w"), null);
    assert.deepEqual(writeRoots({ mode: "read-only" }, "/w"), []);
    assert.deepEqual(
      writeRoots({ mode: "workspace-write", write: ["${cwd}/**", "/nonexistent/a*/b"] }, "/w"),
      ["/w", "/nonexistent"],
    );
  });
});
