/**
 * The session server's dashboard, started on the first `web/start` request
 * and kept until the server stops.
 * @module
 */

import type { Approval, ApprovalRequest } from "../safety/types.ts";
import { SessionNotFoundError } from "../sessions/errors.ts";
import type { SessionManager } from "../sessions/manager.ts";
import { WebServer } from "./web_server.ts";

/** The dashboard of a session server, made on demand. */
export class WebHost {
  readonly #sessions: SessionManager;
  readonly #log: (line: string) => void;
  readonly #askMs: number | undefined;
  #starting: Promise<WebServer> | undefined;

  /**
   * @param askMs How long a policy question waits for a page's answer
   * (the config's `webAskTimeout`; default 2 minutes).
   */
  constructor(sessions: SessionManager, log: (line: string) => void, askMs?: number) {
    this.#sessions = sessions;
    this.#log = log;
    this.#askMs = askMs;
  }

  /**
   * Starts the dashboard if it is not listening yet (on 127.0.0.1 and any
   * free port unless `where` says otherwise) and returns a link with a new
   * ticket: to the page, or with `cast` to that session's live asciicast.
   * @throws {Error} when it listens elsewhere already, the address cannot be
   * bound, or `cast` names no session
   */
  async start(where: { hostname?: string; port?: number; cast?: string }): Promise<
    { link: string; origin: string }
  > {
    const hostname = where.hostname ?? "127.0.0.1";
    const port = where.port ?? 0;
    if (this.#starting === undefined) {
      this.#starting = WebServer.start({
        sessions: this.#sessions,
        hostname,
        port,
        log: this.#log,
        askMs: this.#askMs,
      });
      this.#starting.catch(() => this.#starting = undefined); // The next request tries again.
      const web = await this.#starting;
      this.#log(`dashboard listening on ${web.origin}`);
    }
    const web = await this.#starting;
    if (
      (where.hostname !== undefined && where.hostname !== web.hostname) ||
      (where.port !== undefined && where.port !== 0 && where.port !== web.port)
    ) {
      throw new Error(
        `Cannot start the dashboard on ${hostname}:${port}: it listens on ${web.origin} already (kill-server stops it)`,
      );
    }
    if (where.cast !== undefined) {
      try {
        return { link: web.castLink(where.cast), origin: web.origin };
      } catch (error) {
        const message = `Cannot stream "${where.cast}": ${(error as Error).message}`;
        // An unknown name stays that kind of error: `web --cast` exits as other commands do on it.
        throw error instanceof SessionNotFoundError
          ? new SessionNotFoundError(message)
          : new Error(message);
      }
    }
    return { link: web.link(), origin: web.origin };
  }

  /**
   * Puts a policy question to the dashboard's open pages; refused, saying
   * why, when the dashboard was never started.
   */
  async ask(request: ApprovalRequest, signal?: AbortSignal): Promise<Approval> {
    const web = await this.#starting?.catch(() => undefined);
    if (web === undefined) {
      return {
        approved: false,
        by: "nobody to ask: no termbridge web page is open (start the server with --yes to " +
          "approve: termbridge kill-server; termbridge server --yes &)",
      };
    }
    return await web.ask(request, signal);
  }

  /** Stops the dashboard, if it was started. */
  async close(): Promise<void> {
    const starting = this.#starting;
    this.#starting = undefined;
    await (await starting?.catch(() => undefined))?.close();
  }
}
