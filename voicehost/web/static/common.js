"use strict";
/* The page's words come from the table's phrasebook (GET /api/texts). */
let TEXTS = {};

/* Every request the pages make and every live channel they open go through
   these two: on the host's pages (which load secure.js first) a request carries
   its device's proof (signedFetch) and a channel's URL its proof (socketURL); the
   public board's pages have no secure.js and fetch plainly. */
function request(path, options) {
  if (typeof signedFetch === "function") return signedFetch(path, options);
  return fetch(path, Object.assign({ credentials: "same-origin" }, options || {}));
}
async function openSocket(path) {
  return new WebSocket(await socketURL(path));
}

async function loadTexts() {
  try {
    const response = await request("/api/texts");
    if (response.ok) TEXTS = await response.json();
  } catch (e) { /* offline: keys stay as they are until the next load */ }
}
function T(key, values) {
  const text = Object.prototype.hasOwnProperty.call(TEXTS, key) ? TEXTS[key] : key;
  return text.replace(/\{(\w+)\}/g, (m, name) => {
    const value = values && values[name];
    if (value === undefined || value === null) return "";
    return Array.isArray(value) ? value.join(", ") : String(value);
  });
}

/* A live channel that reconnects by itself: each second while the table is away, an
   attempt not open within 2 s given up for the next, so the page is back within 2 s
   of the table (a pause growing to 10 s kept it waiting that long after a drop).
   When the server says this device is not paired (401), it stops and tells. */
const RETRY_MS = 1000, OPEN_MS = 2000;
function liveChannel(path, onState, onConnection, onUnpaired) {
  let stopped = false;
  async function open() {
    if (stopped) return;
    let socket;
    try { socket = await openSocket(path); } catch (e) { window.setTimeout(open, RETRY_MS); return; }
    let opened = false;
    const slow = window.setTimeout(() => { if (!opened) socket.close(); }, OPEN_MS);
    socket.addEventListener("open", () => { opened = true; window.clearTimeout(slow); onConnection(true); });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") onState(message.state);
    });
    socket.addEventListener("close", async (event) => {
      onConnection(false);
      window.clearTimeout(slow);
      if (onUnpaired && (event.code === 4401 || !opened) && await unpaired()) {
        stopped = true;
        onUnpaired(() => { stopped = false; open(); });
        return;
      }
      window.setTimeout(open, RETRY_MS);
    });
  }
  async function unpaired() {  // asked within the same 2 s: a dropped link must not hold the next attempt
    const abort = new AbortController();
    const late = window.setTimeout(() => abort.abort(), OPEN_MS);
    try {
      const response = await request("/api/state", { signal: abort.signal });
      return response.status === 401;
    } catch (e) { return false; } finally { window.clearTimeout(late); }
  }
  open();
}

/* A live channel's URL: the host's carries its proof (secure.js); the TV's names the
   TV key its table link carries (?tv=), which keeps it a slot no crowd can take; the
   overlay's roles mode is let in by the key in its own path. */
async function socketURL(path) {
  const open = path.startsWith("/api/table") || path.startsWith("/api/overlay/");
  if (typeof signedSocketURL === "function" && !open) return signedSocketURL(path);
  const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
  const tv = new URLSearchParams(window.location.search).get("tv");
  return scheme + window.location.host + path + (tv ? "?tv=" + encodeURIComponent(tv) : "");
}

function formatClock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function item(text, className) {
  const li = document.createElement("li");
  li.textContent = text;
  if (className) li.className = className;
  return li;
}
