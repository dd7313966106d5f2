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
 *
 * A program that is started once and has a sandbox to itself (the ACP agent)
 * gets its own bwrap instead ({@linkcode ownSandbox}): the same namespaces,
 * built and entered in one exec, with bwrap staying its parent.
 * @module
 */

import { existsSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, relative, resolve } from "node:path";
import process from "node:process";
import { type ExitStatus, runtime } from "../runtime/mod.ts";
import { signalName } from "../runtime/signals.ts";
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

function refusal(settings: SandboxSettings): string {
  return `Cannot run commands in the sandbox (sandbox.mode "${settings.mode}")`;
}

/**
 * bwrap's path, once it and util-linux's `tools` are found on PATH.
 * @throws {SandboxUnavailableError} naming the one missing and how to install it
 */
function sandboxTools(
  settings: SandboxSettings,
  env: Record<string, string>,
  tools: string[],
): string {
  const bwrap = onPath("bwrap", env);
  if (bwrap === null) {
    throw new SandboxUnavailableError(
      `${refusal(settings)}: bubblewrap (bwrap) is not installed; ${INSTALL_HINT}`,
    );
  }
  for (const tool of tools) {
    if (onPath(tool, env) === null) {
      throw new SandboxUnavailableError(
        `${
          refusal(settings)
        }: util-linux's ${tool} is not installed; install util-linux or set sandbox.mode to "off"`,
      );
    }
  }
  return bwrap;
}

/**
 * As root, a program entering the sandbox would keep every capability (and
 * could remount it writable): util-linux `setpriv` drops them all, for good.
 */
function dropCapabilities(): string[] {
  return process.getuid?.() === 0
    ? ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"]
    : [];
}

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
 * sandbox settings: the workspace (`settings.workspace`, else `cwd`) and the
 * `write` globs' directories (`${cwd}` being the workspace); null when the
 * sandbox is off (no restriction from it). `read-only` gives only the
 * private /tmp, which is not the host's.
 */
export function writeRoots(settings: SandboxSettings | undefined, cwd: string): string[] | null {
  if (settings === undefined || settings.mode === "off") return null;
  if (settings.mode === "read-only") return [];
  const workspace = settings.workspace ?? cwd;
  // "/" is no workspace (the session server runs there): making it writable would make the
  // whole host writable. Only the directories of the globs that do not name it are then.
  if (workspace === "/") {
    const globs = (settings.write ?? []).filter((glob) => !glob.includes("${cwd}"));
    return [...new Set(globs.map((glob) => realOrSelf(globRoot(glob, workspace))))];
  }
  const roots = [workspace, ...(settings.write ?? []).map((glob) => globRoot(glob, workspace))];
  return [...new Set(roots.map(realOrSelf))];
}

/** Whether `path` is `dir` or below it. */
function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

/** Where the cgroup hierarchies are mounted. */
const CGROUPS = "/sys/fs/cgroup";

/**
 * termbridge's own files (`settings.readOnly`) and the cgroup hierarchies that exist and sit in one of
 * the `writable` directories, resolved: each is bound read-only over the
 * writable bind. A missing one cannot be bound (bwrap would create it).
 */
function protectedInside(settings: SandboxSettings, writable: string[]): string[] {
  // The cgroup hierarchy too: a command that can write it can leave its cgroup (containment).
  const found = [...settings.readOnly ?? [], CGROUPS].map(realOrSelf).filter((file) =>
    existsSync(file) && writable.some((dir) => inside(file, realOrSelf(dir)))
  );
  return [...new Set(found)];
}

function bwrapArgs(
  settings: SandboxSettings,
  cwd: string,
  shown: string[],
  writable: string[],
  chdir = "/",
): string[] {
  const args = ["--ro-bind", "/", "/", "--dev-bind", "/dev", "/dev", "--tmpfs", "/dev/shm"];
  args.push("--tmpfs", "/tmp");
  // The working directory must exist inside, even under the private /tmp.
  for (const path of [cwd, ...shown]) if (path !== "/") args.push("--ro-bind-try", path, path);
  const roots = writeRoots(settings, cwd) ?? [];
  for (const root of roots) args.push("--bind-try", root, root);
  for (const path of writable) args.push("--bind-try", path, path);
  // A writable root above /dev (a write glob "/**", a workspace "/") bound it without devices:
  // /dev/null would refuse to open.
  if ([...roots, ...writable].some((root) => inside("/dev", realOrSelf(root)))) {
    args.push("--dev-bind", "/dev", "/dev", "--tmpfs", "/dev/shm");
  }
  // termbridge's configuration and audit log stay read-only in a writable directory: a
  // command could otherwise turn the sandbox off for the next run, or rewrite the log.
  for (const file of protectedInside(settings, [...roots, ...writable])) {
    args.push("--ro-bind", file, file);
  }
  if (settings.network === false) args.push("--unshare-net");
  args.push("--chdir", chdir);
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
  const what = refusal(settings);
  const bwrap = sandboxTools(settings, env, ["nsenter", "setpriv"]);
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

let wdns: Promise<boolean> | undefined;

/** Whether this nsenter has `--wdns` (util-linux 2.38 and later), asked once. */
function enterDirectory(env: Record<string, string>): Promise<boolean> {
  wdns ??= (async () => {
    try {
      const child = runtime.spawnPiped({ argv: ["nsenter", "--help"], env, stderr: "pipe" });
      void child.stdin.close().catch(() => {});
      void child.stderr?.cancel().catch(() => {});
      const [help] = await Promise.all([readAll(child.stdout), child.exited]);
      return help.includes("--wdns");
    } catch {
      return false;
    }
  })();
  return wdns;
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
  const { wd, env } = place;
  const workspace = settings.workspace ?? place.workspace;
  const { shown, writable } = placePaths({ ...place, workspace });
  const key = JSON.stringify([
    settings.mode,
    settings.network !== false,
    workspace,
    settings.write ?? [],
    settings.readOnly ?? [],
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
  // The working directory is opened inside the namespaces: nsenter's --wd opens it in
  // termbridge's, where it would be the host's directory, writable through relative paths.
  const chdir = await enterDirectory(env)
    ? [`--wdns=${wd}`, "--"]
    : ["--", "/usr/bin/env", "-C", wd, "--"];
  return [...prefix, ...chdir, ...dropCapabilities()];
}

/**
 * The paths shown read-only and the ones writable for `place`, as the holder
 * and bwrap get them. A working directory outside the workspace is not made
 * writable (only the workspace and the `write` globs' directories are); it
 * is shown where the sandbox would hide it (under the private /tmp).
 */
function placePaths(place: SandboxPlace): { shown: string[]; writable: string[] } {
  const { workspace, wd } = place;
  const hidden = !inside(wd, workspace) && ["/tmp", "/dev/shm"].some((dir) => inside(wd, dir));
  const shown = hidden ? [wd, ...place.shown ?? []] : place.shown ?? [];
  return { shown, writable: place.writable ?? [] };
}

/**
 * The argv prefix that runs one program in a sandbox of its own, for a
 * program started once with a sandbox nobody else joins (the ACP agent): the
 * sandbox of {@linkcode joinSandbox}, but built by a bwrap that starts the
 * program as its child, in its working directory, instead of a holder started
 * first and joined with nsenter (several execs and a wait fewer). bwrap stays
 * its parent: signal it through {@linkcode sandboxedChild}, read its status
 * with {@linkcode sandboxedStatus}, and if it ends before doing anything,
 * {@linkcode sandboxFailure} says whether the sandbox was the reason. Null
 * when the mode is off.
 * @throws {SandboxUnavailableError} when bubblewrap is not installed
 */
export function ownSandbox(
  settings: SandboxSettings | undefined,
  place: SandboxPlace,
): string[] | null {
  if (settings === undefined || settings.mode === "off") return null;
  const bwrap = sandboxTools(settings, place.env, []);
  const workspace = settings.workspace ?? place.workspace;
  const { shown, writable } = placePaths({ ...place, workspace });
  return [
    bwrap,
    ...bwrapArgs(settings, workspace, shown, writable, place.wd),
    // As root, bwrap would leave the program every capability (it could remount the sandbox
    // writable). Dropped here, with no_new_privs (which bwrap always sets), no exec can give
    // one back: a setpriv exec fewer than joining.
    ...process.getuid?.() === 0 ? ["--cap-drop", "ALL"] : [],
    "--",
  ];
}

/**
 * The program an {@linkcode ownSandbox} bwrap (process `pid`) runs: its only
 * child, or null before it is started or once it is gone.
 */
export function sandboxedChild(pid: number): number | null {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim();
    const child = Number(children.split(" ")[0]);
    return children === "" || !Number.isInteger(child) ? null : child;
  } catch {
    return null; // Gone, or a kernel without the children file.
  }
}

/**
 * The status of the program an {@linkcode ownSandbox} bwrap ran, from bwrap's
 * own: bwrap reports the program's death by signal N as exit code 128+N.
 */
export function sandboxedStatus(status: ExitStatus): ExitStatus {
  const code = status.exitCode;
  if (code === null || code <= 128 || code > 128 + 31) return status;
  return { exitCode: null, signal: signalName(code - 128) };
}

/**
 * Why a program started with {@linkcode ownSandbox} for `settings` and
 * `place` may have ended before doing anything: the same bwrap, run with
 * `true`, failing (no user namespaces, say), in the words of
 * {@linkcode SandboxUnavailableError}; null when bwrap works. Costs a bwrap
 * start, so it is asked only when the program is gone.
 */
export async function sandboxFailure(
  settings: SandboxSettings | undefined,
  place: SandboxPlace,
): Promise<string | null> {
  let prefix: string[] | null;
  try {
    prefix = ownSandbox(settings, place);
  } catch (error) {
    return (error as Error).message;
  }
  if (prefix === null) return null;
  const child = runtime.spawnPiped({ argv: [...prefix, "true"], env: place.env, stderr: "pipe" });
  void child.stdin.close().catch(() => {});
  void child.stdout.cancel().catch(() => {});
  const [message, status] = await Promise.all([readAll(child.stderr), child.exited]);
  if (status.exitCode === 0) return null;
  return `${refusal(settings!)}: bwrap failed: ${message || "no reason given"}`;
}
