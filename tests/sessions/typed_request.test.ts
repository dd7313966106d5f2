/**
 * The shell's typed-line request as termbridge reads it: fields escaped by
 * the hook, aliases (plain, global and suffix ones), and requests cut short never taken
 * for one (their last field, the token, is missing).
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { parseCheckRequest } from "../../lib/sessions/typed_lines.ts";

const NONCE = "0123456789ab";
const TOKEN = "fedcba9876543210";

describe("sessions: the typed-line request", () => {
  it("reads the fields, unescaping what the hook escaped", () => {
    const request = parseCheckRequest(
      `6973;check;${NONCE};/bin/bash;/tmp/a\\:b;/usr/bin;;echo "x\\:y" \\\\ \\n\\e\\s;ll=ls -l;=G=| grep x;==txt=vim;${TOKEN}`,
    );
    assert.deepEqual(request, {
      pending: "",
      nonce: NONCE,
      token: TOKEN,
      typed: {
        shell: "/bin/bash",
        cwd: "/tmp/a;b",
        path: "/usr/bin",
        line: 'echo "x;y" \\ \n\x1b\x9c',
        aliases: { ll: "ls -l" },
        globalAliases: { G: "| grep x" },
        suffixAliases: { txt: "vim" },
      },
    });
  });

  it("reads empty fields and no aliases", () => {
    const request = parseCheckRequest(`6973;check;${NONCE};zsh;/;;for i in 1\\n;do echo;${TOKEN}`);
    assert.deepEqual(request?.typed, {
      shell: "zsh",
      cwd: "/",
      path: "",
      line: "for i in 1\ndo echo",
      aliases: {},
      globalAliases: {},
      suffixAliases: {},
    });
  });

  it("is null for a request cut short, a stray backslash or a bad nonce or token", () => {
    const whole = `6973;check;${NONCE};bash;/;/usr/bin;;touch m;ll=ls;${TOKEN}`;
    for (
      const osc of [
        whole.slice(0, whole.lastIndexOf(";")), // cut before the token: the alias is not one
        `6973;check;${NONCE};bash;/;/usr/bin;;tou`,
        `6973;check;${NONCE};bash;/;/usr/bin;;touch \\q m;${TOKEN}`,
        `6973;check;XYZ;bash;/;/usr/bin;;touch m;${TOKEN}`,
        `6973;check;${NONCE};bash;/;/usr/bin;;touch m;not-hex`,
        `6973;other;${NONCE};bash;/;/usr/bin;;touch m;${TOKEN}`,
      ]
    ) {
      assert.equal(parseCheckRequest(osc), null, osc);
    }
  });
});
