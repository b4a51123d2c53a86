"use strict";
/* The room's board (/table) and the stream overlay (/overlay): the ten seats,
   the speaker with the time, the nominees, each vote round labelled, the
   captions; at night nothing but "Ночь". The overlay's roles mode (its own
   secret link) gets the same board with roles and checks, delayed by the server. */
const $ = (id) => document.getElementById(id);
let base = null;
let lastLine = null;
let epoch = null;
const ROLES_KEY = (() => {
  const match = window.location.pathname.match(/^\/overlay\/([^/]+)$/);
  return match ? match[1] : null;
})();

function tick() {
  const text = base && base.floor
    ? formatClock(base.floor.remaining - (base.paused ? 0 : (Date.now() - base.at) / 1000)) : "";
  if ($("clock").textContent !== text) $("clock").textContent = text;
  $("clock-label").hidden = !text;
  const tile = document.querySelector("#seats .speaking .time");
  if (tile && tile.textContent !== text) tile.textContent = text;
}

function label(seat, names) {
  const name = names[seat];
  return name ? T("player_named", { seat, name }) : T("player_n", { seat });
}

function setText(id, text) {
  if ($(id).textContent !== text) $(id).textContent = text;
}

function renderSeats(s) {
  const list = $("seats");
  const key = JSON.stringify([s.seats, s.is_night]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  clear(list);
  for (const seat of s.seats) {
    const li = document.createElement("li");
    const classes = ["tile"];
    if (seat.out) classes.push("gone");
    if (seat.speaking) classes.push("speaking");
    if (seat.voice) classes.push("voice");   // a microphone per seat: this seat's channel hears its voice
    if (seat.side) classes.push("side-" + seat.side);
    li.className = classes.join(" ");
    const number = document.createElement("span");
    number.className = "num";
    number.textContent = String(seat.seat);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seat.name || T("player_n", { seat: seat.seat });
    li.append(number, name);
    if (seat.role_name) {
      const role = document.createElement("span");
      role.className = "seat-role";
      role.textContent = seat.role_name;
      li.appendChild(role);
    }
    const fouls = document.createElement("span");
    fouls.className = "fouls";
    fouls.textContent = T("board_fouls", { count: seat.fouls }) + (seat.silenced ? T("silenced") : "");
    li.appendChild(fouls);
    const state = document.createElement("span");
    state.className = "state";
    state.textContent = seat.out ? T("board_out", { how: seat.out.how, when: seat.out.when }) : "";
    li.appendChild(state);
    const time = document.createElement("span");
    time.className = "time";
    time.setAttribute("aria-hidden", "true");
    li.appendChild(time);
    list.appendChild(li);
  }
}

function renderList(node, texts) {
  const key = JSON.stringify(texts);
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  clear(node);
  texts.forEach((text) => node.appendChild(item(text)));
}

/* Every public line the table heard, for a blind player's screen reader. */
function announce(s) {
  if (epoch !== s.epoch) { epoch = s.epoch; lastLine = null; }
  const lines = s.lines || [];
  if (lastLine !== null) {
    for (const line of lines) {
      if (line.n <= lastLine) continue;
      const p = document.createElement("p");
      p.textContent = line.text;
      $("lines").appendChild(p);
    }
    while ($("lines").children.length > 40) $("lines").removeChild($("lines").firstChild);
  }
  if (lines.length) lastLine = Math.max(lastLine || 0, lines[lines.length - 1].n);
  else if (lastLine === null) lastLine = 0;
  setText("last-line", lines.length && !s.is_night ? lines[lines.length - 1].text : "");
}

function render(s) {
  document.body.classList.toggle("night", !!s.is_night);
  document.body.classList.toggle("waiting", !!s.waiting);
  if (s.waiting) {  // the roles mode before its delay has passed
    setText("phase", s.phase);
    clear($("seats"));
    $("seats").dataset.key = "";
    return;
  }
  const names = s.names || {};
  document.body.classList.toggle("over", !!s.over);
  document.body.classList.toggle("seated", Object.keys(names).length > 0);   // between games: the standings, then the seats
  const when = s.over || (!s.day && !s.is_night) ? "" : (s.is_night ? T("night_n", { night: s.night }) + " · " : T("day_n", { day: s.day }) + " · ");
  setText("phase", (s.is_night && !s.roles_mode ? s.phase : when + s.phase) + (s.paused ? " · " + T("paused") : ""));
  base = { floor: s.floor, paused: s.paused, at: Date.now() };
  const speaker = s.floor ? T("board_speaker", { who: label(s.floor.seat, names), kind: s.floor.kind })
    : s.voting_for ? T("board_voting_for", { who: label(s.voting_for, names) }) : "";
  setText("speaker", speaker);
  setText("winner", s.over && s.winner ? s.winner : "");
  renderSeats(s);
  tick();
  renderList($("nominations"), s.nominees.map((n) => n.label));
  $("nominees").hidden = s.is_night || !s.nominees.length;
  renderList($("rounds"), s.rounds.map((r) => r.text));
  $("rounds-box").hidden = s.is_night || !s.rounds.length;
  const roles = !!s.roles_mode;
  $("roles-box").hidden = !roles || (!(s.checks || []).length && !s.best_move);
  if (roles) {
    renderList($("checks"), (s.checks || []).map((c) => T("board_check", { night: c.night, text: c.text })));
    setText("best-move", s.best_move ? s.best_move.text : "");
  }
  const caption = s.captions;
  $("captions-box").hidden = !caption || !caption.items.length;
  if (caption) {
    const box = $("captions");
    const key = JSON.stringify(caption);
    if (box.dataset.key !== key) {
      box.dataset.key = key;
      clear(box);
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = T("caption_who", { seat: caption.seat }) + " ";
      box.appendChild(who);
      for (const part of caption.items) {
        const span = document.createElement(part.nominated ? "mark" : "span");
        span.textContent = part.text + " ";
        box.appendChild(span);
      }
    }
  }
  announce(s);
}

loadTexts().then(() => {
  window.setInterval(tick, 250);
  const path = ROLES_KEY ? "/api/overlay/" + encodeURIComponent(ROLES_KEY) + "/ws" : "/api/table/ws";
  liveChannel(path, render, (up) => {
    setText("conn", up ? "" : T("reconnecting"));
    if (!up) { base = null; tick(); }
  });
});
