/**
 * The shell's typed-line request as termbridge reads it: fields escaped by
 * the hook, HOME and bash's keyword option from `$-`, aliases (plain, global and suffix ones), and requests cut short never taken
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
      `6973;check;${NONCE};/bin/bash;/tmp/a\\:b;/usr/bin;/home/u;himBHks;;echo "x\\:y" \\\\ \\n\\e\\s;ll=ls -l;=G=| grep x;==txt=vim;${TOKEN}`,
    );
    assert.deepEqual(request, {
      pending: "",
      nonce: NONCE,
      token: TOKEN,
      typed: {
        shell: "/bin/bash",
        cwd: "/tmp/a;b",
        path: "/usr/bin",
        home: "/home/u",
        keyword: true,
        braceCcl: false,
        commentsOff: false,
        line: 'echo "x;y" \\ \n\x1b\x9c',
        aliases: { ll: "ls -l" },
        globalAliases: { G: "| grep x" },
        suffixAliases: { txt: "vim" },
      },
    });
  });

  it("reads empty fields and no aliases", () => {
    const request = parseCheckRequest(
      `6973;check;${NONCE};zsh;/;;/root;569JNXZghiklms;for i in 1\\n;do echo;${TOKEN}`,
    );
    assert.deepEqual(request?.typed, {
      shell: "zsh",
      cwd: "/",
      path: "",
      home: "/root",
      // zsh's `k` is interactive_comments, not bash's keyword option.
      keyword: false,
      braceCcl: false,
      commentsOff: false,
      line: "for i in 1\ndo echo",
      aliases: {},
      globalAliases: {},
      suffixAliases: {},
    });
  });

  it("reads the reading options after the option letters", () => {
    const zsh = parseCheckRequest(
      `6973;check;${NONCE};zsh;/;/usr/bin;/root;569JNXZghiklms braceccl;;touch {t};${TOKEN}`,
    );
    assert.equal(zsh?.typed.braceCcl, true);
    assert.equal(zsh?.typed.commentsOff, false);
    const bash = parseCheckRequest(
      `6973;check;${NONCE};/bin/bash;/;/usr/bin;/root;himBHks nocomments;;echo #;${TOKEN}`,
    );
    assert.equal(bash?.typed.keyword, true);
    assert.equal(bash?.typed.braceCcl, false);
    assert.equal(bash?.typed.commentsOff, true);
  });

  it("is null for a request cut short, a stray backslash or a bad nonce or token", () => {
    const whole = `6973;check;${NONCE};bash;/;/usr/bin;/root;hB;;touch m;ll=ls;${TOKEN}`;
    for (
      const osc of [
        whole.slice(0, whole.lastIndexOf(";")), // cut before the token: the alias is not one
        `6973;check;${NONCE};bash;/;/usr/bin;/root;hB;;tou`,
        `6973;check;${NONCE};bash;/;/usr/bin;/root;hB;;touch \\q m;${TOKEN}`,
        `6973;check;XYZ;bash;/;/usr/bin;/root;hB;;touch m;${TOKEN}`,
        `6973;check;${NONCE};bash;/;/usr/bin;/root;hB;;touch m;not-hex`,
        `6973;other;${NONCE};bash;/;/usr/bin;/root;hB;;touch m;${TOKEN}`,
      ]
    ) {
      assert.equal(parseCheckRequest(osc), null, osc);
    }
  });
});
