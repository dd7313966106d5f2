/**
 * termbridge: real terminals for coding agents, shell scripts and people.
 *
 * The one entry point: turns the command line into a mode, runs it, and maps
 * errors to exit codes. It is the only module that exits the process.
 * @module
 */

import { runtime } from "./lib/runtime/mod.ts";
import { HELP, MODES, UsageError, VERSION } from "./lib/cli/usage.ts";

/** Exit codes of termbridge itself. */
const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

async function main(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    await runtime.writeStdout(HELP);
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === "-V" || first === "--version" || first === "version") {
    await runtime.writeStdout(`termbridge ${VERSION} (${runtime.name} ${runtime.version})\n`);
    return EXIT.ok;
  }
  const mode = MODES.find((m) => m.name === first);
  if (mode === undefined) {
    throw new UsageError(
      `Unknown mode "${first}": expected one of ${MODES.map((m) => m.name).join(", ")}`,
    );
  }
  if (mode.run === undefined) {
    await runtime.writeStderr(
      `termbridge: the "${mode.name}" mode is not available in this version yet (${mode.summary})\n`,
    );
    return EXIT.failure;
  }
  return await (await mode.run())(rest);
}

try {
  runtime.exit(await main(runtime.args()));
} catch (error) {
  if (error instanceof UsageError) {
    await runtime.writeStderr(`termbridge: ${error.message}\nRun "termbridge --help" for usage.\n`);
    runtime.exit(EXIT.usage);
  }
  await runtime.writeStderr(
    `termbridge: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  runtime.exit(EXIT.failure);
}
