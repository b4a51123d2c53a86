"use strict";
const $ = (id) => document.getElementById(id);
const ROLE_NAMES = { citizen: "мирный", sheriff: "шериф", mafia: "мафия", don: "дон" };
let state = null;
let csrf = "";
let shownLog = -1;
let clockBase = null;

async function post(path, body) {
  $("error").textContent = "";
  try {
    const response = await fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
    const data = await response.json();
    if (!response.ok) {
      $("error").textContent = data.error || "Не принято";
      return null;
    }
    render(data.state || data);
    return data;
  } catch (e) {
    $("error").textContent = "Нет связи с voicehost: действие не записано";
    return null;
  }
}
const input = (event) => post("/api/input", event);

function fillSeats(select, seats, extra) {
  const key = JSON.stringify([seats, extra || []]);
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const current = select.value;
  clear(select);
  for (const [value, label] of (extra || []).concat(seats.map((s) => [String(s), "Игрок " + s]))) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  }
  if ([...select.options].some((o) => o.value === current)) select.value = current;
}

function phaseLine(s) {
  const parts = [s.phase];
  if (s.phase_id !== "setup" && s.phase_id !== "game_over") parts.unshift(s.is_night ? "Ночь " + s.night : "День " + s.day);
  if (s.floor) parts.push("игрок " + s.floor.seat + " — " + s.floor.kind);
  if (s.paused) parts.push("пауза");
  return parts.join(" · ");
}

function tickClock() {
  if (!clockBase || !clockBase.floor) { $("clock").textContent = ""; return; }
  const elapsed = clockBase.paused ? 0 : (Date.now() - clockBase.at) / 1000;
  $("clock").textContent = formatClock(clockBase.floor.remaining - elapsed);
}

function renderSeats(s) {
  const body = $("seats");
  if (body.children.length !== s.seats.length) {
    clear(body);
    for (const seat of s.seats) {
      const row = document.createElement("tr");
      const head = document.createElement("th");
      head.scope = "row";
      head.textContent = seat.seat;
      const alive = document.createElement("td");
      const fouls = document.createElement("td");
      const count = document.createElement("span");
      const plus = document.createElement("button");
      plus.type = "button";
      plus.textContent = "+";
      plus.setAttribute("aria-label", "Фол игроку " + seat.seat);
      plus.addEventListener("click", () => input({ type: "foul", seat: seat.seat }));
      const minus = document.createElement("button");
      minus.type = "button";
      minus.className = "secondary";
      minus.textContent = "−";
      minus.setAttribute("aria-label", "Снять фол с игрока " + seat.seat);
      minus.addEventListener("click", () => input({ type: "unfoul", seat: seat.seat }));
      fouls.append(count, " ", plus, " ", minus);
      const role = document.createElement("td");
      row.append(head, alive, fouls, role);
      body.appendChild(row);
    }
  }
  const lastWord = s.floor && s.floor.kind === "последнее слово" ? s.floor.seat : null;
  s.seats.forEach((seat, i) => {
    const [head, alive, fouls, role] = body.children[i].children;
    head.className = seat.alive ? "" : "out";
    alive.textContent = seat.alive ? "да" : "нет";
    fouls.firstChild.textContent = seat.fouls + (seat.silenced ? " (молчит)" : "");
    const canFoul = seat.alive || seat.seat === lastWord;
    fouls.children[1].disabled = !canFoul;
    fouls.children[2].disabled = !canFoul || seat.fouls === 0;
    role.hidden = !s.reveal_roles;
    role.textContent = seat.role ? ROLE_NAMES[seat.role] : "";
  });
  $("role-head").hidden = !s.reveal_roles;
  $("reveal").setAttribute("aria-pressed", String(s.reveal_roles));
  $("reveal").textContent = s.reveal_roles ? "Скрыть роли" : "Показать роли";
}

function renderVotes(s) {
  const fields = $("votes-fields");
  const key = JSON.stringify([s.day, s.candidates, s.votes.length]);
  if (fields.dataset.key !== key) {
    fields.dataset.key = key;
    clear(fields);
    s.candidates.slice(0, -1).forEach((seat) => {
      const label = document.createElement("label");
      label.htmlFor = "vote-" + seat;
      label.textContent = "За то, чтобы ушёл игрок " + seat;
      const field = document.createElement("input");
      field.type = "number";
      field.min = "0";
      field.max = String(s.voters);
      field.value = "0";
      field.id = "vote-" + seat;
      field.dataset.seat = seat;
      field.addEventListener("input", updateRemainder);
      fields.append(label, field, document.createElement("br"));
    });
  }
  $("voters").textContent = s.voters;
  updateRemainder();
}

function updateRemainder() {
  if (!state || !state.candidates.length) return;
  let given = 0;
  for (const field of $("votes-fields").querySelectorAll("input")) given += Number(field.value || 0);
  const left = state.voters - given;
  const last = state.candidates[state.candidates.length - 1];
  $("remainder").textContent = left >= 0 ? "игрок " + last + ": " + left : "голосов больше, чем игроков";
  $("votes-form").querySelector("button").disabled = left < 0;
}

function renderCandidates(s) {
  const fields = $("candidates-fields");
  const key = JSON.stringify([s.day, s.alive]);
  if (fields.dataset.key === key) return;
  fields.dataset.key = key;
  clear(fields);
  for (const seat of s.alive) {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "cand-" + seat;
    box.value = String(seat);
    const label = document.createElement("label");
    label.htmlFor = box.id;
    label.textContent = "Игрок " + seat;
    fields.append(box, label);
  }
}

function parseDeal(text) {
  const roles = {};
  let players = 10;
  const named = [];
  for (const token of text.split(/[\s,]+/).filter(Boolean)) {
    const match = token.match(/^([a-z_]+)=(\d{1,2})$/);
    if (!match) throw new Error("«" + token + "» — нужно РОЛЬ=МЕСТО, например mafia=2");
    if (match[1] === "players") players = Number(match[2]); else named.push([match[2], match[1]]);
  }
  for (let seat = 1; seat <= players; seat++) roles[seat] = "citizen";
  for (const [seat, role] of named) roles[seat] = role;
  return roles;
}

function renderNight(s) {
  const alive = s.alive;
  $("shot-form").hidden = !(s.phase_id === "hunt" && !s.shot_entered);
  fillSeats($("shot-seat"), alive, [["miss", "Промах"]]);
  $("don-form").hidden = !(s.phase_id === "don_check" && s.don_alive);
  $("sheriff-form").hidden = !(s.phase_id === "sheriff_check" && s.sheriff_alive);
  const everyone = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  fillSeats($("don-seat"), everyone);
  fillSeats($("sheriff-seat"), everyone);
  const answers = s.checks.map((c) => (c.role === "don" ? "Дон: игрок " + c.seat + (c.result === "sheriff" ? " — Шериф" : " — не Шериф")
    : c.role === "sheriff" ? "Шериф: игрок " + c.seat + (c.result === "black" ? " — чёрный" : " — красный")
    : "Комиссар: игрок " + c.seat + " — " + ({ mafia: "мафия", maniac: "маньяк" }[c.result] || "мирный")));
  const action = s.window_action;
  $("action-form").hidden = !(action && action.can_act);
  if (action) {
    $("action-label").textContent = action.label;
    fillSeats($("action-seat"), s.alive, [["none", "Никого"]]);
  }
  $("answer").hidden = answers.length === 0;
  $("answer").textContent = answers.length ? "Только для вас. " + answers.join(". ") : "";
}

function renderList(node, texts) {
  const key = JSON.stringify(texts);
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  clear(node);
  texts.forEach((text) => node.appendChild(item(text)));
}

function renderSuggestions(s) {
  const list = $("suggestions");
  const key = JSON.stringify(s.suggestions);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  clear(list);
  if (!s.suggestions.length) list.appendChild(item("Нет"));
  for (const hint of s.suggestions) {
    const li = item("Игрок " + hint.seat + ": «" + hint.word + "» — " + (hint.suggest === "foul" ? "фол" : "дисквалификация") + " ");
    const give = document.createElement("button");
    give.type = "button";
    give.textContent = hint.suggest === "foul" ? "Дать фол" : "Дисквалифицировать";
    give.addEventListener("click", () => input({ type: hint.suggest === "foul" ? "foul" : "disqualify", seat: hint.seat, suggestion: hint.id }));
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "secondary";
    dismiss.textContent = "Отклонить";
    dismiss.addEventListener("click", () => post("/api/suggestions/" + hint.id + "/dismiss", {}));
    li.append(give, " ", dismiss);
    list.appendChild(li);
  }
}

function announce(s) {
  const publicLog = s.log.filter((entry) => !entry.private);
  if (shownLog >= 0 && publicLog.length && publicLog[publicLog.length - 1].t >= shownLog) {
    const latest = publicLog[publicLog.length - 1];
    if ($("status").textContent !== latest.text) $("status").textContent = latest.text;
  }
  shownLog = publicLog.length ? publicLog[publicLog.length - 1].t : 0;
}

function render(s) {
  state = s;
  csrf = s.csrf;
  $("phase").textContent = phaseLine(s);
  clockBase = { floor: s.floor, paused: s.paused, at: Date.now() };
  tickClock();
  $("setup").hidden = s.phase_id !== "setup" || s.game_kind === "city";
  $("city-setup").hidden = s.phase_id !== "setup" || s.game_kind !== "city";
  $("candidates").hidden = s.phase_id !== "candidates";
  if (!$("candidates").hidden) renderCandidates(s);
  $("votes").hidden = s.phase_id !== "tally";
  if (!$("votes").hidden) renderVotes(s);
  $("lift").hidden = s.phase_id !== "lift_vote";
  $("lift-who").textContent = s.tied.length ? "Голосуемые: " + s.tied.join(", ") + ". Голосуют: " + s.voters : "";
  $("lift-count").max = String(s.voters);
  $("night").hidden = !["hunt", "don_check", "sheriff_check", "night_action"].includes(s.phase_id);
  renderNight(s);
  $("best-move").hidden = !s.best_move_open;
  const others = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((n) => !s.floor || n !== s.floor.seat);
  ["bm1", "bm2", "bm3"].forEach((id) => fillSeats($(id), others));
  $("end").hidden = !s.over;
  $("winner").textContent = s.winner || "";
  fillSeats($("best-player"), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  fillSeats($("worst-player"), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  $("points").textContent = Object.keys(s.points).length
    ? "Баллы: " + Object.entries(s.points).map(([seat, p]) => seat + ": " + p).join(", ") : "";
  $("pause").disabled = s.paused || s.over;
  $("resume").disabled = !s.paused;
  $("next").disabled = !s.floor;
  renderSeats(s);
  renderList($("nominations"), s.nominations.map((seat) => "Игрок " + seat));
  renderSuggestions(s);
  renderList($("log"), s.log.slice().reverse().map((e) => (e.private ? "(только вам) " : "") + e.text));
  announce(s);
}

function seatValue(id) { return Number($(id).value); }

function wire() {
  $("pause").addEventListener("click", () => input({ type: "pause" }));
  $("resume").addEventListener("click", () => input({ type: "resume" }));
  $("next").addEventListener("click", () => input({ type: "next" }));
  $("undo").addEventListener("click", () => post("/api/undo", {}));
  $("reveal").addEventListener("click", () => post("/api/reveal", { show: !(state && state.reveal_roles) }));
  const everyone = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  ["role-don", "role-mafia1", "role-mafia2", "role-sheriff"].forEach((id, i) => {
    fillSeats($(id), everyone);
    $(id).value = String([4, 2, 7, 6][i]);
  });
  $("setup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const roles = {};
    for (let seat = 1; seat <= 10; seat++) roles[seat] = "citizen";
    const picked = ["role-don", "role-mafia1", "role-mafia2", "role-sheriff"].map((id) => $(id).value);
    if (new Set(picked).size !== 4) { $("error").textContent = "Дон, мафия и шериф должны сидеть на разных местах"; return; }
    ["role-don", "role-mafia1", "role-mafia2", "role-sheriff"].forEach((id) => { roles[$(id).value] = $(id).dataset.role; });
    input({ type: "setup", roles });
  });
  $("city-setup-form").addEventListener("submit", (event) => {
    event.preventDefault();
    try { input({ type: "setup", roles: parseDeal($("city-deal").value) }); }
    catch (e) { $("error").textContent = e.message; }
  });
  $("candidates-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seats = [...$("candidates-fields").querySelectorAll("input:checked")].map((box) => Number(box.value));
    input({ type: "candidates", seats });
  });
  $("action-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("action-seat").value;
    input({ type: state.window_action.type, seat: value === "none" ? null : Number(value) });
  });
  $("votes-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const counts = {};
    for (const field of $("votes-fields").querySelectorAll("input")) counts[field.dataset.seat] = Number(field.value || 0);
    if (!Object.keys(counts).length) counts[state.candidates[0]] = state.voters;
    input({ type: "votes", counts });
  });
  $("lift-form").addEventListener("submit", (event) => {
    event.preventDefault();
    input({ type: "lift_votes", count: Number($("lift-count").value) });
  });
  $("shot-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("shot-seat").value;
    input({ type: "shot", seat: value === "miss" ? null : Number(value) });
  });
  $("don-form").addEventListener("submit", (event) => { event.preventDefault(); input({ type: "don_check", seat: seatValue("don-seat") }); });
  $("sheriff-form").addEventListener("submit", (event) => { event.preventDefault(); input({ type: "sheriff_check", seat: seatValue("sheriff-seat") }); });
  $("best-move-form").addEventListener("submit", (event) => {
    event.preventDefault();
    input({ type: "best_move", seats: ["bm1", "bm2", "bm3"].map(seatValue) });
  });
  $("best-player-form").addEventListener("submit", (event) => { event.preventDefault(); input({ type: "best_player", seat: seatValue("best-player") }); });
  $("worst-player-form").addEventListener("submit", (event) => { event.preventDefault(); input({ type: "worst_player", seat: seatValue("worst-player") }); });
  window.setInterval(tickClock, 250);
  liveChannel("/api/ws", render, (up) => { $("conn").textContent = up ? "на связи" : "нет связи, переподключаюсь…"; });
}

wire();
