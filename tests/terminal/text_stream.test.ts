import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { OSC_MARK_CAP, PlainTextStream } from "../../lib/terminal/text_stream.ts";

const encoder = new TextEncoder();

/** Shows control characters so failing test names and messages are readable. */
function show(s: string): string {
  return JSON.stringify(s);
}

/** Feeds `chunks` to a new stream and returns all its text, including `end()`. */
function strip(...chunks: (string | Uint8Array)[]): string {
  const stream = new PlainTextStream();
  let text = "";
  for (const chunk of chunks) {
    text += stream.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
  }
  return text + stream.end();
}

const ESC = "\x1b";
const BEL = "\x07";
const ST = `${ESC}\\`;

/** Output as a coloured shell session produces it. */
const SAMPLE = [
  `${ESC}]0;user@host: ~/src${BEL}`,
  `${ESC}]133;A${ST}$ ${ESC}]133;B${ST}ls --color${ESC}]133;C${BEL}\r\n`,
  `${ESC}[0m${ESC}[01;34mdocs${ESC}[0m  ${ESC}[01;32mbuild.sh${ESC}[0m  README.md\r\n`,
  `${ESC}[38;5;208mcafé${ESC}[0m ${ESC}[38;2;255;0;0m日本語${ESC}[39m 😀👍🏽 tab\there\r\n`,
  `${ESC}[?1049h${ESC}[H${ESC}[2J${ESC}[3;5Hfull screen${ESC}(B${ESC}=${ESC}>${ESC}7${ESC}8${ESC}M`,
  `${ESC}[?1049l${ESC}[?25h${ESC}P+q544e${ST}\u009b1mC1 bold\u009b0m\u009d2;c1 title${BEL}`,
  `progress 50%\rprogress 100%\r\n${ESC}]133;D;0${ESC}\\${ESC}]8;;https://example.com/${ST}link`,
  `${ESC}]8;;${ST}\b\b \x0e\x0fend\r\n`,
].join("");

const SAMPLE_TEXT = [
  "$ ls --color\n",
  "docs  build.sh  README.md\n",
  "café 日本語 😀👍🏽 tab\there\n",
  "full screen",
  "C1 bold",
  "progress 50%progress 100%\n",
  "link",
  " end\n",
].join("");

describe("plain text stream", () => {
  const cases: { name: string; input: string; text: string }[] = [
    {
      name: "plain text passes through",
      input: "hello wörld 日本 😀\n",
      text: "hello wörld 日本 😀\n",
    },
    { name: "SGR colours are removed", input: `${ESC}[1;31mred${ESC}[0m`, text: "red" },
    {
      name: "private CSI modes are removed",
      input: `${ESC}[?1049h${ESC}[?25lx${ESC}[>4;1m`,
      text: "x",
    },
    { name: "CSI with intermediates is removed", input: `a${ESC}[2 qb${ESC}[!pc`, text: "abc" },
    { name: "cursor moves are removed", input: `a${ESC}[10;20H${ESC}[Kb${ESC}[2Ac`, text: "abc" },
    { name: "OSC ended by BEL is removed", input: `${ESC}]0;title${BEL}x`, text: "x" },
    { name: "OSC ended by ST is removed", input: `${ESC}]2;title${ST}x`, text: "x" },
    {
      name: "OSC 133 marks are removed",
      input: `${ESC}]133;A${BEL}$ ${ESC}]133;D;1${ST}`,
      text: "$ ",
    },
    {
      name: "OSC 8 hyperlinks keep their text",
      input: `${ESC}]8;;http://a/${ST}a${ESC}]8;;${ST}`,
      text: "a",
    },
    { name: "DCS is removed", input: `${ESC}Pq#0;2;0;0;0#0~~${ST}x`, text: "x" },
    { name: "BEL does not end a DCS", input: `${ESC}Pa${BEL}b${ST}x`, text: "x" },
    {
      name: "SOS, PM and APC are removed",
      input: `${ESC}Xa${ST}${ESC}^b${ST}${ESC}_c${ST}x`,
      text: "x",
    },
    {
      name: "short escape sequences are removed",
      input: `a${ESC}(Bb${ESC}=c${ESC}>d${ESC}7e${ESC}8f${ESC}Mg${ESC}ch${ESC}#8i${ESC}%Gj`,
      text: "abcdefghij",
    },
    { name: "8-bit CSI is removed", input: "\u009b31mred\u009b0m", text: "red" },
    { name: "8-bit OSC is removed", input: `\u009d0;title${BEL}x\u009d1;t\u009cy`, text: "xy" },
    { name: "8-bit DCS is removed", input: "\u0090data\u009cy", text: "y" },
    { name: "other C1 controls are removed", input: "a\u0085b\u0084c\u008fd", text: "abcd" },
    {
      name: "BEL, backspace and other C0 controls are removed",
      input: `a${BEL}b\bc\x00d\x0ee\x7ff`,
      text: "abcdef",
    },
    { name: "tab and newline are kept", input: "a\tb\nc", text: "a\tb\nc" },
    { name: "CRLF becomes LF", input: "a\r\nb\r\n", text: "a\nb\n" },
    { name: "a lone CR is removed", input: "50%\r100%\r\rdone\r", text: "50%100%done" },
    { name: "CR CR LF becomes LF", input: "a\r\r\nb", text: "a\nb" },
    {
      name: "an ESC inside OSC ends it and starts a sequence",
      input: `${ESC}]0;t${ESC}[31mred`,
      text: "red",
    },
    { name: "CAN aborts a CSI", input: `${ESC}[31\x18x`, text: "x" },
    { name: "SUB aborts an OSC", input: `${ESC}]0;t\x1ax`, text: "x" },
    { name: "a newline inside a CSI still counts", input: `a${ESC}[3\n1mb`, text: "a\nb" },
    { name: "non-ASCII text ends a malformed CSI", input: `${ESC}[3é`, text: "é" },
    { name: "a stray ST is removed", input: `a${ST}b\u009cc`, text: "abc" },
    {
      name: "an unfinished sequence at the end is dropped",
      input: `a${ESC}]0;never ends`,
      text: "a",
    },
    { name: "an ESC at the end is dropped", input: `a${ESC}`, text: "a" },
  ];
  for (const { name, input, text } of cases) {
    it(`plain text stream: ${name}`, () => {
      assert.equal(strip(input), text, show(input));
    });
  }

  it("plain text stream: a realistic sample gives the expected text", () => {
    assert.equal(strip(SAMPLE), SAMPLE_TEXT);
  });

  it("plain text stream: the sample split at every byte gives the same text", () => {
    const bytes = encoder.encode(SAMPLE);
    for (let cut = 0; cut <= bytes.byteLength; cut++) {
      const text = strip(bytes.subarray(0, cut), bytes.subarray(cut));
      assert.equal(text, SAMPLE_TEXT, `split at byte ${cut}`);
    }
  });

  it("plain text stream: the sample fed one byte at a time gives the same text", () => {
    const bytes = encoder.encode(SAMPLE);
    const chunks = Array.from(bytes, (byte) => Uint8Array.of(byte));
    assert.equal(strip(...chunks), SAMPLE_TEXT);
  });

  it("plain text stream: the sample split at every pair of bytes gives the same text", () => {
    const bytes = encoder.encode(SAMPLE.slice(0, 200));
    const expected = strip(bytes);
    for (let first = 0; first <= bytes.byteLength; first++) {
      for (let second = first; second <= bytes.byteLength; second++) {
        const text = strip(
          bytes.subarray(0, first),
          bytes.subarray(first, second),
          bytes.subarray(second),
        );
        if (text !== expected) assert.fail(`split at bytes ${first} and ${second}: ${show(text)}`);
      }
    }
  });

  describe("random streams", () => {
    // Whole chunks without strings take the one-pass path; single bytes take
    // the state machine; random cuts mix both, and resume the fast path after
    // a sequence split across chunks. All must agree on anything.
    const anything = [
      "a",
      "word ",
      "é",
      "日本",
      "😀",
      "1",
      ";",
      "m",
      "[",
      "]",
      "\\",
      "\r",
      "\n",
      "\t",
      "\b",
      BEL,
      "\x7f",
      "\x00",
      "\x18",
      "\x1a",
      ESC,
      ST,
      `${ESC}[31m`,
      `${ESC}[?25l`,
      `${ESC}[2 q`,
      `${ESC}[`,
      `${ESC}(B`,
      `${ESC}(`,
      `${ESC}#8`,
      `${ESC}=`,
      `${ESC}P`,
      `${ESC}]0;`,
      `${ESC}]133;A`,
      `${ESC}X`,
      "\u009b",
      "\u009c",
      "\u009d",
      "\u0085",
    ]; // deno-fmt-ignore
    // Mostly what the one-pass path handles (complete sequences, CR LF, text,
    // ground controls), now and then a string or a malformed sequence.
    const likely = [
      "text ", "ünï ", "😀", "\r\n", "\r", "\t", BEL, "\b", `${ESC}[0m`, `${ESC}[01;34m`,
      `${ESC}[38;5;208m`, `${ESC}[?1049h`, `${ESC}[2J`, `${ESC}[10;20H`, `${ESC}(B`, `${ESC}=`,
      `${ESC}7`, `${ESC}M`, `${ESC}[2 q`, `${ESC}]133;D;0${BEL}`, `${ESC}]8;;x${ST}`, `${ESC}[3\n1m`,
    ]; // deno-fmt-ignore
    let seed = 0x7e57;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x80000000;
    };
    const run = (chunks: Uint8Array[]) => {
      const stream = new PlainTextStream();
      let text = "";
      for (const chunk of chunks) text += stream.push(chunk);
      return { text: text + stream.end(), marks: stream.takeOscMarks() };
    };
    const randomCuts = (bytes: Uint8Array) => {
      const cuts = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => Math.floor(random() * (bytes.length + 1)),
      ).sort((a, b) => a - b);
      return [0, ...cuts].map((cut, i, all) => bytes.subarray(cut, all[i + 1] ?? bytes.length));
    };
    it("plain text stream: every three of the edge tokens give the same text whole and byte by byte", () => {
      const edges = [
        ESC,
        `${ESC}[`,
        `${ESC}(`,
        `${ESC}]`,
        `${ESC}P`,
        "[",
        "(",
        "\\",
        "a",
        "m",
        "1",
        " ",
        "\x7f",
        "\x18",
        BEL,
        "\r",
        "\n",
        "é",
        "\u009b",
        "\u009c",
      ]; // deno-fmt-ignore
      for (const a of edges) {
        for (const b of edges) {
          for (const c of edges) {
            const bytes = encoder.encode(a + b + c);
            const whole = run([bytes]);
            const bytewise = run(Array.from(bytes, (byte) => Uint8Array.of(byte)));
            if (whole.text !== bytewise.text) {
              assert.fail(`${show(a + b + c)}: ${show(whole.text)} whole, ${show(bytewise.text)} bytewise`);
            }
          }
        }
      }
    });

    const cases = [
      // Short ones often have nothing that needs the state machine: they test the one pass.
      { name: "short streams of any tokens", tokens: anything, most: 4, count: 6000 },
      { name: "long streams of any tokens", tokens: anything, most: 30, count: 2000 },
      { name: "streams of mostly complete sequences", tokens: likely, most: 30, count: 2000 },
    ];
    for (const { name, tokens, most, count } of cases) {
      it(`plain text stream: ${name} give the same text and marks whole, cut and byte by byte`, () => {
        for (let n = 0; n < count; n++) {
          const length = 1 + Math.floor(random() * most);
          const input = Array.from({ length }, () => tokens[Math.floor(random() * tokens.length)])
            .join("");
          const bytes = encoder.encode(input);
          const whole = run([bytes]);
          assert.deepEqual(
            run(Array.from(bytes, (byte) => Uint8Array.of(byte))),
            whole,
            show(input),
          );
          assert.deepEqual(run(randomCuts(bytes)), whole, show(input));
        }
      });
    }

    /** Like `run`, through pushInto: the UTF-8 it wrote, and marks counted in bytes. */
    const runInto = (chunks: Uint8Array[]) => {
      const stream = new PlainTextStream();
      const parts: number[] = [];
      const sink = {
        append: (bytes: Uint8Array) => void parts.push(...bytes),
        appendText: (text: string) => {
          const bytes = encoder.encode(text);
          parts.push(...bytes);
          return bytes.length;
        },
      };
      for (const chunk of chunks) stream.pushInto(chunk, sink);
      const marks = stream.takeOscMarks();
      sink.appendText(stream.end());
      return { text: new TextDecoder().decode(Uint8Array.from(parts)), marks };
    };
    /** `run`'s marks in UTF-8 bytes, as pushInto counts them. */
    const inBytes = ({ text, marks }: ReturnType<typeof run>) => ({
      text,
      marks: marks.map(({ osc, at }) => ({ osc, at: encoder.encode(text.slice(0, at)).length })),
    });
    for (const { name, tokens, most, count } of cases) {
      it(`plain text stream: pushInto writes what push returns, as UTF-8 (${name})`, () => {
        for (let n = 0; n < count / 2; n++) {
          const length = 1 + Math.floor(random() * most);
          const input = Array.from({ length }, () => tokens[Math.floor(random() * tokens.length)])
            .join("");
          const bytes = encoder.encode(input);
          const expected = inBytes(run([bytes]));
          assert.deepEqual(runInto([bytes]), expected, show(input));
          assert.deepEqual(runInto(randomCuts(bytes)), expected, show(input));
          const bytewise = Array.from(bytes, (byte) => Uint8Array.of(byte));
          assert.deepEqual(runInto(bytewise), expected, show(input));
        }
      });
    }

    it("plain text stream: pushInto finds every control byte at every place in a word", () => {
      const controls = [...Array.from({ length: 0x20 }, (_, code) => code), 0x7f, 0x80, 0xc3];
      for (const code of controls) {
        for (let at = 0; at < 12; at++) {
          const bytes = new Uint8Array(16).fill(0x61);
          bytes[at] = code;
          if (code === 0xc3) bytes[at + 1] = 0xa9; // é
          const expected = inBytes(run([bytes]));
          assert.deepEqual(runInto([bytes]), expected, `byte ${code} at ${at}`);
        }
      }
    });

    it("plain text stream: pushInto strips a CSI sequence with any byte inside or after it as push does", () => {
      // Complete colour changes are skipped whole; anything else inside one (a control, DEL,
      // a string introducer, a character) must take the state machine's way.
      for (let code = 0; code < 0x100; code++) {
        const byte = String.fromCharCode(code);
        for (const input of [`a${ESC}[1;${byte}mb\r\n`, `a${ESC}[1${byte}`, `a${ESC}[${byte}b`]) {
          const bytes = Uint8Array.from(input, (char) => char.charCodeAt(0));
          const expected = inBytes(run([bytes]));
          assert.deepEqual(runInto([bytes]), expected, `byte ${code} in ${show(input)}`);
          assert.deepEqual(
            runInto([bytes, Uint8Array.of(0x6d, 0x7a)]),
            inBytes(run([bytes, Uint8Array.of(0x6d, 0x7a)])),
            `byte ${code} in ${show(input)}, cut`,
          );
        }
      }
    });

    it("plain text stream: pushInto of an ASCII flood larger than its buffer keeps every line", () => {
      const line = `${ESC}[01;34m0123456789${ESC}[0m abcdefghijklmnopqrstuvwxyz\r\n`;
      const bytes = encoder.encode(line.repeat(20_000)); // ~1.1 MB: many 64 KiB pieces
      const expected = inBytes(run([bytes]));
      assert.deepEqual(runInto([bytes]), expected);
      assert.deepEqual(runInto(randomCuts(bytes)), expected);
    });
  });

  it("plain text stream: a character split across chunks survives", () => {
    const bytes = encoder.encode("😀");
    const stream = new PlainTextStream();
    assert.equal(stream.push(bytes.subarray(0, 1)), "");
    assert.equal(stream.push(bytes.subarray(1, 3)), "");
    assert.equal(stream.push(bytes.subarray(3)), "😀");
    assert.equal(stream.end(), "");
  });

  it("plain text stream: CR at the end of one chunk and LF at the start of the next give one LF", () => {
    const stream = new PlainTextStream();
    assert.equal(stream.push(encoder.encode("line\r")), "line");
    assert.equal(stream.push(encoder.encode("\nnext")), "\nnext");
    assert.equal(stream.end(), "");
  });

  it("plain text stream: a sequence split across chunks gives nothing until it ends", () => {
    const stream = new PlainTextStream();
    assert.equal(stream.push(encoder.encode(`a${ESC}`)), "a");
    assert.equal(stream.push(encoder.encode("[38;5")), "");
    assert.equal(stream.push(encoder.encode(";208mb")), "b");
  });

  it("plain text stream: end turns an incomplete character into U+FFFD and starts afresh", () => {
    const stream = new PlainTextStream();
    assert.equal(stream.push(Uint8Array.of(0x61, 0xe6, 0x97)), "a");
    assert.equal(stream.end(), "\ufffd");
    assert.equal(stream.push(encoder.encode(`${ESC}]0;t`)), "");
    assert.equal(stream.end(), "");
    assert.equal(stream.push(encoder.encode("fresh")), "fresh");
  });

  it("plain text stream: invalid UTF-8 becomes U+FFFD", () => {
    assert.equal(strip(Uint8Array.of(0x61, 0xff, 0x62)), "a\ufffdb");
  });

  it("plain text stream: an empty chunk gives nothing", () => {
    assert.equal(new PlainTextStream().push(new Uint8Array(0)), "");
  });
});

describe("text stream: OSC marks", () => {
  it("text stream: reports OSC strings with their place in the text, however split", () => {
    const sample =
      "a\x1b]133;A\x07$ \x1b]133;C\x1b\\out\r\n\x1b]133;D;0\x07\x1b]7;file://h/tmp\x07z";
    const bytes = new TextEncoder().encode(sample);
    for (let split = 0; split <= bytes.length; split++) {
      const stream = new PlainTextStream();
      const text = stream.push(bytes.subarray(0, split)) + stream.push(bytes.subarray(split));
      assert.equal(text, "a$ out\nz");
      // Marks span both pushes: offsets are counted since the last take.
      assert.deepEqual(stream.takeOscMarks(), [
        { osc: "133;A", at: 1 },
        { osc: "133;C", at: 3 },
        { osc: "133;D;0", at: 7 },
        { osc: "7;file://h/tmp", at: 7 },
      ]);
    }
  });

  it("text stream: an aborted or oversized OSC is not reported", () => {
    const stream = new PlainTextStream();
    const big = "x".repeat(OSC_MARK_CAP);
    stream.push(new TextEncoder().encode(`\x1b]52;c;${big}\x07\x1b]0;t\x1bXok`));
    assert.deepEqual(stream.takeOscMarks(), []);
    // The same through the ASCII path, in pieces.
    const bytes = new TextEncoder().encode(`\x1b]52;c;${big}\x07ok\x1b]7;x\x07`);
    const sink = { append: () => {}, appendText: (text: string) => text.length };
    for (let at = 0; at < bytes.length; at += 50_000) {
      stream.pushInto(bytes.subarray(at, at + 50_000), sink);
    }
    assert.deepEqual(stream.takeOscMarks().map((mark) => mark.osc), ["7;x"]);
  });
});
