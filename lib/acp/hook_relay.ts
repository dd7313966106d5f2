/**
 * `termbridge _hook --connect SOCKET`: the Claude Code `PreToolUse` command
 * hook `termbridge acp` gives claude-agent-acp. It passes the tool call (the
 * hook's stdin) to the acp process listening on SOCKET, which judges it with
 * the run's policy (see `tool_hook.ts`), and prints the answer for Claude
 * Code. When it cannot reach that process it refuses the tool call (fails
 * closed), saying why. It loads little: it runs before every tool call.
 * @module
 */

import { createConnection } from "node:net";
import { runtime } from "../runtime/mod.ts";

/** How long the judgement may take before the hook refuses. */
const ANSWER_MS = 30_000;

/** The hook's answer that refuses the tool call, with `reason` for the model. */
export function hookDeny(reason: string): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: reason,
    },
  });
}

async function readStdin(): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of runtime.stdin()) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** Asks the acp process at `path` about `input` (one JSON line each way). */
function ask(path: string, input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_MS / 1000} s`));
    }, ANSWER_MS);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(JSON.stringify(JSON.parse(input)) + "\n"));
    socket.on("data", (data: string) => answer += data);
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const line = answer.split("\n")[0];
      if (line === undefined || line.trim() === "") {
        reject(new Error("it closed without an answer"));
      } else resolve(line);
    });
  });
}

/** Runs the hook (`args` after `--connect`); always exits 0 with a JSON answer. */
export async function hookMain(args: string[]): Promise<number> {
  const [path, ...extra] = args;
  let answer: string;
  if (path === undefined || path.startsWith("-") || extra.length > 0) {
    answer = hookDeny(
      "termbridge refused this tool call: its hook was started without one socket path (termbridge _hook --connect SOCKET, given by termbridge acp)",
    );
  } else {
    try {
      answer = await ask(path, await readStdin());
    } catch (error) {
      answer = hookDeny(
        `termbridge refused this tool call: cannot reach termbridge acp at ${
          JSON.stringify(path)
        } to check it against the policy: ${(error as Error).message}`,
      );
    }
  }
  await runtime.writeStdout(answer + "\n");
  return 0;
}
