/**
 * The dashboard: an HTTP and WebSocket server inside the session server,
 * over its sessions. `termbridge web` asks the session server for it (the
 * `web/start` request); it listens from then until the session server stops.
 * @module
 */

import { type HttpServer, runtime, type WebSocketEvents } from "../runtime/mod.ts";
import type { SessionManager } from "../sessions/manager.ts";
import type { Session } from "../sessions/session.ts";
import { shownProgram } from "../sessions/session_types.ts";
import { type LiveCast, liveCast } from "../sessions/live_cast.ts";
import { asset } from "./assets.ts";
import { Asks } from "./asks.ts";
import { Gatekeeper } from "./auth.ts";
import { listRecordings, readRecording } from "./recordings.ts";
import type { ServerMessage, Tile } from "./protocol.ts";
import type { Approval, ApprovalRequest } from "../safety/types.ts";
import { Viewer } from "./viewer.ts";

/** How often the tiles are refreshed while a page is open. */
const TILE_MS = 400;

/** Lines a tile previews, and the most characters of each. */
const PREVIEW_LINES = 10;
const PREVIEW_WIDTH = 160;

/** Only the page's own scripts; xterm.js sets styles inline. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers on every answer. */
const HEADERS = {
  "content-security-policy": CSP,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** Where the dashboard listens. */
export interface WebServerOptions {
  sessions: SessionManager;
  /** The address to bind; "127.0.0.1" unless the user chose another. */
  hostname: string;
  /** The port; 0 for any free one. */
  port: number;
  /** A line for the server's log. */
  log?: (line: string) => void;
  /** How long a policy question waits for a page's answer (ms). */
  askMs?: number;
}

/** The dashboard of one session server. */
export class WebServer {
  readonly hostname: string;
  readonly #sessions: SessionManager;
  readonly #viewers = new Set<Viewer>();
  readonly #drivers = new Map<string, Viewer>();
  readonly #previews = new WeakMap<Session, { at: number; lines: string[] }>();
  readonly #log: (line: string) => void;
  #http!: HttpServer;
  #gate!: Gatekeeper;
  #tiles = "";
  #ticker: ReturnType<typeof setInterval> | undefined;
  #count = 0;
  readonly #asks: Asks;
  /** The live asciicasts being streamed, ended when the dashboard stops. */
  readonly #casts = new Set<LiveCast>();

  private constructor(options: WebServerOptions) {
    this.hostname = options.hostname;
    this.#sessions = options.sessions;
    this.#log = options.log ?? (() => {});
    this.#asks = new Asks({
      pages: () => this.#viewers.size,
      broadcast: (message) => this.#broadcast(message),
      timeoutMs: options.askMs,
    });
  }

  /**
   * Puts a policy question to the open pages (the session server's approver
   * of last resort): the first page's answer, else a refusal saying why.
   */
  ask(request: ApprovalRequest, signal?: AbortSignal): Promise<Approval> {
    return this.#asks.ask(request, signal);
  }

  #broadcast(message: ServerMessage): void {
    for (const viewer of this.#viewers) viewer.send(message);
  }

  /**
   * Starts listening.
   * @throws {Error} when the address cannot be bound
   */
  static async start(options: WebServerOptions): Promise<WebServer> {
    const web = new WebServer(options);
    web.#http = await runtime.serveHttp({
      hostname: options.hostname,
      port: options.port,
      handler: (request, upgrade) => web.#handle(request, upgrade),
    });
    web.#gate = new Gatekeeper(web.#http.port, options.hostname);
    return web;
  }

  /** The port it listens on. */
  get port(): number {
    return this.#http.port;
  }

  /** The dashboard's address, without a ticket. */
  get origin(): string {
    const host = this.hostname.includes(":") ? `[${this.hostname}]` : this.hostname;
    return `http://${host}:${this.port}`;
  }

  /** A link with a new ticket (single use, one minute). */
  link(): string {
    return `${this.origin}/?ticket=${this.#gate.mintTicket()}`;
  }

  /**
   * A link to session `name`'s live asciicast with a ticket that works once,
   * for that stream only (for asciinema and other clients without the cookie).
   * @throws {Error} when there is no such session
   */
  castLink(name: string): string {
    this.#sessions.get(name);
    return `${this.origin}${castPath(name)}?ticket=${this.#gate.mintTicket(`cast ${name}`)}`;
  }

  /** Stops listening and closes every page's connection. */
  async close(): Promise<void> {
    for (const cast of this.#casts) cast.close();
    this.#casts.clear();
    clearInterval(this.#ticker);
    this.#ticker = undefined;
    this.#asks.close();
    for (const viewer of this.#viewers) viewer.close();
    this.#viewers.clear();
    await this.#http.close();
  }

  async #handle(
    request: Request,
    upgrade: (events: WebSocketEvents) => Response,
  ): Promise<Response> {
    const url = new URL(request.url);
    if (!this.#gate.hostAllowed(request)) {
      return answer(403, "Cannot serve this request: its Host is not this server");
    }
    if (url.pathname === "/" && url.searchParams.has("ticket")) {
      const cookie = this.#gate.redeem(url.searchParams.get("ticket")!);
      if (cookie === null) {
        return answer(
          401,
          'Cannot open the dashboard: this link\'s ticket was used already or has expired; run "termbridge web" for a new one',
        );
      }
      // The ticket leaves the address bar at once: the page's own URL carries no secret.
      return new Response(null, {
        status: 303,
        headers: { ...HEADERS, location: "/", "set-cookie": this.#gate.setCookie(cookie) },
      });
    }
    if (url.pathname === "/ws") {
      const refused = this.#gate.checkUpgrade(request);
      if (refused !== null) return answer(refused.status, refused.message);
      if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
        return answer(400, "Cannot open a WebSocket: expected an upgrade request");
      }
      return upgrade(this.#connect());
    }
    const live = castName(url.pathname);
    if (live === undefined) {
      return answer(400, `Cannot stream ${url.pathname}: the session's name is not valid`);
    }
    const ticket = url.searchParams.get("ticket");
    if (live !== null && ticket !== null) {
      // A `web --cast` link: its ticket opens this stream once, with no cookie.
      const name = live;
      if (!this.#gate.useTicket(ticket, `cast ${name}`)) {
        return answer(
          401,
          `Cannot stream "${name}": this link's ticket was used already, has expired or is for another stream; run "termbridge web --cast ${name}" for a new one`,
        );
      }
      return this.#castResponse(request, name);
    }
    const refused = this.#gate.checkRequest(request);
    if (refused !== null) return answer(refused.status, refused.message);
    if (request.method !== "GET" && request.method !== "HEAD") {
      return answer(405, `Cannot ${request.method} ${url.pathname}: only GET is served`);
    }
    if (live !== null) return this.#castResponse(request, live);
    if (url.pathname === "/api/recordings") {
      return json(await listRecordings(this.#sessions));
    }
    const cast = /^\/api\/recordings\/([^/]+)$/.exec(url.pathname);
    if (cast !== null) {
      const found = await readRecording(this.#sessions, cast[1]);
      if ("status" in found) return answer(found.status, found.message);
      return new Response(request.method === "HEAD" ? null : found.text, {
        headers: { ...HEADERS, "content-type": "application/x-asciicast; charset=utf-8" },
      });
    }
    const file = await asset(url.pathname);
    if (file === null) return answer(404, `Cannot find ${url.pathname}`);
    return new Response(request.method === "HEAD" ? null : file.body, {
      headers: { ...HEADERS, "content-type": file.type },
    });
  }

  /** Session `name`'s live asciicast, streamed until its program exits or the reader leaves. */
  #castResponse(request: Request, name: string): Response {
    let session: Session;
    try {
      session = this.#sessions.get(name);
    } catch {
      return answer(404, `Cannot stream "${name}": no such session`);
    }
    if (session.terminal.disposed) return answer(404, `Cannot stream "${name}": it was closed`);
    const headers = { ...HEADERS, "content-type": "application/x-asciicast; charset=utf-8" };
    if (request.method === "HEAD") return new Response(null, { headers });
    const cast = liveCast(session.terminal, {
      title: `termbridge session ${name}`,
      env: { SHELL: session.program[0], TERM: "xterm-256color" },
      onEnd: () => this.#casts.delete(cast),
    });
    this.#casts.add(cast);
    this.#log(`dashboard: streaming "${name}" as an asciicast`);
    return new Response(cast.stream, { headers });
  }

  /** The events of a new page's WebSocket. */
  #connect(): WebSocketEvents {
    let viewer: Viewer | undefined;
    const label = `web ${++this.#count}`;
    return {
      open: (socket) => {
        viewer = new Viewer(socket, label, {
          sessions: this.#sessions,
          driverOf: (name) => this.#drivers.get(name),
          setDriver: (name, driver) => this.#setDriver(name, driver),
          answer: (id, allow, by) => {
            this.#asks.answer(id, allow, by.label);
            this.#log(
              `dashboard: ${by.label} answered question ${id}: ${allow ? "allow" : "deny"}`,
            );
          },
        });
        this.#viewers.add(viewer);
        this.#log(`dashboard: ${label} connected`);
        viewer.send({ t: "sessions", list: this.#tileList() });
        for (const question of this.#asks.open()) viewer.send(question);
        this.#ticker ??= setInterval(() => this.#refresh(), TILE_MS);
      },
      message: (data) => viewer?.receive(data),
      close: () => {
        if (viewer === undefined) return;
        viewer.close();
        this.#viewers.delete(viewer);
        this.#log(`dashboard: ${label} left`);
        if (this.#viewers.size === 0) {
          clearInterval(this.#ticker);
          this.#ticker = undefined;
        }
      },
    };
  }

  #setDriver(name: string, driver: Viewer | null): void {
    if (driver === null) this.#drivers.delete(name);
    else this.#drivers.set(name, driver);
    this.#log(`dashboard: ${driver?.label ?? "nobody"} drives "${name}"`);
    this.#refresh(true);
  }

  /** Sends the tiles to every page when they changed (or when `force`). */
  #refresh(force = false): void {
    const list = this.#tileList();
    const json = JSON.stringify(list);
    if (json === this.#tiles && !force) return;
    this.#tiles = json;
    for (const viewer of this.#viewers) viewer.send({ t: "sessions", list });
  }

  #tileList(): Tile[] {
    const tiles: Tile[] = [];
    for (const info of this.#sessions.list()) {
      let session: Session;
      try {
        session = this.#sessions.get(info.name);
      } catch {
        continue; // Closed between the two calls.
      }
      const driver = this.#drivers.get(info.name);
      tiles.push({
        name: info.name,
        program: shownProgram(info.program),
        cwd: info.cwd,
        running: info.running,
        idleSince: Math.floor((Date.now() - info.idleMs) / 1000),
        exitStatus: info.exitStatus,
        cols: info.cols,
        rows: info.rows,
        driver: driver?.label ?? null,
        preview: this.#preview(session),
      });
    }
    return tiles;
  }

  /** The last lines of a session's screen, computed again only when it wrote something. */
  #preview(session: Session): string[] {
    const at = session.terminal.rawLog.totalBytes;
    const kept = this.#previews.get(session);
    if (kept?.at === at) return kept.lines;
    let lines: string[] = [];
    try {
      lines = session.terminal.lines({ scope: "visible" });
    } catch {
      // Disposed meanwhile: no preview.
    }
    while (lines.length > 0 && lines[lines.length - 1].trim() === "") lines.pop();
    lines = lines.slice(-PREVIEW_LINES).map((line) => line.slice(0, PREVIEW_WIDTH));
    this.#previews.set(session, { at, lines });
    return lines;
  }
}

/** Where session `name`'s live asciicast is served. */
export function castPath(name: string): string {
  return `/api/sessions/${encodeURIComponent(name)}/asciicast`;
}

/** The session a live asciicast's path names; null for another path, undefined for a bad name. */
function castName(pathname: string): string | null | undefined {
  const match = /^\/api\/sessions\/([^/]+)\/asciicast$/.exec(pathname);
  if (match === null) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/** A JSON answer with the dashboard's headers. */
function json(value: unknown): Response {
  return new Response(JSON.stringify(value), {
    headers: { ...HEADERS, "content-type": "application/json" },
  });
}

/** A plain-text answer with the dashboard's headers. */
function answer(status: number, message: string): Response {
  return new Response(message + "\n", {
    status,
    headers: { ...HEADERS, "content-type": "text/plain; charset=utf-8" },
  });
}
