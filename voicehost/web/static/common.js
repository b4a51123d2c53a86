"use strict";
/* A live channel that reconnects by itself, with a growing pause (1 s … 10 s). */
function liveChannel(path, onState, onConnection) {
  let delay = 1000;
  function open() {
    const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + window.location.host + path);
    socket.addEventListener("open", () => { delay = 1000; onConnection(true); });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "state") onState(message.state);
    });
    socket.addEventListener("close", () => {
      onConnection(false);
      window.setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    });
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
