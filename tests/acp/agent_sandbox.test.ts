/**
 * The agent's limits and sandbox, through the built binary: the agent
 * limits reach the processes the agent starts; with `sandbox.mode` set the
 * agent's own commands cannot write outside the workspace and its state
 * directories but can inside them, and reach the network only as
 * `sandbox.agentNetwork` says; `termbridge config` shows the keys and the
 * header says what holds the agent.
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import {
  acpArgv,
  agentArgv,
  parseEvents,
  reportsOf,
  runAcp,
  termbridgeUnderTest,
} from "./acp_run.ts";
import { Child } from "./child.ts";

const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);
const PYTHON = "/usr/bin/python3";

interface Dirs {
  root: string;
  workspace: string;
  outside: string;
  home: string;
  config: string;
}

/** A workspace, a directory outside it and a home, outside /tmp (which the sandbox replaces). */
async function withDirs(config: object, body: (dirs: Dirs) => Promise<void>): Promise<void> {
  const root = mkdtempSync("/var/tmp/tb-agent-sandbox-");
  const dirs = {
    root,
    workspace: join(root, "ws"),
    outside: join(root, "out"),
    home: join(root, "home"),
    config: join(root, "termbridge.jsonc"),
  };
  for (const dir of [dirs.workspace, dirs.outside, join(dirs.home, ".claude")]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(dirs.config, JSON.stringify(config));
  try {
    await body(dirs);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Runs `termbridge acp --config FILE` with `sh -c LINE` as the agent (it exits at once: 5). */
async function runShellAgent(dirs: Dirs, line: string): Promise<void> {
  const child = Child.start(
    acpArgv(["/bin/sh", "-c", line], {
      cwd: dirs.workspace,
      flags: ["--config", dirs.config, "--init-timeout", "20"],
    }),
    { env: { HOME: dirs.home } },
  );
  try {
    const { status } = await child.finished();
    assert.equal(status.exitCode, 5, `the agent ends before initialize: ${child.stderr}`);
  } finally {
    await child.dispose();
  }
}

function read(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8").trim() : "(missing)";
}

describe("acp agent sandbox and limits", () => {
  for (const limited of [true, false]) {
    it(`acp: limits.agentMemoryBytes ${limited ? "stops" : "absent lets"} a grandchild allocating 200 MB`, async () => {
      const config = limited ? { limits: { agentMemoryBytes: 100 * 1024 * 1024 } } : {};
      await withDirs(config, async (dirs) => {
        const rc = join(dirs.root, "rc");
        const grandchild =
          `${PYTHON} -c 'bytearray(200 * 1024 * 1024)' 2>/dev/null; echo \\$? >${rc}`;
        await runShellAgent(dirs, `sh -c "${grandchild}" & wait`);
        assert.equal(read(rc), limited ? "1" : "0", "python's exit status (1: MemoryError)");
      });
    });
  }

  it("acp: limits.agentCpuSeconds ends a grandchild's busy loop with SIGXCPU", async () => {
    await withDirs({ limits: { agentCpuSeconds: 1 } }, async (dirs) => {
      const rc = join(dirs.root, "rc");
      await runShellAgent(dirs, `sh -c 'while :; do :; done'; echo $? >${rc}`);
      assert.equal(read(rc), "152", "128 + SIGXCPU (24)");
    });
  });

  for (const mode of ["workspace-write", "off"]) {
    itWhen(
      hasBwrap || mode === "off",
      `acp: sandbox.mode ${mode}: the agent's own writes outside the workspace ${
        mode === "off" ? "work" : "fail"
      }, inside and in its state directory they work`,
      async () => {
        await withDirs({ sandbox: { mode } }, async (dirs) => {
          const report = join(dirs.workspace, "report");
          const line = [
            `touch ${dirs.outside}/escaped; echo "out=$?" >>${report}`,
            `touch ${dirs.home}/escaped; echo "home=$?" >>${report}`,
            `touch ${dirs.workspace}/inside; echo "in=$?" >>${report}`,
            `touch ${dirs.home}/.claude/state; echo "state=$?" >>${report}`,
          ].join("; ");
          await runShellAgent(dirs, line);
          const sandboxed = mode !== "off";
          assert.equal(
            read(report),
            [`out=${sandboxed ? 1 : 0}`, `home=${sandboxed ? 1 : 0}`, "in=0", "state=0"].join("\n"),
          );
          assert.equal(existsSync(join(dirs.outside, "escaped")), !sandboxed);
          assert.equal(existsSync(join(dirs.workspace, "inside")), true);
          assert.equal(existsSync(join(dirs.home, ".claude", "state")), true);
        });
      },
    );
  }

  itWhen(
    hasBwrap,
    "acp: the sandboxed agent and what it runs hold no capability and cannot remount the sandbox writable",
    async () => {
      await withDirs({ sandbox: { mode: "workspace-write" } }, async (dirs) => {
        const report = join(dirs.workspace, "report");
        const caps = "grep -E '^(CapPrm|CapEff|CapAmb|NoNewPrivs):' /proc/self/status";
        const line = [
          `${caps} >>${report}`,
          `sh -c "${caps}" >>${report}`,
          `mount -o remount,rw / 2>/dev/null; echo "remount=$?" >>${report}`,
          `touch ${dirs.outside}/escaped 2>/dev/null; echo "out=$?" >>${report}`,
        ].join("; ");
        await runShellAgent(dirs, line);
        const none = ["CapPrm:\t0000000000000000", "CapEff:\t0000000000000000"];
        const held = [...none, "CapAmb:\t0000000000000000", "NoNewPrivs:\t1"];
        const lines = read(report).split("\n");
        assert.deepEqual(lines.slice(0, 8), [...held, ...held], "the agent, then its child");
        assert.notEqual(lines[8], "remount=0");
        assert.equal(lines[9], "out=1");
        assert.equal(existsSync(join(dirs.outside, "escaped")), false);
      });
    },
  );

  it("acp: a sandbox that cannot start (bwrap fails) is said as such, exit 1", async () => {
    await withDirs({ sandbox: { mode: "workspace-write" } }, async (dirs) => {
      // A bwrap that fails as one does where user namespaces are off.
      const bin = join(dirs.root, "bin");
      mkdirSync(bin);
      writeFileSync(
        join(bin, "bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
        { mode: 0o755 },
      );
      const child = Child.start(
        acpArgv(["/bin/sh", "-c", "exit 0"], {
          cwd: dirs.workspace,
          prompts: ["hi"],
          flags: ["--config", dirs.config],
        }),
        { env: { HOME: dirs.home, PATH: `${bin}:${runtime.env().PATH}` } },
      );
      try {
        const { status } = await child.finished();
        assert.equal(status.exitCode, 1, child.stderr);
        const error = parseEvents(child.lines).find((event) => event.type === "error");
        assert.equal(
          error?.message,
          'Cannot run commands in the sandbox (sandbox.mode "workspace-write"): bwrap failed: ' +
            "bwrap: No permissions to create new namespace",
        );
      } finally {
        await child.dispose();
      }
    });
  });

  for (const network of [true, false]) {
    itWhen(
      hasBwrap,
      `acp: sandbox.agentNetwork ${network}: the sandboxed agent ${
        network ? "reaches" : "cannot reach"
      } a listener on the host's 127.0.0.1`,
      async () => {
        const server = createServer((socket) => socket.end("hello from the host\n"));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const { port } = server.address() as { port: number };
        try {
          const config = { sandbox: { mode: "workspace-write", agentNetwork: network } };
          await withDirs(config, async (dirs) => {
            const got = join(dirs.workspace, "got");
            const connect =
              `import socket; s = socket.create_connection(("127.0.0.1", ${port}), 5); ` +
              `print(s.recv(100).decode().strip())`;
            await runShellAgent(dirs, `${PYTHON} -c '${connect}' >${got} 2>&1`);
            if (network) assert.equal(read(got), "hello from the host");
            else assert.match(read(got), /ConnectionRefused|Network is unreachable|Errno/);
          });
        } finally {
          await new Promise((resolve) => server.close(resolve));
        }
      },
    );
  }

  itWhen(
    hasBwrap,
    "acp: the header says what holds the agent: containment, sandbox and limits",
    async () => {
      const config = { sandbox: { mode: "workspace-write" }, limits: { agentCpuSeconds: 600 } };
      await withDirs(config, async (dirs) => {
        const child = Child.start(
          acpArgv(
            [...agentArgv("tree_agent"), join(dirs.workspace, "pids"), "tb-header", "start"],
            {
              cwd: dirs.workspace,
              prompts: ["hi"],
              flags: ["--config", dirs.config],
            },
          ),
        );
        try {
          const { status } = await child.finished();
          assert.equal(status.exitCode, 0, child.stderr);
          const agent = parseEvents(child.lines).find((event) => event.type === "agent");
          const enclosure = String(agent?.enclosure);
          assert.match(enclosure, /^contained \((cgroup|marker)\)/);
          assert.match(enclosure, /sandbox workspace-write, network on, writes /);
          assert.ok(enclosure.includes(dirs.workspace), enclosure);
          assert.match(enclosure, /limits per process: 600 CPU seconds/);
        } finally {
          await child.dispose();
        }
      });
    },
  );

  itWhen(
    hasBwrap,
    "acp: a sandboxed agent with a private /tmp still reaches termbridge's MCP terminal tools",
    async () => {
      // policy.write without /tmp/**: the agent's /tmp is private, the tools' socket is not there.
      const config = { sandbox: { mode: "workspace-write" }, policy: { write: ["${cwd}/**"] } };
      await withDirs(config, async (dirs) => {
        const run = await runAcp(agentArgv("mcp_agent"), {
          cwd: dirs.workspace,
          prompts: ["run echo tools-in-the-sandbox"],
          flags: ["--yes", "--config", dirs.config],
        });
        const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
        assert.equal(run.status.exitCode, 0, context);
        const agent = run.events.find((event) => event.type === "agent");
        assert.match(String(agent?.enclosure), /and a private \/tmp$/);
        const result = reportsOf(run.events).get("result") as { isError: boolean; text: string };
        assert.equal(result?.isError, false, context);
        assert.match(result.text, /tools-in-the-sandbox/);
      });
    },
  );

  it("acp: termbridge config shows the agent's limits and sandbox keys with their defaults", async () => {
    const child = Child.start([...termbridgeUnderTest(), "config", "--json"], {
      cwd: runtime.cwd(),
      env: { XDG_CONFIG_HOME: "/nonexistent/termbridge-test" },
    });
    try {
      const { status, stdout } = await child.finished();
      assert.equal(status.exitCode, 0);
      const { settings } = JSON.parse(stdout);
      assert.deepEqual(settings["limits.agentMemoryBytes"], { value: 0, source: "default" });
      assert.deepEqual(settings["limits.agentCpuSeconds"], { value: 0, source: "default" });
      assert.deepEqual(settings["limits.agentProcesses"], { value: 0, source: "default" });
      assert.deepEqual(settings["limits.agentTreeTasks"], { value: 0, source: "default" });
      assert.deepEqual(settings["limits.agentTreeMemoryBytes"], { value: 0, source: "default" });
      assert.deepEqual(settings["sandbox.agentNetwork"], { value: true, source: "default" });
      assert.ok(settings["sandbox.agentWrite"].value.includes("~/.claude"));
    } finally {
      await child.dispose();
    }
  });
});
