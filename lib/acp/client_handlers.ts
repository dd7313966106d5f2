/**
 * The client side of ACP that termbridge serves: `terminal/*` over a
 * TerminalService and `fs/*` over real files. Used by `acp` (for an agent
 * termbridge runs) and `serve` (for a program that runs termbridge).
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import {
  SessionBusyError,
  SessionConflictError,
  SessionNotFoundError,
  SessionUsageError,
} from "../sessions/errors.ts";
import {
  OpenFilesExhaustedError,
  SpawnError,
  TerminalDisposedError,
  TerminalError,
  WaitTimeoutError,
} from "../terminal/errors.ts";
import { UnknownKeyError } from "../terminal/keys.ts";
import { LimitError } from "../sandbox/mod.ts";
import { PolicyDeniedError } from "../safety/guard.ts";
import { ErrorCode } from "../jsonrpc/codes.ts";
import { errnoOf, FileError, type FileProblem } from "../service/file_errors.ts";
import { readTextFile, writeTextFile } from "../service/text_files.ts";
import {
  InvalidRequestError,
  TerminalNotFoundError,
  type TerminalService,
} from "../service/terminal_service.ts";

const RESOURCE_NOT_FOUND = ErrorCode.resourceNotFound;
const NOT_NOW = ErrorCode.notNow;

/** The code of each file problem (README: "Errors"). */
const FILE_CODES: Record<FileProblem, number> = {
  "not-found": ErrorCode.fileNotFound,
  "permission-denied": ErrorCode.permissionDenied,
  "wrong-kind": ErrorCode.wrongKindOfFile,
  "name-too-long": ErrorCode.nameTooLong,
  "too-many-open-files": ErrorCode.tooManyOpenFiles,
  "too-large": ErrorCode.tooLarge,
};
/** termbridge's code for a command or file the policy refused ("Denied by policy"). */
export const DENIED_BY_POLICY = ErrorCode.deniedByPolicy;

/** A system error of running out of file descriptors (EMFILE, ENFILE) from anywhere. */
function isOutOfDescriptors(error: unknown): boolean {
  const errno = errnoOf(error);
  return errno === "EMFILE" || errno === "ENFILE";
}

/** Maps the core's errors to JSON-RPC errors: the one place that chooses codes. */
export function toRequestError(error: unknown): unknown {
  if (error instanceof acp.RequestError) return error;
  if (error instanceof PolicyDeniedError) {
    return new acp.RequestError(DENIED_BY_POLICY, "Denied by policy", {
      message: error.message,
      rule: error.rule,
      command: error.command,
    });
  }
  if (error instanceof FileError) {
    return new acp.RequestError(FILE_CODES[error.problem], error.message, {
      problem: error.problem,
    });
  }
  if (error instanceof OpenFilesExhaustedError) {
    return new acp.RequestError(ErrorCode.tooManyOpenFiles, error.message); // Says "raise ulimit -n".
  }
  if (isOutOfDescriptors(error)) {
    return new acp.RequestError(
      ErrorCode.tooManyOpenFiles,
      `${(error as Error).message} (raise ulimit -n)`,
    );
  }
  if (error instanceof TerminalNotFoundError) {
    return new acp.RequestError(RESOURCE_NOT_FOUND, error.message);
  }
  if (error instanceof SessionNotFoundError) {
    return new acp.RequestError(RESOURCE_NOT_FOUND, error.message);
  }
  if (
    error instanceof InvalidRequestError || error instanceof SpawnError ||
    error instanceof UnknownKeyError || error instanceof SessionUsageError ||
    error instanceof SessionConflictError || error instanceof RangeError
  ) {
    return new acp.RequestError(ErrorCode.invalidParams, error.message);
  }
  if (error instanceof WaitTimeoutError) {
    return new acp.RequestError(NOT_NOW, error.message, { screen: error.screen });
  }
  if (
    error instanceof SessionBusyError || error instanceof TerminalDisposedError ||
    error instanceof LimitError
  ) {
    return new acp.RequestError(NOT_NOW, error.message);
  }
  if (error instanceof TerminalError) {
    return new acp.RequestError(ErrorCode.internalError, error.message);
  }
  return error; // The SDK reports anything else as an internal error, with details.
}

/** Runs a handler body and rethrows its error in JSON-RPC terms. */
export async function mapped<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toRequestError(error);
  }
}

/** Registers `terminal/create`, `output`, `wait_for_exit`, `kill` and `release`. */
export function serveTerminals(app: acp.ClientApp, service: TerminalService): acp.ClientApp {
  const { terminal } = acp.methods.client;
  return app
    .onRequest(
      terminal.create,
      ({ params, signal }) =>
        mapped(async () => ({ terminalId: await service.create(params, signal) })),
    )
    .onRequest(
      terminal.output,
      ({ params }) =>
        mapped(async () => {
          await service.settled(params.terminalId);
          return service.output(params.sessionId, params.terminalId);
        }),
    )
    .onRequest(
      terminal.waitForExit,
      ({ params, signal }) =>
        mapped(async () => {
          await service.settled(params.terminalId);
          return await service.waitForExit(params.sessionId, params.terminalId, signal);
        }),
    )
    .onRequest(terminal.kill, ({ params }) =>
      mapped(async () => {
        await service.settled(params.terminalId);
        await service.kill(params.sessionId, params.terminalId);
        return {};
      }))
    .onRequest(terminal.release, ({ params }) =>
      mapped(async () => {
        await service.settled(params.terminalId);
        await service.release(params.sessionId, params.terminalId);
        return {};
      }));
}

/** Options of {@link serveFiles}. */
export interface FileServingOptions {
  /** Largest answer of `fs/read_text_file`, in bytes (default 16 MiB). */
  maxReadBytes?: number;
}

/**
 * Registers `fs/read_text_file` and `fs/write_text_file` on real files, each
 * through the service's guard (the policy's read/write globs, the audit log).
 */
export function serveFiles(
  app: acp.ClientApp,
  service: TerminalService,
  options: FileServingOptions = {},
): acp.ClientApp {
  const { fs } = acp.methods.client;
  return app
    .onRequest(fs.readTextFile, ({ params }) =>
      mapped(async () => ({
        content: await readTextFile(params.path, {
          line: params.line,
          limit: params.limit,
          maxBytes: options.maxReadBytes,
          access: service.fileAccess(params.sessionId),
        }),
      })))
    .onRequest(fs.writeTextFile, ({ params }) =>
      mapped(async () => {
        await writeTextFile(params.path, params.content, service.fileAccess(params.sessionId));
        return {};
      }));
}
