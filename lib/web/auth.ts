/**
 * Who may use the dashboard: whoever holds a ticket `termbridge web` printed
 * (single-use, short-lived) exchanges it for a cookie (HttpOnly,
 * SameSite=Strict) that every later request and WebSocket upgrade carries.
 * Requests must name this server as their Host (no DNS rebinding) and
 * WebSocket upgrades must come from its Origin (no other site's page).
 * @module
 */

/** How long a printed ticket may be exchanged. */
export const TICKET_TTL_MS = 60_000;

/** The most cookies kept at once; the oldest is forgotten first. */
const MAX_COOKIES = 64;

/** A random token of 32 bytes, base64url. */
function token(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

/** Compares two strings in time that depends only on their lengths. */
function same(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** Why a request was refused, for its 4xx answer. */
export type Refusal = { status: 401 | 403; message: string } | null;

/** Tickets, cookies and the addresses the dashboard answers as. */
export class Gatekeeper {
  readonly #tickets = new Map<string, { expiry: number; scope: string | undefined }>();
  readonly #cookies: string[] = [];
  readonly #now: () => number;
  /** The cookie's name: cookies ignore ports, so each port's dashboard has its own. */
  readonly cookieName: string;
  /** `host:port` values the Host header may carry. */
  readonly #hosts: Set<string>;

  /**
   * @param port The port the dashboard listens on.
   * @param hostname The address it is bound to (it answers as 127.0.0.1 and localhost too).
   */
  constructor(port: number, hostname: string, now: () => number = Date.now) {
    this.#now = now;
    this.cookieName = `termbridge_${port}`;
    const bound = hostname.includes(":") ? `[${hostname}]` : hostname;
    this.#hosts = new Set(
      ["127.0.0.1", "localhost", "[::1]", bound].map((host) => `${host}:${port}`),
    );
  }

  /**
   * A new ticket, valid once within {@linkcode TICKET_TTL_MS}: for the page
   * (no `scope`), or only for what `scope` names (`cast NAME`: one session's
   * live asciicast).
   */
  mintTicket(scope?: string): string {
    const now = this.#now();
    for (const [ticket, { expiry }] of this.#tickets) {
      if (expiry <= now) this.#tickets.delete(ticket);
    }
    const ticket = token();
    this.#tickets.set(ticket, { expiry: now + TICKET_TTL_MS, scope });
    return ticket;
  }

  /** Uses up `ticket`: whether it was valid, in time, and minted for `scope`. */
  useTicket(ticket: string, scope?: string): boolean {
    const entry = this.#tickets.get(ticket);
    if (entry === undefined || entry.scope !== scope) return false;
    this.#tickets.delete(ticket);
    return entry.expiry > this.#now();
  }

  /** Uses up a page's `ticket`: a new cookie value when it was valid, else null. */
  redeem(ticket: string): string | null {
    if (!this.useTicket(ticket)) return null;
    const cookie = token();
    this.#cookies.push(cookie);
    if (this.#cookies.length > MAX_COOKIES) this.#cookies.shift();
    return cookie;
  }

  /** The Set-Cookie header for `value`. */
  setCookie(value: string): string {
    return `${this.cookieName}=${value}; Path=/; HttpOnly; SameSite=Strict`;
  }

  /** Whether the request's Host header names this server. */
  hostAllowed(request: Request): boolean {
    return this.#hosts.has(request.headers.get("host") ?? "");
  }

  /** Whether the request carries a cookie this server gave out. */
  hasCookie(request: Request): boolean {
    const header = request.headers.get("cookie") ?? "";
    for (const part of header.split(";")) {
      const at = part.indexOf("=");
      if (at === -1 || part.slice(0, at).trim() !== this.cookieName) continue;
      const value = part.slice(at + 1).trim();
      if (this.#cookies.some((cookie) => same(cookie, value))) return true;
    }
    return false;
  }

  /** Whether a WebSocket upgrade's Origin is this server's own page. */
  originAllowed(request: Request): boolean {
    const origin = request.headers.get("origin");
    const host = request.headers.get("host") ?? "";
    return origin !== null && this.#hosts.has(host) && origin === `http://${host}`;
  }

  /** Why an ordinary request is refused, or null when it may go on. */
  checkRequest(request: Request): Refusal {
    if (!this.hostAllowed(request)) {
      return { status: 403, message: "Cannot serve this request: its Host is not this server" };
    }
    if (!this.hasCookie(request)) {
      return {
        status: 401,
        message:
          'Cannot open the dashboard: no valid cookie; run "termbridge web" for a new link (its ticket works once, for a minute)',
      };
    }
    return null;
  }

  /** Why a WebSocket upgrade is refused, or null when it may go on. */
  checkUpgrade(request: Request): Refusal {
    const refused = this.checkRequest(request);
    if (refused !== null) return refused;
    if (!this.originAllowed(request)) {
      return {
        status: 403,
        message: `Cannot open a WebSocket: origin "${
          request.headers.get("origin") ?? ""
        }" is not this dashboard`,
      };
    }
    return null;
  }
}
