/**
 * Shared set-up of the session-server tests: a private world per test (its
 * own XDG_RUNTIME_DIR, XDG_STATE_HOME and HOME, so the user's default server
 * is never touched), termbridge run as a real process (the compiled binary
 * when it is current, and the sources on the runtime running the tests), and
 * every server the test started killed afterwards.
 * @module
 */

import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../lib/runtime/mod.ts";
import { isBinaryCurrent } from "../built_binary.ts";
import { isAlive, termbridgeArgv, waitUntil } from "../helpers.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const BINARY = join(ROOT, "dist", "termbridge");

/** Whether dist/termbridge is built from the current sources. */
export const BINARY_CURRENT = isBinaryCurrent(ROOT, BINARY);

/** Which termbridge runs: the compiled binary, or main.ts on the tests' runtime. */
export type Build = "binary" | "source";

/** Argv of termbridge for `build`. */
export function termbridgeFor(build: Build): string[] {
  return build === "binary" ? [BINARY] : termbridgeArgv();
}

/** How a run of termbridge ended. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A private world for one test: directories, environment, and the servers started in it. */
export class World {
  readonly dir: string;
  readonly env: Record<string, string>;
  readonly build: Build;

  constructor(build: Build) {
    this.build = build;
    this.dir = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-server-test-")));
    this.env = {
      ...runtime.env(),
      HOME: this.dir,
      XDG_RUNTIME_DIR: join(this.dir, "run"),
      XDG_STATE_HOME: join(this.dir, "state"),
      XDG_CONFIG_HOME: join(this.dir, "config"),
      HISTFILE: "/dev/null",
      SHELL: "bash",
      NO_COLOR: "1",
      TERMBRIDGE_SOCKET: "",
      // The server started first keeps its environment: its sessions' files go here, not in
      // a client's temporary directory that is removed when that client ends.
      TMPDIR: join(this.dir, "tmp"),
    };
    mkdirSync(this.env.TMPDIR);
  }

  /** Writes the user's configuration file (termbridge.jsonc) in this world. */
  configure(config: string): void {
    mkdirSync(join(this.dir, "config", "termbridge"), { recursive: true });
    writeFileSync(join(this.dir, "config", "termbridge", "termbridge.jsonc"), config);
  }

  /** The default server's socket in this world. */
  get socket(): string {
    return join(this.dir, "run", "termbridge", "default.sock");
  }

  /** The default server's log. */
  get log(): string {
    return join(this.dir, "state", "termbridge", "server-default.log");
  }

  /** Runs `termbridge ARGS` and collects what it printed. */
  async tb(args: string[], options: { stdin?: string; cwd?: string } = {}): Promise<Run> {
    const child = runtime.spawnPiped({
      argv: [...termbridgeFor(this.build), ...args],
      cwd: options.cwd ?? this.dir,
      env: this.env,
      stderr: "pipe",
    });
    const writer = child.stdin.getWriter();
    if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
    const [stdout, stderr, status] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr!).text(),
      child.exited,
    ]);
    return { code: status.exitCode, stdout, stderr };
  }

  /** Runs `termbridge ARGS` and fails, showing what it printed, unless it exits with `code`. */
  async ok(args: string[], code = 0): Promise<string> {
    const run = await this.tb(args);
    if (run.code !== code) {
      throw new Error(
        `termbridge ${
          args.join(" ")
        } exited with ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`,
      );
    }
    return run.stdout;
  }

  /** The pids of the servers the logs say were started in this world (any name or socket). */
  serverPids(): number[] {
    const dir = join(this.dir, "state", "termbridge");
    let logs: string[];
    try {
      logs = readdirSync(dir).filter((name) => /^server-.*\.log$/.test(name));
    } catch {
      return [];
    }
    return logs.flatMap((name) =>
      [...readFileSync(join(dir, name), "utf8").matchAll(/server (\d+) listening/g)]
        .map((m) => Number(m[1]))
    );
  }

  /** Kills every server started here (kill-server, then SIGKILL), and removes the world. */
  async dispose(): Promise<void> {
    try {
      if (this.serverPids().some(isAlive)) await this.tb(["kill-server"]);
      for (const pid of this.serverPids()) if (isAlive(pid)) runtime.kill(pid, "SIGKILL");
      await waitUntil(() => !this.serverPids().some(isAlive), "the servers to exit");
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** Runs `body` in a new world, disposed afterwards whatever happens. */
export async function inWorld(build: Build, body: (world: World) => Promise<void>): Promise<void> {
  const world = new World(build);
  try {
    await body(world);
  } finally {
    await world.dispose();
  }
}

/**
 * Calls `onMessage` with each JSON value `socket` receives, one a line (a
 * line split across chunks is joined first).
 */
export function onJsonLines(
  socket: Socket,
  onMessage: (message: Record<string, unknown>) => void,
): void {
  let parts: Uint8Array[] = [];
  socket.on("data", (chunk: Uint8Array) => {
    let start = 0;
    let at;
    while ((at = chunk.indexOf(0x0a, start)) !== -1) {
      parts.push(chunk.subarray(start, at));
      const message = JSON.parse(Buffer.concat(parts).toString("utf8"));
      parts = [];
      start = at + 1;
      onMessage(message);
    }
    parts.push(chunk.slice(start));
  });
}
