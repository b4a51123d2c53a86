"use strict";
/* The page's words come from the table's phrasebook (GET /api/texts). */
let TEXTS = {};

/* Every request the pages make and every live channel they open go through
   these two, so a layer over them (signing, another scheme) is one change. */
function request(path, options) {
  return fetch(path, Object.assign({ credentials: "same-origin" }, options || {}));
}
function openSocket(path) {
  const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
  return new WebSocket(scheme + window.location.host + path);
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

/* A live channel that reconnects by itself, with a growing pause (1 s … 10 s).
   When the server says this device is not paired (401), it stops and tells. */
function liveChannel(path, onState, onConnection, onUnpaired) {
  let delay = 1000;
  let stopped = false;
  function open() {
    if (stopped) return;
    const socket = openSocket(path);
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
      const response = await request("/api/state");
      return response.status === 401;
    } catch (e) { return false; }
  }
  open();
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
