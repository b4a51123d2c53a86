"use strict";
/* The page's words come from the table's phrasebook (GET /api/texts). */
let TEXTS = {};
async function loadTexts() {
  try {
    const response = await fetch("/api/texts", { credentials: "same-origin" });
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

/* A live channel that reconnects by itself, with a growing pause (1 s … 10 s).
   When the server says this device is not paired (401), it stops and tells. */
function liveChannel(path, onState, onConnection, onUnpaired) {
  let delay = 1000;
  let stopped = false;
  async function open() {
    if (stopped) return;
    let url;
    try { url = await socketURL(path); } catch (e) { window.setTimeout(open, delay); return; }
    const socket = new WebSocket(url);
    let opened = false;
    socket.addEventListener("open", () => { opened = true; delay = 1000; onConnection(true); });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") onState(message.state);
    });
    socket.addEventListener("close", async (event) => {
      onConnection(false);
      if (onUnpaired && (event.code === 4401 || !opened) && await unpaired()) {
        stopped = true;
        onUnpaired(() => { stopped = false; delay = 1000; open(); });
        return;
      }
      window.setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    });
  }
  async function unpaired() {
    try {
      const response = typeof signedFetch === "function" ? await signedFetch("/api/state")
        : await fetch("/api/state", { credentials: "same-origin" });
      return response.status === 401;
    } catch (e) { return false; }
  }
  open();
}

/* A live channel's URL: the host's carries its proof (secure.js); the TV's names the
   TV key its table link carries (?tv=), which keeps it a slot no crowd can take. */
async function socketURL(path) {
  if (typeof signedSocketURL === "function" && !path.startsWith("/api/table")) return signedSocketURL(path);
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
