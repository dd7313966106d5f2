// The dashboard's recording player: an asciicast v2 file (a JSON header line,
// then [seconds, code, data] lines) replayed into xterm.js with its timing.
// Pauses longer than the header's idle_time_limit are shortened, as asciinema
// play does. Play, pause, seek (a seek writes every event up to that point).
"use strict";

/** Reads an asciicast v2 text: its header and its events on one clock (seconds). */
function parseCast(text) {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0) throw new Error("the recording is empty");
  const header = JSON.parse(lines[0]);
  if (header.version !== 2) {
    throw new Error(`expected an asciicast v2 recording, got version ${header.version}`);
  }
  const limit = typeof header.idle_time_limit === "number" ? header.idle_time_limit : Infinity;
  const events = [];
  let last = 0;
  let at = 0;
  for (const line of lines.slice(1)) {
    let event;
    try {
      event = JSON.parse(line);
    } catch {
      continue; // A recording cut short (its server killed) may end in half a line.
    }
    if (!Array.isArray(event) || typeof event[0] !== "number") continue;
    at += Math.min(Math.max(event[0] - last, 0), limit);
    last = event[0];
    events.push({ at, code: event[1], data: String(event[2]) });
  }
  return { header, events, duration: events.length ? events[events.length - 1].at : 0 };
}

/** Replays one recording into a new terminal in `container`. */
class CastPlayer {
  constructor(container, text, onTick) {
    const cast = parseCast(text);
    this.header = cast.header;
    this.events = cast.events;
    this.duration = cast.duration;
    this.onTick = onTick;
    this.term = new globalThis.Terminal({
      cols: this.header.width,
      rows: this.header.height,
      fontFamily: "ui-monospace, 'DejaVu Sans Mono', monospace",
      fontSize: 14,
      lineHeight: 1.1,
      scrollback: 5000,
      disableStdin: true,
      cursorBlink: false,
    });
    container.replaceChildren();
    this.term.open(container);
    /** Seconds into the recording, and the next event to write. */
    this.position = 0;
    this.next = 0;
    this.playing = false;
    this.timer = null;
    this.startedAt = 0;
  }

  /** Plays from the current position (from the start again once it has ended). */
  play() {
    if (this.playing) return;
    if (this.next >= this.events.length) this.seek(0);
    this.playing = true;
    this.startedAt = performance.now() - this.position * 1000;
    this.#tick();
  }

  pause() {
    if (!this.playing) return;
    this.position = (performance.now() - this.startedAt) / 1000;
    this.playing = false;
    clearTimeout(this.timer);
    this.onTick?.();
  }

  /** Shows the recording as it was `seconds` in (paused or playing on from there). */
  seek(seconds) {
    const playing = this.playing;
    if (playing) this.pause();
    this.term.reset();
    this.term.resize(this.header.width, this.header.height);
    this.next = 0;
    this.position = Math.max(0, Math.min(seconds, this.duration));
    this.#writeUpTo(this.position);
    this.onTick?.();
    if (playing) this.play();
  }

  dispose() {
    this.playing = false;
    clearTimeout(this.timer);
    this.term.dispose();
  }

  #tick() {
    if (!this.playing) return;
    this.position = Math.min((performance.now() - this.startedAt) / 1000, this.duration);
    this.#writeUpTo(this.position);
    this.onTick?.();
    if (this.next >= this.events.length) {
      this.playing = false;
      this.position = this.duration;
      this.onTick?.();
      return;
    }
    const wait = this.events[this.next].at * 1000 - (performance.now() - this.startedAt);
    this.timer = setTimeout(() => this.#tick(), Math.max(0, Math.min(wait, 250)));
  }

  #writeUpTo(seconds) {
    let text = "";
    while (this.next < this.events.length && this.events[this.next].at <= seconds) {
      const event = this.events[this.next++];
      if (event.code === "o") {
        text += event.data;
      } else if (event.code === "r") {
        const size = /^(\d+)x(\d+)$/.exec(event.data);
        if (text) this.term.write(text);
        text = "";
        if (size) this.term.resize(Number(size[1]), Number(size[2]));
      }
    }
    if (text) this.term.write(text);
  }
}

globalThis.CastPlayer = CastPlayer;
