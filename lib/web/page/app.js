// The termbridge dashboard: one WebSocket (lib/web/protocol.ts), tiles for
// every session, and one terminal view (xterm.js) that watches a session and,
// once this page takes control, types into it.
"use strict";

const HEADER_BYTES = 12;
const FONT = { family: "ui-monospace, 'DejaVu Sans Mono', monospace", size: 14 };

const $ = (id) => document.getElementById(id);
const state = {
  socket: null,
  /** This page's client label ("web 3"), from the server's hello. */
  me: null,
  tiles: new Map(),
  /** The open view: { name, term, id, offset, acked, writing, cols, rows } or null. */
  view: null,
  /** The open recording: { id, player } or null. */
  player: null,
  retryMs: 250,
};

/** Test and bench hooks: the open terminal and a raw send. */
globalThis.termbridge = {
  state,
  send: (message) => send(message),
  /** The open terminal's lines (scrollback and screen), trailing blanks trimmed. */
  lines() {
    const term = state.view?.term;
    if (!term) return [];
    const buffer = term.buffer.active;
    const lines = [];
    for (let i = 0; i < buffer.length; i++) {
      lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  },
  /** The player's terminal lines, the same way. */
  playerLines() {
    const term = state.player?.player?.term;
    if (!term) return [];
    const buffer = term.buffer.active;
    const lines = [];
    for (let i = 0; i < buffer.length; i++) {
      lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    }
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  },
};

function send(message) {
  if (state.socket?.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message));
}

function connect() {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  socket.binaryType = "arraybuffer";
  state.socket = socket;
  socket.onopen = () => {
    state.retryMs = 250;
    setStatus("live", true);
    // Back on a dropped connection: the view asks to go on from where it is.
    if (state.view) watch(state.view, state.view.id === null ? undefined : state.view.offset);
  };
  socket.onmessage = (event) => {
    if (typeof event.data === "string") onMessage(JSON.parse(event.data));
    else onOutput(new Uint8Array(event.data));
  };
  socket.onclose = (event) => {
    state.socket = null;
    $("asks").replaceChildren(); // The server sends the questions still open on reconnect.
    if (event.code === 1008 || event.code === 4001) {
      setStatus('refused: run "termbridge web" for a new link', false);
      return;
    }
    setStatus("disconnected, reconnecting…", false);
    if (state.view) state.view.id = state.view.id === null ? null : -1;
    setTimeout(connect, state.retryMs);
    state.retryMs = Math.min(state.retryMs * 2, 5000);
  };
}

function setStatus(text, live) {
  const status = $("status");
  status.textContent = live && state.me ? `live as ${state.me}` : text;
  status.classList.toggle("live", live);
}

function onMessage(message) {
  switch (message.t) {
    case "hello":
      state.me = message.client;
      setStatus("live", true);
      return;
    case "sessions":
      return onSessions(message.list);
    case "snapshot": {
      const view = state.view;
      if (!view || view.name !== message.name) return;
      view.id = message.id;
      view.term.reset();
      view.cutChar = null;
      sizeTerm(view, message.cols, message.rows);
      view.offset = message.offset;
      draw(view, message.data, message.offset, true);
      return;
    }
    case "resume": {
      const view = state.view;
      if (!view || view.name !== message.name) return;
      view.id = message.id;
      sizeTerm(view, message.cols, message.rows);
      return;
    }
    case "size": {
      const view = state.view;
      if (view && view.id === message.id) sizeTerm(view, message.cols, message.rows);
      return;
    }
    case "ask":
      return showAsk(message);
    case "answered":
      document.querySelector(`.ask[data-id="${message.id}"]`)?.remove();
      return;
    case "gone":
      if (state.view?.name === message.name) notice(`"${message.name}" was closed`);
      return;
    case "error":
      notice(message.message);
      return;
  }
}

/** Output bytes: written once each, in order (a repeat is skipped, a gap asks again). */
function onOutput(frame) {
  const view = state.view;
  const header = new DataView(frame.buffer, frame.byteOffset, HEADER_BYTES);
  const id = header.getUint32(0);
  const offset = header.getFloat64(4);
  if (!view || view.id !== id) return;
  let bytes = frame.subarray(HEADER_BYTES);
  if (offset > view.offset) {
    watch(view); // A gap cannot happen on one connection; if it does, start again from a picture.
    return;
  }
  if (offset < view.offset) bytes = bytes.subarray(view.offset - offset);
  if (bytes.length === 0) return;
  view.offset += bytes.length;
  draw(view, wholeChars(view, bytes), view.offset, false);
}

/**
 * `bytes` with the start of a UTF-8 character that the last frame ended in
 * the middle of put back in front, less one this frame ends in the middle of
 * (kept for the next): xterm.js 6.0 loses some characters split between two
 * writes (dashes, curly quotes), as lib/terminal/utf8_edges.ts says.
 */
function wholeChars(view, bytes) {
  if (view.cutChar) {
    const joined = new Uint8Array(view.cutChar.length + bytes.length);
    joined.set(view.cutChar);
    joined.set(bytes, view.cutChar.length);
    bytes = joined;
    view.cutChar = null;
  }
  for (let at = bytes.length - 1; at >= 0 && at >= bytes.length - 3; at--) {
    const byte = bytes[at];
    if ((byte & 0xc0) === 0x80) continue; // A continuation byte: its lead is further back.
    const length = byte < 0xc2 ? 0 : byte <= 0xdf ? 2 : byte <= 0xef ? 3 : byte <= 0xf4 ? 4 : 0;
    if (length > bytes.length - at) {
      view.cutChar = bytes.slice(at);
      bytes = bytes.subarray(0, at);
    }
    break;
  }
  return bytes;
}

/** Bytes drawn between two acks at most (the server sends at most 256 KiB beyond the last). */
const ACK_BYTES = 32 * 1024;

/**
 * Writes output (ending at raw offset `end`) to the view's terminal, and once
 * it is drawn tells the server how far it got (its flow control): after a
 * snapshot, when nothing else waits to be drawn, or every ACK_BYTES.
 */
function draw(view, data, end, force) {
  view.writing++;
  view.term.write(data, () => {
    view.writing--;
    if (state.view !== view || (!force && end <= view.acked)) return;
    if (force || view.writing === 0 || end - view.acked >= ACK_BYTES) {
      view.acked = Math.max(view.acked, end);
      send({ t: "ack", name: view.name, offset: end });
    }
  });
}

function onSessions(list) {
  state.tiles = new Map(list.map((tile) => [tile.name, tile]));
  renderTiles();
  if (state.view) renderViewBar();
}

function idleText(tile) {
  const seconds = Math.max(0, Math.floor(Date.now() / 1000) - tile.idleSince);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  return `${Math.floor(seconds / 3600)}h`;
}

function exitText(status) {
  return status.signal ? `killed by ${status.signal}` : `exited ${status.exitCode}`;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) node.append(child);
  return node;
}

/** What each tile node shows, as sent: a node is rebuilt only when it changed. */
const shownTiles = new WeakMap();

function renderTiles() {
  const container = $("tiles");
  const known = new Map([...container.children].map((node) => [node.dataset.name, node]));
  for (const tile of state.tiles.values()) {
    let node = known.get(tile.name);
    known.delete(tile.name);
    if (!node) {
      node = el("article", { className: "tile", tabIndex: 0 });
      node.dataset.name = tile.name;
      node.onclick = () => open(tile.name);
      node.onkeydown = (event) => event.key === "Enter" && open(tile.name);
      container.append(node);
    }
    // One session flooding changes its own tile, not the other 49: theirs stay as they are.
    const shown = JSON.stringify(tile);
    if (shownTiles.get(node) === shown) continue;
    shownTiles.set(node, shown);
    const badges = [];
    if (tile.exitStatus) {
      badges.push(el("span", { className: "badge exited" }, exitText(tile.exitStatus)));
    } else if (tile.running) {
      badges.push(el("span", { className: "badge running" }, `running: ${tile.running}`));
    }
    if (tile.driver) {
      badges.push(el("span", { className: "badge driver" }, `driven by ${tile.driver}`));
    }
    const idle = el("span", { className: "idle" }, `idle ${idleText(tile)}`);
    idle.dataset.since = String(tile.idleSince);
    node.replaceChildren(
      el("h2", {}, tile.name, ...badges),
      el("div", { className: "meta" }, `${tile.program.join(" ")} · ${tile.cwd} · `, idle),
      el("pre", {}, tile.preview.join("\n")),
    );
  }
  for (const node of known.values()) node.remove();
  $("empty").hidden = state.tiles.size > 0 || $("tiles").hidden;
}

/** A policy question nobody else can answer: the command, the rule, who asked; allow or deny. */
function showAsk(ask) {
  if (document.querySelector(`.ask[data-id="${ask.id}"]`)) return;
  const reply = (allow) => send({ t: "answer", id: ask.id, allow });
  const what = ask.kind === "command" ? "run" : ask.kind;
  const node = el(
    "div",
    { className: "ask", role: "alertdialog" },
    el("strong", {}, `${ask.client} asks to ${what}`),
    el("code", { className: "subject" }, ask.subject),
    el(
      "span",
      { className: "why" },
      `${ask.rule ? `rule "${ask.rule}": ` : ""}${ask.reason}${
        ask.session ? ` · session ${ask.session}` : ""
      }`,
    ),
    el("button", { type: "button", className: "allow", onclick: () => reply(true) }, "Allow once"),
    el("button", { type: "button", className: "deny", onclick: () => reply(false) }, "Deny"),
  );
  node.dataset.id = String(ask.id);
  $("asks").append(node);
}

/** Idle times tick without a message from the server. */
setInterval(() => {
  for (const node of document.querySelectorAll(".idle")) {
    node.textContent = `idle ${idleText({ idleSince: Number(node.dataset.since) })}`;
  }
}, 1000);

function open(name) {
  if (location.hash !== `#/s/${encodeURIComponent(name)}`) {
    location.hash = `#/s/${encodeURIComponent(name)}`;
  }
}

function route() {
  const match = /^#\/s\/(.+)$/.exec(location.hash);
  const name = match ? decodeURIComponent(match[1]) : null;
  const replay = /^#\/r\/(\d+)$/.exec(location.hash);
  const listing = location.hash === "#/recordings";
  if (state.view && state.view.name !== name) closeView();
  const opening = name !== null && !state.view;
  if (opening) openView(name);
  if (state.player && !replay) closePlayer();
  if (replay && state.player?.id !== Number(replay[1])) openPlayer(Number(replay[1]));
  if (listing) void listRecordings();
  const other = state.view !== null || replay !== null || listing;
  $("tiles").hidden = other;
  $("view").hidden = state.view === null;
  $("recordings").hidden = !listing;
  $("player").hidden = replay === null;
  // Only once shown: a browser does not focus an element that is not displayed.
  if (opening) state.view.term.focus();
  $("crumb").textContent = state.view
    ? `/ ${name}`
    : listing
    ? "/ recordings"
    : replay
    ? `/ recording ${replay[1]}`
    : "";
  renderTiles();
}

/** The server's recordings (GET /api/recordings, with the page's cookie). */
async function listRecordings() {
  const list = $("recording-list");
  let rows;
  try {
    const response = await fetch("/api/recordings");
    if (!response.ok) throw new Error(await response.text());
    rows = await response.json();
  } catch (error) {
    list.replaceChildren(el("li", {}, `Cannot list the recordings: ${error.message}`));
    return;
  }
  if (rows.length === 0) {
    list.replaceChildren(el("li", { className: "none" }, "No recordings yet."));
    return;
  }
  list.replaceChildren(...rows.map((row) => {
    const when = new Date(row.startedAt).toLocaleString();
    const size = row.bytes === null ? "file gone" : `${row.bytes} bytes`;
    const item = el(
      "li",
      { tabIndex: 0, className: "recording" },
      el("strong", {}, row.path),
      el(
        "div",
        { className: "meta" },
        `session ${row.session} · ${when} · ${size}${row.live ? " · still recording" : ""}`,
      ),
    );
    item.dataset.id = String(row.id);
    item.onclick = () => location.hash = `#/r/${row.id}`;
    item.onkeydown = (event) => event.key === "Enter" && item.onclick();
    return item;
  }));
}

/** Fetches recording `id` and replays it from the start. */
async function openPlayer(id) {
  closePlayer();
  const slot = { id, player: null };
  state.player = slot;
  $("player-name").textContent = `recording ${id}`;
  $("player-notice").textContent = "";
  $("player-screen").replaceChildren();
  let text;
  try {
    const response = await fetch(`/api/recordings/${id}`);
    text = await response.text();
    if (!response.ok) throw new Error(text.trim());
  } catch (error) {
    $("player-notice").textContent = error.message;
    return;
  }
  if (state.player !== slot) return; // Left meanwhile.
  try {
    slot.player = new globalThis.CastPlayer($("player-screen"), text, () => playerTick(slot));
  } catch (error) {
    $("player-notice").textContent = `Cannot replay this recording: ${error.message}`;
    return;
  }
  $("player-name").textContent = slot.player.header.title ?? `recording ${id}`;
  $("player-seek").max = String(slot.player.duration);
  slot.player.play();
}

function closePlayer() {
  state.player?.player?.dispose();
  state.player = null;
}

function playerTick(slot) {
  const player = slot.player;
  if (!player || state.player !== slot) return;
  $("player-play").textContent = player.playing ? "Pause" : "Play";
  $("player-seek").value = String(player.position);
  $("player-time").textContent = `${player.position.toFixed(1)} / ${player.duration.toFixed(1)} s`;
}

$("player-play").onclick = () => {
  const player = state.player?.player;
  if (!player) return;
  if (player.playing) player.pause();
  else player.play();
};
$("player-seek").oninput = (event) => state.player?.player?.seek(Number(event.target.value));
$("player-back").onclick = () => location.hash = "#/recordings";

function openView(name) {
  const term = new globalThis.Terminal({
    fontFamily: FONT.family,
    fontSize: FONT.size,
    lineHeight: 1.1,
    scrollback: 5000,
    convertEol: false,
    cursorBlink: false,
  });
  const view = {
    name,
    term,
    id: null,
    offset: 0,
    acked: 0,
    writing: 0,
    cols: 0,
    rows: 0,
    cutChar: null,
  };
  state.view = view;
  $("screen").replaceChildren();
  term.open($("screen"));
  term.onData((data) => typeInto(view, data));
  term.onBinary((data) => typeInto(view, data));
  notice("");
  renderViewBar();
  watch(view);
}

function closeView() {
  const view = state.view;
  send({ t: "unwatch", name: view.name });
  view.term.dispose();
  state.view = null;
}

/** Asks for a session's stream: from `from` when the view holds it up to there, else a picture. */
function watch(view, from) {
  view.id = null;
  send(
    from === undefined ? { t: "watch", name: view.name } : { t: "watch", name: view.name, from },
  );
}

function driving(view) {
  return state.me !== null && state.tiles.get(view.name)?.driver === state.me;
}

function typeInto(view, data) {
  if (!driving(view)) {
    notice('Watching only: "Take control" to type');
    return;
  }
  send({ t: "input", name: view.name, data });
}

function sizeTerm(view, cols, rows) {
  view.cols = cols;
  view.rows = rows;
  if (view.term.cols !== cols || view.term.rows !== rows) view.term.resize(cols, rows);
}

/** The size that fills the screen area, measured with the terminal's font. */
function fittingSize() {
  const probe = el("span", {}, "W".repeat(50));
  probe.style.cssText =
    `position:absolute;visibility:hidden;font-family:${FONT.family};font-size:${FONT.size}px;line-height:normal`;
  document.body.append(probe);
  const rect = probe.getBoundingClientRect();
  probe.remove();
  const row = state.view?.term.element?.querySelector(".xterm-rows > div");
  const height = row?.getBoundingClientRect().height || Math.ceil(FONT.size * 1.3);
  const cell = { width: rect.width / 50, height };
  const area = $("screen").getBoundingClientRect();
  return {
    cols: Math.max(20, Math.floor((area.width - 24) / cell.width)),
    rows: Math.max(5, Math.floor((area.height - 8) / cell.height)),
  };
}

function renderViewBar() {
  const view = state.view;
  const tile = state.tiles.get(view.name);
  $("view-name").textContent = view.name;
  $("view-info").textContent = tile
    ? `${tile.program.join(" ")} · ${tile.cwd}${
      tile.exitStatus ? ` · ${exitText(tile.exitStatus)}` : tile.running ? ` · ${tile.running}` : ""
    }`
    : "(gone)";
  const mine = driving(view);
  $("driver").textContent = tile?.driver
    ? (mine ? "you drive it" : `${tile.driver} drives it`)
    : "watching";
  $("take").hidden = mine || !tile || tile.exitStatus !== null;
  $("take").textContent = tile?.driver ? "Take over" : "Take control";
  $("release").hidden = !mine;
  $("screen").classList.toggle("driving", mine);
}

$("take").onclick = () => {
  const view = state.view;
  if (!view) return;
  send({ t: "take", name: view.name, ...fittingSize() });
  notice("");
  view.term.focus();
};
$("release").onclick = () => state.view && send({ t: "release", name: state.view.name });
$("back").onclick = () => location.hash = "";

globalThis.addEventListener("resize", () => {
  const view = state.view;
  if (view && driving(view)) send({ t: "resize", name: view.name, ...fittingSize() });
});

function notice(text) {
  $("notice").textContent = text;
}

globalThis.addEventListener("hashchange", route);
connect();
route();
