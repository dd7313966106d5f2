/**
 * `termbridge web`: asks the session server (started if none runs) for its
 * browser dashboard and prints the link, with a ticket that works once.
 * @module
 */

import process from "node:process";
import { UsageError } from "../cli/usage.ts";
import { runtime } from "../runtime/mod.ts";
import { RpcClient, ServerRequestError } from "./client.ts";
import { parseCommandArgs, wholeNumber } from "./command_args.ts";
import { chosenSocket, connectTo, failOnServerError, subcommandHelp } from "./commands.ts";
import { SERVER_METHODS } from "./wire.ts";

/** Addresses that are this machine only. */
function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** `termbridge web [--open] [--port N] [--host ADDR] [--cast NAME]`. */
export async function webMain(argv: string[]): Promise<number> {
  const args = parseCommandArgs("web", argv, {
    open: "flag",
    port: "value",
    host: "value",
    cast: "value",
  });
  if (args.options.help) {
    await runtime.writeStdout(subcommandHelp("web"));
    return 0;
  }
  if (args.words.length > 0) {
    throw new UsageError(`Cannot run "web": unexpected "${args.words[0]}" (it takes no words)`);
  }
  const port = args.options.port === undefined
    ? undefined
    : wholeNumber("--port", args.options.port as string);
  if (port !== undefined && port > 65535) {
    throw new UsageError(`Cannot run "web": --port ${port} is not a port (expected 0 to 65535)`);
  }
  const hostname = args.options.host as string | undefined;
  if (hostname !== undefined && !isLoopback(hostname)) {
    await runtime.writeStderr(
      `termbridge: the dashboard listens on ${hostname}, beyond this machine: anyone who gets the link (or the cookie, sent in clear over plain HTTP) can drive your sessions\n`,
    );
  }
  const rpc = new RpcClient(
    await connectTo(chosenSocket(args), "rpc", { client: `web pid ${process.pid}` }),
  );
  let answer: { link: string; origin: string };
  try {
    answer = await rpc.request(SERVER_METHODS.web, {
      hostname,
      port,
      cast: args.options.cast as string | undefined,
    });
  } catch (error) {
    if (!(error instanceof ServerRequestError)) throw error;
    return await failOnServerError(args.options.json === true, error);
  } finally {
    rpc.close();
  }
  if (args.options.json) {
    await runtime.writeStdout(JSON.stringify(answer) + "\n");
  } else {
    await runtime.writeStdout(`${answer.link}\n`);
    if (runtime.isTerminal("stderr")) {
      await runtime.writeStderr(
        'termbridge: the link works once, within a minute; run "termbridge web" again for another\n',
      );
    }
  }
  if (args.options.open) await openInBrowser(answer.link);
  return 0;
}

/**
 * Opens `url` with the desktop's opener (xdg-open, else macOS's open); says
 * why not when it cannot.
 */
async function openInBrowser(url: string): Promise<void> {
  for (const opener of ["xdg-open", "open"]) {
    let child;
    try {
      child = runtime.spawnPiped({ argv: [opener, url], stderr: "pipe" });
    } catch {
      continue; // Not installed: try the next.
    }
    await child.stdin.close();
    const [status, said] = await Promise.all([
      child.exited,
      new Response(child.stderr ?? "").text(),
    ]);
    if (status.exitCode === 0) return;
    const why = (said.trim().split("\n").pop() ?? "").replaceAll(url, "the link");
    await runtime.writeStderr(
      `termbridge: cannot open a browser: ${opener} failed (exit ${
        status.exitCode ?? status.signal
      }${why === "" ? "" : `: ${why}`}): open the link yourself\n`,
    );
    return;
  }
  await runtime.writeStderr(
    "termbridge: cannot open a browser (no xdg-open or open): open the link yourself\n",
  );
}
