/**
 * A test agent with ACP terminal authentication. It offers the method
 * `login` (`type: "terminal"`, arguments `--login`, variable
 * `TB_LOGIN_MODE=terminal`) only when the client advertised
 * `auth.terminal`, and `session/new` needs a login first: the file
 * `$TB_LOGIN_FILE` holding a token.
 *
 * Run with `--login`, it is the login itself, a tiny TUI: it checks that its
 * stdin is a terminal, asks "Token: ", and writes the line to
 * `$TB_LOGIN_FILE` with the mode variable (exit 0), or exits 3 for an empty
 * token.
 * @module
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { createInterface } from "node:readline";
import * as acp from "@agentclientprotocol/sdk";
import { initializeResponse, say, serveStdio } from "./kit.ts";

const file = process.env.TB_LOGIN_FILE ?? "/nonexistent/tb-login";

if (process.argv.includes("--login")) {
  const tty = process.stdin.isTTY ? "tty" : "not a tty";
  process.stdout.write(`Log in to login-agent (stdin: ${tty})\n`);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const token = await new Promise<string>((resolve) => rl.question("Token: ", resolve));
  rl.close();
  if (token.trim() === "") {
    process.stdout.write("No token given\n");
    process.exit(3);
  }
  writeFileSync(file, `${token.trim()} ${process.env.TB_LOGIN_MODE ?? "-"} ${tty}\n`);
  process.stdout.write("Logged in\n");
  process.exit(0);
}

const app = acp.agent({ name: "login-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => ({
    ...initializeResponse("login-agent"),
    authMethods: params.clientCapabilities?.auth?.terminal
      ? [{
        type: "terminal" as const,
        id: "login",
        name: "Log in",
        args: ["--login"],
        env: { TB_LOGIN_MODE: "terminal" },
      }]
      : [],
  }))
  .onRequest(acp.methods.agent.session.new, () => {
    if (!existsSync(file)) throw acp.RequestError.authRequired();
    return { sessionId: "login-1" };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    await say(client, params.sessionId, `logged in as ${readFileSync(file, "utf8").trim()}`);
    return { stopReason: "end_turn" };
  });

await serveStdio(app);
