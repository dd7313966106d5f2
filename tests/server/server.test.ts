import assert from "node:assert/strict";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, it, itWhen } from "../harness.ts";
import { isAlive, waitUntil } from "../helpers.ts";
import { BINARY_CURRENT, type Build, inWorld, termbridgeFor, type World } from "./_kit.ts";

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "drive_session.sh");

/** The pids of a session's program, from `ls --json`. */
async function sessionPids(world: World): Promise<number[]> {
  const listed = JSON.parse(await world.ok(["ls", "--json"]));
  return listed.sessions.map((s: { pid: number }) => s.pid);
}

async function runScript(build: Build): Promise<void> {
  await inWorld(build, async (world) => {
    const child = runtime.spawnPiped({
      argv: ["bash", SCRIPT],
      cwd: world.dir,
      env: { ...world.env, TB: termbridgeFor(build).join(" ") },
      stderr: "pipe",
    });
    await child.stdin.close();
    const [stdout, stderr, status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr!).text(),
      child.exited,
    ]);
    assert.equal(status.exitCode, 0, `the script failed:\n${stdout}\n${stderr}`);
    assert.match(stdout, /ALL-OK/);
    assert.equal(existsSync(world.socket), false, "kill-server removes the socket");
  });
}

describe("session server", () => {
  it("a bash script drives a session start to finish with the subcommands (sources)", () =>
    runScript("source"));

  itWhen(
    BINARY_CURRENT,
    "a bash script drives a session start to finish with the subcommands (built binary)",
    () => runScript("binary"),
  );

  it("the socket's directory is 0700 and the socket 0600", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "a"]);
      assert.equal(statSync(dirname(world.socket)).mode & 0o777, 0o700);
      assert.equal(statSync(world.socket).mode & 0o777, 0o600);
      assert.equal(statSync(world.socket).uid, process.getuid!());
    }));

  it("-L NAME, --socket PATH and $TERMBRIDGE_SOCKET choose separate servers", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "a", "-L", "other"]);
      const other = join(dirname(world.socket), "other.sock");
      assert.equal(existsSync(other), true);
      assert.equal(existsSync(world.socket), false, "the default server was not started");
      const path = join(world.dir, "env.sock");
      world.env.TERMBRIDGE_SOCKET = path;
      await world.ok(["new", "b"]);
      assert.equal(existsSync(path), true);
      assert.match(await world.ok(["ls", "--socket", other]), /^a\s/m);
      assert.match(await world.ok(["ls"]), /^b\s/m);
      await world.ok(["kill-server", "-L", "other"]);
      await world.ok(["kill-server"]);
      assert.equal(existsSync(other) || existsSync(path), false);
    }));

  it("a socket others may use, or another user's, is refused", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "a"]);
      chmodSync(world.socket, 0o666);
      let run = await world.tb(["ls"]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /others may use it \(mode 666, expected 600\)/);
      chmodSync(world.socket, 0o600);
      if (process.getuid!() === 0) {
        chownSync(world.socket, 65534, 65534);
        run = await world.tb(["ls"]);
        assert.equal(run.code, 1);
        assert.match(run.stderr, /belongs to user 65534, not to you \(0\)/);
        chownSync(world.socket, 0, 0);
      }
      assert.equal((await world.tb(["ls"])).code, 0);
    }));

  it("kill-server kills every session's processes and the server, and removes the socket", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "a"]);
      await world.ok(["new", "b", "--", "sleep", "300"]);
      const pids = [...await sessionPids(world), ...world.serverPids()];
      assert.equal(pids.length, 3);
      assert.ok(pids.every(isAlive));
      await world.ok(["kill-server"]);
      // kill-server returns once the server has exited, after it closed every session.
      assert.deepEqual(pids.filter(isAlive), []);
      assert.equal(existsSync(world.socket), false);
      const again = await world.tb(["kill-server"]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /no server is running on /);
    }));

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`${signal} stops the server: its sessions' processes are killed, the socket removed`, () =>
      inWorld("source", async (world) => {
        await world.ok(["new", "a", "--", "sleep", "300"]);
        const pids = [...await sessionPids(world), ...world.serverPids()];
        runtime.kill(world.serverPids()[0], signal);
        await waitUntil(() => !pids.some(isAlive), "the server and its session to end", 15_000);
        assert.equal(existsSync(world.socket), false);
      }));
  }

  it("after SIGKILL of the server the next command starts a fresh one and says the sessions were lost", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "a"]);
      const [shell] = await sessionPids(world);
      const [first] = world.serverPids();
      runtime.kill(first, "SIGKILL");
      // Its terminals hang up with it: the kernel sends SIGHUP to their programs.
      await waitUntil(() => !isAlive(first) && !isAlive(shell), "the server and its shell to die");
      assert.equal(existsSync(world.socket), true, "a killed server leaves its socket");
      const run = await world.tb(["new", "b"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /is gone \(it crashed or was killed\); its sessions were lost/);
      assert.equal(world.serverPids().length, 2);
      assert.deepEqual(
        JSON.parse(await world.ok(["ls", "--json"])).sessions.map((s: { name: string }) => s.name),
        ["b"],
      );
    }));

  it("the policy applies to the commands: a denied program never runs, and the audit log says so", () =>
    inWorld("source", async (world) => {
      mkdirSync(join(world.dir, "config", "termbridge"), { recursive: true });
      writeFileSync(
        join(world.dir, "config", "termbridge", "termbridge.jsonc"),
        '{ "policy": { "deny": ["touch"], "ask": ["mkdir"] } }',
      );
      await world.ok(["new", "p"]);
      const denied = await world.tb(["exec", "p", `touch ${world.dir}/ran-exec`]);
      assert.equal(denied.code, 123);
      assert.match(denied.stderr, /Denied by policy: deny rule "touch"/);
      await world.ok(["type", "p", `sh -c 'touch ${world.dir}/ran-typed'\n`]);
      await world.ok(["wait", "p", "text", "Denied by policy"]);
      assert.equal(await world.ok(["exec", "p", "echo allowed"]), "allowed\n");
      // An ask is refused, and the message says how to start a server that approves.
      const asked = await world.tb(["exec", "p", `mkdir ${world.dir}/ran-asked`]);
      assert.equal(asked.code, 123);
      assert.match(asked.stderr, /start the server with --yes/);
      assert.equal(existsSync(join(world.dir, "ran-asked")), false);
      assert.equal(existsSync(join(world.dir, "ran-exec")), false);
      assert.equal(existsSync(join(world.dir, "ran-typed")), false);
      const audit = readFileSync(join(world.dir, "state", "termbridge", "audit.jsonl"), "utf8")
        .trim().split("\n").map((line) => JSON.parse(line));
      assert.ok(
        audit.some((e) => e.mode === "server" && e.session === "p" && e.decision === "deny"),
      );
      // Which client did what: the subcommand and its pid, for commands, typed lines and asks.
      const client = (e: { client?: string }) => e.client ?? "(none)";
      const execDeny = audit.find((e) => e.origin === "exec" && /ran-exec/.test(e.line ?? ""));
      assert.match(client(execDeny), /^exec pid \d+$/, JSON.stringify(execDeny));
      const typedDeny = audit.find((e) => e.origin === "typed" && e.decision === "deny");
      assert.match(client(typedDeny), /^type pid \d+$/, JSON.stringify(typedDeny));
      const asks = audit.filter((e) => /ran-asked/.test(e.line ?? e.subject ?? ""));
      assert.ok(asks.length > 0, JSON.stringify(audit));
      for (const ask of asks) assert.match(client(ask), /^exec pid \d+$/, JSON.stringify(ask));
      await world.ok(["close", "p"]);
      const after = readFileSync(join(world.dir, "state", "termbridge", "audit.jsonl"), "utf8")
        .trim().split("\n").map((line) => JSON.parse(line));
      const release = after.find((e) => e.event === "release" && e.session === "p");
      assert.match(client(release), /^close pid \d+$/, JSON.stringify(release));
    }));

  it("a server started with --exit-empty stops once its last session is closed", () =>
    inWorld("source", async (world) => {
      const socket = join(world.dir, "own", "s.sock");
      const server = runtime.spawnPiped({
        argv: [...termbridgeFor("source"), "server", "--socket", socket, "--exit-empty"],
        env: world.env,
        stderr: "pipe",
      });
      await server.stdin.close();
      const log = new Response(server.stderr!).text();
      try {
        await waitUntil(() => existsSync(socket), "the server's socket", 20_000);
        await world.ok(["new", "a", "--socket", socket]);
        await world.ok(["new", "b", "--socket", socket]);
        await world.ok(["close", "a", "--socket", socket]);
        assert.equal(existsSync(socket), true, "one session is left");
        await world.ok(["close", "b", "--socket", socket]);
        assert.deepEqual(await server.exited, { exitCode: 0, signal: null });
        assert.equal(existsSync(socket), false);
        assert.match(
          await log,
          /listening on .*s\.sock[^]*stopped \(--exit-empty: the last session was closed\): 0 sessions closed/,
        );
      } finally {
        runtime.kill(server.pid, "SIGTERM");
        await server.exited;
        await new Response(server.stdout).text();
      }
    }));

  it("exit statuses: 124 for a command still running, 2 for a bad line, 121 for an unknown session", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "a"]);
      const running = await world.tb(["exec", "a", "--timeout", "0.5", "echo started; sleep 30"]);
      assert.equal(running.code, 124, running.stderr);
      assert.match(running.stdout, /started/);
      assert.match(running.stderr, /still running after 0.5 s/);
      await world.ok(["key", "a", "C-c"]);
      await world.ok(["wait", "a", "prompt"]);
      const usage = await world.tb(["wait", "a", "text"]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /Cannot run "wait text": give what to wait for/);
      const missing = await world.tb(["screen", "nope"]);
      assert.equal(missing.code, 121);
      assert.match(missing.stderr, /No session is called "nope" \(open: "a"\)/);
      // The commands the console language runs name the unknown session too.
      for (
        const words of [["exec", "nope", "ls"], ["type", "nope", "x"], ["wait", "nope", "idle"]]
      ) {
        const unknown = await world.tb(words);
        assert.equal(unknown.code, 121, words.join(" "));
        assert.match(unknown.stderr, /No session is called "nope" \(open: "a"\)/, words.join(" "));
      }
      const option = await world.tb(["screen", "a", "--colour"]);
      assert.equal(option.code, 2);
      assert.match(option.stderr, /unknown option "--colour"/);
    }));
  it("record refuses an existing file that is not a recording unless --overwrite; new --record records from the start", () =>
    inWorld("source", async (world) => {
      const cast = join(world.dir, "start.cast");
      await world.ok(["new", "r", "--record", cast]);
      assert.match(readFileSync(cast, "utf8"), /^\{"version":2/);
      await world.ok(["record", "r", "stop"]);
      const notes = join(world.dir, "notes.txt");
      writeFileSync(notes, "keep me\n");
      const refused = await world.tb(["record", "r", notes]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /exists and is not an asciicast recording/);
      assert.equal(readFileSync(notes, "utf8"), "keep me\n");
      await world.ok(["record", "r", "--overwrite", notes]);
      assert.match(readFileSync(notes, "utf8"), /^\{"version":2/);
    }));
  it("-L NAME before the command, in tmux's order, chooses the server as it does after it", () =>
    inWorld("source", async (world) => {
      await world.ok(["-L", "other", "new", "a"]);
      assert.match(await world.ok(["ls", "-L", "other"]), /^a +/m);
      assert.equal(await world.ok(["-L", "other", "exec", "a", "echo hi"]), "hi\n");
      assert.equal(await world.ok(["ls"]), "", "the default server has no session");
      await world.ok(["-L", "other", "kill-server"]);
    }));
});
