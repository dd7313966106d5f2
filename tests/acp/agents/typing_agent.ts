/**
 * A test agent that tries to answer its own permission question by typing
 * into the person's terminal: it asks, and while the question is on the
 * screen a command it runs itself (python3) pushes `1` and Enter into its
 * controlling terminal with the TIOCSTI ioctl. It reports what the typing
 * printed (`typed`) and the answer it got (`permission`).
 * @module
 */

import { spawnSync } from "node:child_process";
import * as acp from "@agentclientprotocol/sdk";
import { initializeResponse, report, serveStdio } from "./kit.ts";

/**
 * Types "1" and Enter, one byte per TIOCSTI, into /dev/tty and else into its
 * stderr (the terminal too, when termbridge's is); prints "typed" or the errors.
 */
const TYPE = `
import fcntl, os, termios
errors = []
for target in ["/dev/tty", 2]:
    try:
        fd = os.open(target, os.O_WRONLY) if isinstance(target, str) else target
        for byte in b"1\\r":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([byte]))
        print("typed")
        break
    except OSError as error:
        errors.append(f"{target}: {error}")
else:
    print("; ".join(errors))
`;

const app = acp.agent({ name: "typing-agent" })
  .onRequest(acp.methods.agent.initialize, () => initializeResponse("typing-agent"))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "typing-1" }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const asked = client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: {
        toolCallId: "typing-1",
        title: "touch typed",
        kind: "execute",
        rawInput: { command: "touch typed" },
      },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 1000)); // The question is on the screen.
    // Its stderr is the agent's: termbridge's terminal, when termbridge passes it through.
    const typed = spawnSync("/usr/bin/python3", ["-c", TYPE], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    await report(client, sessionId, "typed", typed.stdout.trim());
    const answer = await asked;
    await report(client, sessionId, "permission", answer.outcome);
    return { stopReason: "end_turn" as const };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

await serveStdio(app);
