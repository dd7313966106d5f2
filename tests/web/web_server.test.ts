/**
 * The dashboard's HTTP side, in process on the runtime running the tests
 * (Deno.serve under Deno, Bun.serve under Bun): each request that must be
 * refused is sent, plainly, and refused; the one that must pass passes.
 */

import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "../harness.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";
import { Gatekeeper, TICKET_TTL_MS } from "../../lib/web/auth.ts";
import { WebServer } from "../../lib/web/web_server.ts";

/** Sends `head` (request line and headers) on a new connection; resolves with the status line. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(head + "\r\n"));
    let got = "";
    socket.on("data", (chunk) => {
      got += chunk.toString("latin1");
      const end = got.indexOf("\r\n");
      if (end !== -1) {
        socket.destroy();
        resolve(got.slice(0, end));
      }
    });
    socket.on("error", reject);
  });
}

/** A WebSocket upgrade's request head. */
function upgradeHead(port: number, headers: Record<string, string>): string {
  const lines = [
    "GET /ws HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return lines.join("\r\n") + "\r\n";
}

async function withWeb(body: (web: WebServer) => Promise<void>): Promise<void> {
  const sessions = new SessionManager();
  const web = await WebServer.start({ sessions, hostname: "127.0.0.1", port: 0 });
  try {
    await body(web);
  } finally {
    await web.close();
    await sessions.closeAll();
  }
}

/** Exchanges a new ticket for the cookie; returns the Cookie header to send. */
async function login(web: WebServer): Promise<string> {
  const response = await fetch(web.link(), { redirect: "manual" });
  await response.body?.cancel();
  assert.equal(response.status, 303);
  const setCookie = response.headers.get("set-cookie") ?? "";
  return setCookie.split(";")[0];
}

describe("web server", () => {
  it("web: a ticket is exchanged once for an HttpOnly SameSite=Strict cookie", async () => {
    await withWeb(async (web) => {
      const link = web.link();
      const first = await fetch(link, { redirect: "manual" });
      await first.body?.cancel();
      assert.equal(first.status, 303);
      assert.equal(first.headers.get("location"), "/");
      const cookie = first.headers.get("set-cookie") ?? "";
      assert.match(cookie, /HttpOnly/);
      assert.match(cookie, /SameSite=Strict/);
      const again = await fetch(link, { redirect: "manual" });
      assert.equal(again.status, 401);
      assert.match(await again.text(), /used already or has expired/);
      const page = await fetch(`${web.origin}/`, { headers: { cookie: cookie.split(";")[0] } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script src="\/app.js"/);
      assert.match(page.headers.get("content-security-policy") ?? "", /script-src 'self';/);
      assert.doesNotMatch(
        page.headers.get("content-security-policy") ?? "",
        /script-src[^;]*unsafe/,
      );
    });
  });

  it("web: no cookie, a wrong cookie or another Host is refused", async () => {
    await withWeb(async (web) => {
      const cookie = await login(web);
      for (const path of ["/", "/app.js", "/xterm.js"]) {
        const bare = await fetch(`${web.origin}${path}`);
        assert.equal(bare.status, 401, path);
        assert.match(await bare.text(), /termbridge web/);
      }
      const wrong = await fetch(`${web.origin}/`, {
        headers: { cookie: `termbridge_${web.port}=forged` },
      });
      await wrong.body?.cancel();
      assert.equal(wrong.status, 401);
      const ok = await fetch(`${web.origin}/xterm.js`, { headers: { cookie } });
      await ok.body?.cancel();
      assert.equal(ok.status, 200);
      // DNS rebinding: a page of evil.example resolved to 127.0.0.1 names its own host.
      const rebound = await rawRequest(
        web.port,
        `GET / HTTP/1.1\r\nHost: evil.example:${web.port}\r\nCookie: ${cookie}\r\n`,
      );
      assert.match(rebound, / 403 /);
    });
  });

  it("web: a WebSocket upgrade needs the page's Origin and the cookie", async () => {
    await withWeb(async (web) => {
      const cookie = await login(web);
      const origin = `http://127.0.0.1:${web.port}`;
      assert.match(
        await rawRequest(web.port, upgradeHead(web.port, { Origin: origin, Cookie: cookie })),
        / 101 /,
      );
      assert.match(
        await rawRequest(
          web.port,
          upgradeHead(web.port, { Origin: "http://evil.example", Cookie: cookie }),
        ),
        / 403 /,
      );
      assert.match(
        await rawRequest(web.port, upgradeHead(web.port, { Cookie: cookie })),
        / 403 /,
      );
      assert.match(
        await rawRequest(web.port, upgradeHead(web.port, { Origin: origin })),
        / 401 /,
      );
    });
  });

  it("web: a ticket expires after a minute", () => {
    let now = 1_000;
    const gate = new Gatekeeper(8080, "127.0.0.1", () => now);
    const late = gate.mintTicket();
    now += TICKET_TTL_MS;
    assert.equal(gate.redeem(late), null);
    now = 5_000;
    const ticket = gate.mintTicket();
    now += TICKET_TTL_MS - 1;
    assert.notEqual(gate.redeem(ticket), null);
    assert.equal(gate.redeem(ticket), null);
  });
});
