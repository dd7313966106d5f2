/**
 * The sandbox, built with bubblewrap. For each set of settings (mode,
 * network, working directory, writable roots) one long-lived bwrap process
 * holds the namespaces: a read-only view of the file system with a private
 * /tmp and the writable roots bound read-write, and optionally a network
 * namespace with nothing but a private loopback. Each command joins them with
 * util-linux `nsenter`, which execs in place: the command's pid, exit status
 * and signal death are its own (bwrap itself would report a signal death as
 * exit code 128+n), its PTY stays its controlling terminal, and joining costs
 * one exec instead of building a sandbox per command.
 * @module
 */

import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import process from "node:process";
import { runtime } from "../runtime/mod.ts";
import { SpawnError } from "../base/errors.ts";
import { containment } from "./containment.ts";
import type { SandboxSettings } from "./types.ts";

/** A sandbox was asked for and cannot be had: commands are refused, never run unsandboxed. */
export class SandboxUnavailableError extends SpawnError {}

/** What runs in the sandbox to hold it: says its pid, then lives as long as termbridge ($1). */
// (tail -f ends when its output is a pipe whose reader left: not on /dev/null.)
const HOLDER = 'echo "$$"; exec tail --pid="$1" -s 1 -f /dev/null >/dev/null 2>&1';

/** How to install bubblewrap, for refusal messages. */
const INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; " +
  'Fedora: dnf install bubblewrap) or set sandbox.mode to "off"';

interface Holder {
  pid: number;
  /** Argv prefix that runs a command inside. */
  prefix: string[];
}

const holders = new Map<string, Promise<Holder>>();

function onPath(program: string, env: Record<string, string>): string | null {
  for (const dir of (env.PATH || "/usr/local/bin:/usr/bin:/bin").split(delimiter)) {
    if (dir !== "" && existsSync(join(dir, program))) return join(dir, program);
  }
  return null;
}

function expandHome(path: string, cwd: string): string {
  const expanded = path.replace(/^~(?=\/|$)/, homedir()).replaceAll("${cwd}", cwd);
  return resolve(cwd, expanded);
}

/** The directory a glob can write under: its words before the first one with a wildcard. */
function globRoot(glob: string, cwd: string): string {
  const parts = expandHome(glob, cwd).split("/");
  const wild = parts.findIndex((part) => /[*?[{]/.test(part));
  return (wild === -1 ? parts : parts.slice(0, wild)).join("/") || "/";
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // Does not exist (yet): bound only if it appears.
  }
}

/**
 * The directories commands (and the fs/* methods) may write under the
 * sandbox settings, for `cwd`; null when the sandbox is off (no restriction
 * from it). `read-only` gives only the private /tmp, which is not the host's.
 */
export function writeRoots(settings: SandboxSettings | undefined, cwd: string): string[] | null {
  if (settings === undefined || settings.mode === "off") return null;
  if (settings.mode === "read-only") return [];
  const roots = [cwd, ...(settings.write ?? []).map((glob) => globRoot(glob, cwd))];
  return [...new Set(roots.map(realOrSelf))];
}

function bwrapArgs(
  settings: SandboxSettings,
  cwd: string,
  shown: string[],
  writable: string[],
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--tmpfs", "/dev/shm"];
  args.push("--tmpfs", "/tmp");
  // The working directory must exist inside, even under the private /tmp.
  for (const path of [cwd, ...shown]) args.push("--ro-bind-try", path, path);
  for (const root of writeRoots(settings, cwd) ?? []) args.push("--bind-try", root, root);
  for (const path of writable) args.push("--bind-try", path, path);
  if (settings.network === false) args.push("--unshare-net");
  args.push("--chdir", "/");
  return args;
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string | null> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) return null;
      text += decoder.decode(value, { stream: true });
    }
    return text.slice(0, text.indexOf("\n"));
  } finally {
    await reader.cancel().catch(() => {}); // The holder prints nothing more.
  }
}

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<string> {
  if (stream === null) return "";
  return (await new Response(stream).text()).trim();
}

async function startHolder(
  settings: SandboxSettings,
  cwd: string,
  env: Record<string, string>,
  shown: string[],
  writable: string[],
): Promise<Holder> {
  const what = `Cannot run commands in the sandbox (sandbox.mode "${settings.mode}")`;
  const bwrap = onPath("bwrap", env);
  if (bwrap === null) {
    throw new SandboxUnavailableError(
      `${what}: bubblewrap (bwrap) is not installed; ${INSTALL_HINT}`,
    );
  }
  for (const tool of ["nsenter", "setpriv"]) {
    if (onPath(tool, env) === null) {
      throw new SandboxUnavailableError(
        `${what}: util-linux's ${tool} is not installed; install util-linux or set sandbox.mode to "off"`,
      );
    }
  }
  // Detached (its parent shell exits at once), in its own session and, with
  // containment, its own cgroup: it ends with termbridge, however that ends.
  const cgroup = containment().create("sandbox");
  const child = runtime.spawnPiped({
    argv: [
      "/bin/sh",
      "-c",
      'setsid "$@" </dev/null &',
      "sh",
      ...cgroup?.prefix ?? [],
      bwrap,
      ...bwrapArgs(settings, cwd, shown, writable),
      "--",
      "/bin/sh",
      "-c",
      HOLDER,
      "sh",
      String(process.pid),
    ],
    env,
    stderr: "pipe",
  });
  void child.stdin.close().catch(() => {});
  const [line] = await Promise.all([firstLine(child.stdout), child.exited]);
  const pid = Number(line);
  if (line === null || !Number.isInteger(pid) || pid <= 0) {
    const message = await readAll(child.stderr);
    await cgroup?.remove();
    throw new SandboxUnavailableError(`${what}: bwrap failed: ${message || "no reason given"}`);
  }
  void child.stderr?.cancel().catch(() => {}); // Nothing more is read from it.
  const namespaces = ["--mount", ...(settings.network === false ? ["--net"] : [])];
  // As root the joiner would keep every capability (and could remount): drop them.
  const prefix = process.getuid?.() === 0
    ? ["nsenter", `--target=${pid}`, ...namespaces]
    : ["nsenter", `--target=${pid}`, "--user", "--preserve-credentials", ...namespaces];
  return { pid, prefix };
}

function alive(pid: number): boolean {
  try {
    return !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, "latin1"));
  } catch {
    return false;
  }
}

/**
 * The argv prefix that runs a command in `cwd` inside the sandbox, starting
 * the sandbox for these settings on first use; null when the mode is off.
 * `shown` are paths the command must be able to read even where the sandbox
 * replaces their parent (termbridge's shell start-up files under /tmp);
 * `writable`, paths it must be able to write whatever the mode (the
 * directory where shells ask termbridge about typed lines).
 * @throws {SandboxUnavailableError} when a sandbox is asked for and cannot be
 *   had (bubblewrap missing, user namespaces disabled), saying how to get one
 */
export function sandboxPrefix(
  settings: SandboxSettings | undefined,
  cwd: string,
  env: Record<string, string>,
  shown: string[] = [],
  writable: string[] = [],
): Promise<string[] | null> {
  return joinSandbox(settings, { workspace: cwd, wd: cwd, env, shown, writable });
}

/** Where a program joins a sandbox: see {@linkcode joinSandbox}. */
export interface SandboxPlace {
  /** The working directory the settings make writable (`workspace-write`). */
  workspace: string;
  /** The program's working directory inside (it is shown read-only when not writable). */
  wd: string;
  env: Record<string, string>;
  /** Paths to show read-only even under the private /tmp. */
  shown?: string[];
  /** Paths writable whatever the mode. */
  writable?: string[];
}

/**
 * The argv prefix that runs a program in the sandbox for `settings` and
 * `place`, starting that sandbox on first use; null when the mode is off.
 * @throws {SandboxUnavailableError} when a sandbox is asked for and cannot be had
 */
export async function joinSandbox(
  settings: SandboxSettings | undefined,
  place: SandboxPlace,
): Promise<string[] | null> {
  if (settings === undefined || settings.mode === "off") return null;
  const { workspace, wd, env } = place;
  const shown = wd === workspace ? place.shown ?? [] : [wd, ...place.shown ?? []];
  const writable = place.writable ?? [];
  const key = JSON.stringify([
    settings.mode,
    settings.network !== false,
    workspace,
    settings.write ?? [],
    shown,
    writable,
  ]);
  let holder = holders.get(key);
  if (holder !== undefined) {
    const ready = await holder.catch(() => null);
    if (ready === null || !alive(ready.pid)) holder = undefined;
  }
  if (holder === undefined) {
    holder = startHolder(settings, workspace, env, shown, writable);
    holders.set(key, holder);
    holder.catch(() => holders.delete(key));
  }
  const { prefix } = await holder;
  const dropCapabilities = process.getuid?.() === 0
    ? ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"]
    : [];
  return [...prefix, `--wd=${wd}`, "--", ...dropCapabilities];
}
