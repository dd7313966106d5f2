import { describe, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";
import { resolveProgram } from "../../lib/terminal/launch.ts";

function installed(program: string): boolean {
  try {
    resolveProgram(program, runtime.env(), "/");
    return true;
  } catch {
    return false; // Not on PATH: the test is skipped, saying why.
  }
}

const HAS_ZSH = installed("zsh");
const NO_ZSH = "zsh is not installed; `make tools` installs it";

describe("sessions: zsh", () => {
  itWhen(
    HAS_ZSH,
    "sessions: zsh gets shell integration: output, exit code, cwd",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "termbridge-zsh-"));
      const sessions = new SessionManager({ cwd: home, env: { HOME: home, ZDOTDIR: home } });
      try {
        const session = await sessions.open({ name: "z", program: ["zsh"] });
        assert.equal(session.integration, "shell");
        const first = await session.exec("echo hi; false", 10_000);
        assert.deepEqual([first.status, first.exitCode, first.output], ["completed", 1, "hi\n"]);
        await session.exec("mkdir -p 'a dir' && cd 'a dir'", 10_000);
        const where = await session.exec("printf %s no-newline", 10_000);
        assert.deepEqual([where.output, where.cwd], ["no-newline", join(home, "a dir")]);
      } finally {
        await sessions.closeAll();
        rmSync(home, { recursive: true, force: true });
      }
    },
    NO_ZSH,
  );

  itWhen(
    HAS_ZSH,
    "sessions: zsh -f skips the user's .zshrc but keeps shell integration",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "termbridge-zsh-"));
      writeFileSync(join(home, ".zshrc"), "MARK=from-zshrc\n");
      const sessions = new SessionManager({ cwd: home, env: { HOME: home, ZDOTDIR: home } });
      try {
        const plain = await sessions.open({ name: "rc", program: ["zsh"] });
        const bare = await sessions.open({ name: "norc", program: ["zsh", "-f"] });
        const line = 'echo "${MARK:-unset}"; (exit 5)';
        const [withRc, withoutRc] = [await plain.exec(line, 10_000), await bare.exec(line, 10_000)];
        assert.deepEqual([withRc.output, withRc.exitCode], ["from-zshrc\n", 5]);
        assert.deepEqual([withoutRc.output, withoutRc.exitCode], ["unset\n", 5]);
      } finally {
        await sessions.closeAll();
        rmSync(home, { recursive: true, force: true });
      }
    },
    NO_ZSH,
  );
});
