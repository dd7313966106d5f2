/**
 * The policy's questions that the asking client cannot answer (a script's
 * `termbridge exec`, an MCP client without elicitation through the official
 * SDK), answered on the dashboard's page in chromium, or left unanswered
 * until the configured `webAskTimeout`, through the built binary's server.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld, type World } from "../server/_kit.ts";
import { NO_BINARY } from "../built_binary.ts";
import { CHROMIUM, launchBrowser, NO_CHROMIUM, openDashboard } from "./_browser.ts";
import { McpProcess } from "../mcp/_kit.ts";

const READY = BINARY_CURRENT && CHROMIUM !== undefined;
const WHY = !BINARY_CURRENT ? NO_BINARY : NO_CHROMIUM;

/** Writes the user's configuration of `world`'s server. */
function configure(world: World, config: unknown): void {
  mkdirSync(join(world.dir, "config", "termbridge"), { recursive: true });
  writeFileSync(
    join(world.dir, "config", "termbridge", "termbridge.jsonc"),
    JSON.stringify(config),
  );
}

/** The server's audit events. */
function audit(world: World): Record<string, unknown>[] {
  return readFileSync(join(world.dir, "state", "termbridge", "audit.jsonl"), "utf8")
    .trim().split("\n").map((line) => JSON.parse(line));
}

describe("web dashboard: policy questions (chromium)", () => {
  itWhen(
    READY,
    "web: an exec's 'ask' waits for the page: allow runs it (its exit status), deny refuses it (123)",
    () =>
      inWorld("binary", async (world) => {
        mkdirSync(join(world.dir, "config", "termbridge"), { recursive: true });
        writeFileSync(
          join(world.dir, "config", "termbridge", "termbridge.jsonc"),
          '{ "policy": { "ask": ["mkdir"] } }',
        );
        await world.ok(["new", "p"]);
        // No page open yet: refused at once, saying so.
        const alone = await world.tb(["exec", "p", `mkdir ${world.dir}/no-page`]);
        assert.equal(alone.code, 123, alone.stderr);
        assert.match(alone.stderr, /no termbridge web page is open/);
        assert.equal(existsSync(join(world.dir, "no-page")), false);

        const browser = await launchBrowser();
        try {
          const page = await openDashboard(browser, world);
          const me = await page.evaluate(() =>
            (globalThis as unknown as { termbridge: { state: { me: string } } }).termbridge.state
              .me
          );
          // Allowed on the page: it runs, and exec exits with the command's own status.
          const allowed = world.tb(["exec", "p", `mkdir ${world.dir}/allowed && (exit 7)`]);
          await page.waitForSelector(".ask");
          const shown = await page.textContent(".ask") ?? "";
          assert.match(shown, /exec pid \d+ asks to run/);
          assert.match(shown, /mkdir .*allowed/);
          assert.match(shown, /ask: mkdir/);
          assert.equal(existsSync(join(world.dir, "allowed")), false);
          await page.click(".ask .allow");
          const ran = await allowed;
          assert.equal(ran.code, 7, ran.stderr);
          assert.equal(existsSync(join(world.dir, "allowed")), true);
          await page.waitForSelector(".ask", { state: "detached" });

          // Denied on the page: refused with the policy's status, and nothing ran.
          const denied = world.tb(["exec", "p", `mkdir ${world.dir}/denied`]);
          await page.waitForSelector(".ask");
          await page.click(".ask .deny");
          const refused = await denied;
          assert.equal(refused.code, 123, refused.stderr);
          assert.match(refused.stderr, /not approved \(web \d+ \(deny\)\)/);
          assert.equal(existsSync(join(world.dir, "denied")), false);

          // The audit log names the page's client as the one who decided.
          const approvals = audit(world).filter((e) => e.event === "approval");
          const yes = approvals.find((e) => /allowed/.test(String(e.subject)));
          const no = approvals.find((e) => /denied/.test(String(e.subject)));
          assert.equal(yes?.approved, true, JSON.stringify(approvals));
          assert.equal(yes?.by, `${me} (allow once)`);
          assert.match(String(yes?.client), /^exec pid \d+$/);
          assert.equal(no?.approved, false, JSON.stringify(approvals));
          assert.equal(no?.by, `${me} (deny)`);
        } finally {
          await browser.close();
        }
      }),
    WHY,
  );

  itWhen(
    READY,
    "web: a question nobody answers is refused after webAskTimeout, and leaves the page",
    () =>
      inWorld("binary", async (world) => {
        configure(world, { policy: { ask: ["mkdir"] }, webAskTimeout: 1.5 });
        await world.ok(["new", "p"]);
        const browser = await launchBrowser();
        try {
          const page = await openDashboard(browser, world);
          const started = performance.now();
          const asked = world.tb(["exec", "p", `mkdir ${world.dir}/unanswered`]);
          await page.waitForSelector(".ask");
          assert.match(await page.textContent(".ask") ?? "", /mkdir .*unanswered/);
          const refused = await asked;
          const waited = performance.now() - started;
          assert.equal(refused.code, 123, refused.stderr);
          assert.match(
            refused.stderr,
            /nobody answered on the termbridge web page within 1\.5 s/,
          );
          assert.ok(waited >= 1400, `refused after ${waited} ms, before the 1.5 s`);
          assert.equal(existsSync(join(world.dir, "unanswered")), false);
          // The question is withdrawn from the page.
          await page.waitForSelector(".ask", { state: "detached" });
          const approval = audit(world).find((e) =>
            e.event === "approval" && /unanswered/.test(String(e.subject))
          );
          assert.equal(approval?.approved, false, JSON.stringify(approval));
          assert.match(String(approval?.by), /nobody answered .* within 1\.5 s/);
        } finally {
          await browser.close();
        }
      }),
    WHY,
  );

  itWhen(
    READY,
    "web: an MCP client without elicitation (mcp --server, the official SDK) gets the page's answer",
    () =>
      inWorld("binary", async (world) => {
        configure(world, { policy: { ask: ["mkdir"] } });
        await world.ok(["new", "p"]);
        const browser = await launchBrowser();
        // No capabilities: the client cannot be asked itself.
        const mcp = await McpProcess.start({ args: ["--server"], env: world.env, cwd: world.dir });
        try {
          const page = await openDashboard(browser, world);
          const allowed = mcp.call("terminal_execute", {
            command: `mkdir ${world.dir}/mcp-allowed && echo made-$((6*7))`,
          });
          await page.waitForSelector(".ask");
          const shown = await page.textContent(".ask") ?? "";
          assert.match(shown, /mcp pid \d+ asks to run/);
          assert.match(shown, /mkdir .*mcp-allowed/);
          assert.equal(existsSync(join(world.dir, "mcp-allowed")), false);
          await page.click(".ask .allow");
          const ran = await allowed;
          assert.equal(ran.isError, false, ran.text);
          assert.match(ran.text, /made-42/);
          assert.equal(existsSync(join(world.dir, "mcp-allowed")), true);
          await page.waitForSelector(".ask", { state: "detached" });

          const denied = mcp.call("terminal_execute", { command: `mkdir ${world.dir}/mcp-denied` });
          await page.waitForSelector(".ask");
          await page.click(".ask .deny");
          const refused = await denied;
          assert.equal(refused.isError, true, refused.text);
          assert.match(refused.text, /not approved \(web \d+ \(deny\)\)/);
          assert.equal(existsSync(join(world.dir, "mcp-denied")), false);
        } finally {
          await mcp.close();
          await browser.close();
        }
      }),
    WHY,
  );
});
