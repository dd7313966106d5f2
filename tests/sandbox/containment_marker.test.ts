/**
 * Containment without cgroups (the marker in each terminal's environment,
 * found in /proc): `termbridge serve` forced to it with
 * `TERMBRIDGE_CONTAINMENT=marker`, and, when the tests run as root, run as
 * the unprivileged user nobody, who cannot write a cgroup and gets the marker
 * on its own. Programs that leave the session (`setsid -f`), ignore the
 * hang-up (`nohup`) or ignore SIGHUP and SIGTERM are gone after a release and
 * after `kill -9` of termbridge. (`TERMBRIDGE_CONTAINMENT=marker` with
 * containment.test.ts runs every other containment test with the marker.)
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isAlive, termbridgeArgv } from "../helpers.ts";
import { Child } from "../acp/child.ts";
import { currentBinary } from "../built_binary.ts";
import { startMarker } from "../../lib/sandbox/containment.ts";
import { allGone, allStarted, escapees } from "./_escapees.ts";

const asRoot = process.getuid?.() === 0 && process.platform === "linux";
const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find(existsSync) ?? null;
/** The compiled binary when it is built and current (`make build`). */
const binary = currentBinary();

/** The uid a process runs as. */
function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);
}

/**
 * Runs `termbridge serve` (as nobody when `unprivileged`), creates a terminal
 * running the escapees, then `end`s it one way or another and checks that
 * nothing is left.
 */
async function serveEscapees(
  options: { unprivileged: boolean; env: Record<string, string>; termbridge?: string[] },
  end: (child: Child, send: (message: unknown) => Promise<void>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tb-marker-"));
  chmodSync(dir, 0o777); // nobody writes its pids and its runtime's caches here.
  const file = join(dir, "pids");
  const termbridge = [...options.termbridge ?? termbridgeArgv(), "serve"];
  const argv = options.unprivileged
    ? [setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups", ...termbridge]
    : termbridge;
  const env = options.unprivileged
    ? { ...options.env, HOME: dir, XDG_RUNTIME_DIR: dir, DENO_DIR: join(dir, "deno") }
    : options.env;
  const child = Child.start(argv, { cwd: dir, env });
  try {
    const send = (message: unknown) => child.write(JSON.stringify(message) + "\n");
    await send({
      jsonrpc: "2.0",
      id: 1,
      method: "terminal/create",
      params: { sessionId: "s", command: escapees(file) },
    });
    await child.waitForLine((line) => line.includes('"terminalId"'), "the terminal id");
    const pids = await allStarted(file);
    if (options.unprivileged) assert.ok(pids.every((pid) => uidOf(pid) === 65534), "run as nobody");
    await end(child, send);
    await allGone(pids);
  } finally {
    await child.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Releases the terminal and checks that termbridge itself lives on. */
async function release(child: Child, send: (message: unknown) => Promise<void>): Promise<void> {
  const created = child.lines.find((line) => line.includes('"terminalId"'))!;
  const terminalId = JSON.parse(created).result.terminalId;
  await send({
    jsonrpc: "2.0",
    id: 2,
    method: "terminal/release",
    params: { sessionId: "s", terminalId },
  });
  await child.waitForLine((line) => line.includes('"id":2'), "the release answer");
  assert.ok(isAlive(child.pid), "termbridge still runs");
}

async function killNine(child: Child): Promise<void> {
  assert.ok(child.signal("SIGKILL"));
  await Promise.resolve();
}

const forced = { TERMBRIDGE_CONTAINMENT: "marker" };

describe("containment without cgroups (marker)", () => {
  it("marker: release kills setsid, nohup and signal-ignoring escapees", async () => {
    await serveEscapees({ unprivileged: false, env: forced }, release);
  });

  // Its watchdog lives as long as this process: started outside the test (Deno's sanitizers).
  const marker = startMarker("test");
  it("marker: a release kills its terminal's processes only (sh-1 is no prefix of sh-10)", async () => {
    const terminals = Array.from({ length: 10 }, () => marker.create("sh")!);
    assert.equal(terminals[9].path.endsWith("=sh-10"), true);
    const dir = mkdtempSync(join(tmpdir(), "tb-marker-"));
    const files = [join(dir, "first"), join(dir, "tenth")];
    const children = [terminals[0], terminals[9]].map((terminal, i) =>
      Child.start([...terminal.prefix, "/bin/sh", "-c", escapees(files[i])])
    );
    try {
      const [first, tenth] = [await allStarted(files[0]), await allStarted(files[1])];
      await terminals[0].remove();
      await allGone(first);
      assert.ok(tenth.every(isAlive), "the tenth terminal's processes live on");
      await terminals[9].remove();
      await allGone(tenth);
    } finally {
      await Promise.all(children.map((child) => child.dispose()));
      await Promise.all(terminals.map((terminal) => terminal.remove()));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("marker: kill -9 of termbridge serve leaves no process", async () => {
    await serveEscapees({ unprivileged: false, env: forced }, killNine);
  });

  itWhen(
    asRoot && setpriv !== null,
    "marker: as a normal user (nobody, no cgroup), release leaves no process",
    async () => {
      await serveEscapees({ unprivileged: true, env: {} }, release);
    },
  );

  itWhen(
    asRoot && setpriv !== null,
    "marker: as a normal user (nobody, no cgroup), kill -9 of termbridge leaves no process",
    async () => {
      await serveEscapees({ unprivileged: true, env: {} }, killNine);
    },
  );

  itWhen(
    asRoot && setpriv !== null && binary !== undefined,
    "marker: as a normal user, kill -9 of the built binary (serve) leaves no process",
    async () => {
      await serveEscapees({ unprivileged: true, env: {}, termbridge: [binary!] }, killNine);
    },
  );
});
