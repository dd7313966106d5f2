/**
 * The cheap way to termbridge's Claude Code `PreToolUse` hook. Claude Code
 * runs a command hook with `/bin/sh -c` before every hooked tool call;
 * starting termbridge's own binary there (`termbridge _hook`, hook_relay.ts)
 * costs tens of milliseconds a call. This command is bash instead, which
 * connects to a listener of the acp process on 127.0.0.1 with its
 * `/dev/tcp`, sends a token and the tool call (`cat`), and prints the one
 * answer line. It fails closed as `_hook` does: no connection, a closed or
 * silent listener (30 s), or half an answer print the refusal given.
 *
 * Private as the Unix socket is: a loopback port is open to every local
 * user, so the first line must be the token, a random secret the agent gets
 * in its environment ({@linkcode HOOK_TOKEN_VARIABLE}, readable by the same
 * user only: Claude Code passes its environment to its hooks), never on a
 * command line (Claude Code's settings, the hook's command with them, are
 * in its argv, which everyone can read). Only termbridge answers: it holds
 * the port from before the agent learns it until the run ends.
 * Like `termbridge _hook`, it trusts the environment Claude Code gives it
 * (LD_PRELOAD would subvert either; bash also imports exported functions).
 * (Claude Code's `http` hooks would need no process at all, but fail open:
 * a connection refused, a timeout or a blocked URL lets the tool run.)
 * @module
 */

import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type Socket } from "node:net";
import { Buffer } from "node:buffer";

/** The agent's environment variable holding the hook's token. */
export const HOOK_TOKEN_VARIABLE = "TERMBRIDGE_HOOK_TOKEN";

/** How long the hook waits for its answer before it refuses (as `_hook`). */
const ANSWER_SECONDS = 30;

/** How long a connection may stay without its token line. */
const TOKEN_MS = 10_000;

/** A new token for {@linkcode HOOK_TOKEN_VARIABLE}: 32 random bytes, hex. */
export function newHookToken(): string {
  return randomBytes(32).toString("hex");
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The hook's command line (for `/bin/sh -c`): `bash` (a fixed path) asks the
 * listener on 127.0.0.1:`port`, and prints `refusal` (the hook's JSON
 * answer refusing the call) whenever it cannot get a whole answer.
 */
export function loopbackHookCommand(bash: string, port: number, refusal: string): string {
  const script = [
    `exec 2>/dev/null 3<>"/dev/tcp/127.0.0.1/$1"`,
    `printf '%s\\n' "$${HOOK_TOKEN_VARIABLE}" >&3`,
    "cat >&3",
    `IFS= read -r -t ${ANSWER_SECONDS} answer <&3`,
    `[ -n "$answer" ]`,
  ].join(" && ") + ` && printf '%s\\n' "$answer" || printf '%s\\n' "$2"`;
  // Nothing of the environment may put text before the answer (startup files, a trace on fd 1).
  const clean = "unset BASH_ENV ENV SHELLOPTS BASHOPTS BASH_XTRACEFD;";
  return [clean, "exec", quote(bash), "-c", quote(script), "termbridge-hook", String(port)]
    .concat(quote(refusal)).join(" ");
}

/** A listening loopback port for the hook. */
export interface LoopbackListener {
  readonly port: number;
  close(): void;
}

/**
 * Listens on 127.0.0.1 (a port the system picks); `serve` gets each
 * connection whose first line is `token`, with the rest of what it sent
 * after that line. A connection that sends anything else first, or nothing
 * within 10 s, is closed unanswered.
 */
export async function listenLoopback(
  token: string,
  serve: (socket: Socket, rest: Buffer) => void,
): Promise<LoopbackListener> {
  const expected = Buffer.from(`${token}\n`);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const timer = setTimeout(() => socket.destroy(), TOKEN_MS);
    let head = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      head = Buffer.concat([head, data]);
      if (head.length < expected.length) return;
      socket.off("data", onData);
      clearTimeout(timer);
      if (!timingSafeEqual(head.subarray(0, expected.length), expected)) {
        socket.destroy(); // Not the agent's hook: no answer at all.
        return;
      }
      serve(socket, head.subarray(expected.length));
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: "127.0.0.1", port: 0 }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}
