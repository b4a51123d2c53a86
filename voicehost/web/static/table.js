"use strict";
const $ = (id) => document.getElementById(id);
let base = null;

function tick() {
  if (!base || !base.floor) { $("clock").textContent = ""; return; }
  const elapsed = base.paused ? 0 : (Date.now() - base.at) / 1000;
  $("clock").textContent = formatClock(base.floor.remaining - elapsed);
}

function render(s) {
  const when = s.over ? "" : (s.is_night ? "" : "День " + s.day + " · ");
  $("phase").textContent = when + s.phase + (s.paused ? " · пауза" : "");
  base = { floor: s.floor, paused: s.paused, at: Date.now() };
  tick();
  $("speaker").textContent = s.floor ? "Игрок " + s.floor.seat + " — " + s.floor.kind : "";
  clear($("nominations"));
  s.nominations.forEach((seat) => $("nominations").appendChild(item("Игрок " + seat)));
  $("votes").textContent = s.votes.map((v) => v.counts
    ? Object.entries(v.counts).map(([seat, n]) => seat + ": " + n).join(", ")
    : "за подъём всех: " + v.lift).join(" · ");
  $("out").textContent = s.out.length ? "Выбыли: " + s.out.join(", ") : "";
}

window.setInterval(tick, 250);
liveChannel("/api/table/ws", render, (up) => { $("conn").textContent = up ? "" : "нет связи, переподключаюсь…"; });
