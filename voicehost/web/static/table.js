"use strict";
const $ = (id) => document.getElementById(id);
let base = null;

function tick() {
  if (!base || !base.floor) { $("clock").textContent = ""; return; }
  const elapsed = base.paused ? 0 : (Date.now() - base.at) / 1000;
  $("clock").textContent = formatClock(base.floor.remaining - elapsed);
}

function render(s) {
  const when = s.over ? "" : (s.is_night ? "" : T("day_n", { day: s.day }) + " · ");
  $("phase").textContent = when + s.phase + (s.paused ? " · " + T("paused") : "");
  base = { floor: s.floor, paused: s.paused, at: Date.now() };
  tick();
  $("speaker").textContent = s.floor ? T("speaker_line", { seat: s.floor.seat, kind: s.floor.kind }) : "";
  $("winner").textContent = s.over && s.winner ? s.winner : "";
  clear($("nominations"));
  const names = s.names || {};
  s.nominations.forEach((seat) => $("nominations").appendChild(item(names[seat]
    ? T("player_named", { seat, name: names[seat] }) : T("player_n", { seat }))));
  $("votes").textContent = s.votes.map((v) => v.counts
    ? Object.entries(v.counts).map(([seat, n]) => seat + ": " + n).join(", ")
    : T("lift_line", { count: v.lift })).join(" · ");
  $("out").textContent = s.out.length ? T("out_line", { seats: s.out }) : "";
}

loadTexts().then(() => {
  window.setInterval(tick, 250);
  liveChannel("/api/table/ws", render, (up) => {
    $("conn").textContent = up ? "" : T("reconnecting");
    if (!up) { base = null; tick(); }
  });
});
