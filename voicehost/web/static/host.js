"use strict";
const $ = (id) => document.getElementById(id);
let state = null;
let csrf = "";
let lastLine = null;
let clockBase = null;
let announced = new Set();
let tallyPrompted = "";
let resumeChannel = null;
const HOST_ONLY = ["controls", "setup", "city-setup", "candidates", "votes", "lift", "night", "best-move",
  "best-player-form", "worst-player-form", "reveal", "devices", "answers-dismiss", "names"];
// The form the game needs now, in order: where focus goes when the focused control disappears.
const NEEDED = ["votes-fields", "votes-form", "lift-count", "shot-seat", "don-seat", "sheriff-seat", "action-seat",
  "candidates-fields", "bm1", "role-don", "city-deal", "best-player", "answers-dismiss", "pause", "resume", "undo"];

async function post(path, body) {
  $("error").textContent = "";
  let response;
  try {
    response = await signedFetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body),
    });
  } catch (e) {
    $("error").textContent = T("no_link");
    return null;
  }
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  if (response.status === 401) { showUnpaired(); }
  if (!response.ok) {
    $("error").textContent = data.error || T("bad_input");
    if (data.stopped && $("stopped").hidden) showStopped(data.error);  // the state brings the full line
    return null;
  }
  render(data.state || data);
  return data;
}
const input = (event) => post("/api/input", event);

/* The journal is not written any more: the game has stopped, and the page says so loudly. */
function showStopped(text) {
  if (!text) { $("stopped").hidden = true; return; }
  $("stopped").hidden = false;
  if ($("stopped-text").textContent !== text) $("stopped-text").textContent = text;
}

/* A seat as the page names it: the number, with the name the host entered. */
function seatName(seat) {
  const found = state && state.seats.find((x) => x.seat === Number(seat));
  return found && found.name ? found.name : "";
}
function playerLabel(seat) {
  const name = seatName(seat);
  return name ? T("player_named", { seat, name }) : T("player_n", { seat });
}

function seatNumbers(s) { return s.seats.map((x) => x.seat); }

function fillSeats(select, seats, extra) {
  const options = (extra || []).concat(seats.map((s) => [String(s), playerLabel(s)]));
  const key = JSON.stringify(options);
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const current = select.value;
  clear(select);
  for (const [value, label] of options) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  }
  if ([...select.options].some((o) => o.value === current)) select.value = current;
}

function phaseLine(s) {
  const parts = [s.phase];
  if (s.phase_id !== "setup" && s.phase_id !== "game_over") {
    parts.unshift(s.is_night ? T("night_n", { night: s.night }) : T("day_n", { day: s.day }));
  }
  if (s.floor) parts.push(T("floor_line", { seat: s.floor.seat, kind: s.floor.kind }));
  if (s.paused) parts.push(T("paused"));
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
      const alive = document.createElement("td");
      const fouls = document.createElement("td");
      const count = document.createElement("span");
      const plus = document.createElement("button");
      plus.type = "button";
      plus.textContent = "+";
      plus.className = "host-only";
      plus.setAttribute("aria-label", T("foul_for", { seat: seat.seat }));
      plus.addEventListener("click", () => input({ type: "foul", seat: seat.seat }));
      const minus = document.createElement("button");
      minus.type = "button";
      minus.className = "secondary host-only";
      minus.textContent = "−";
      minus.setAttribute("aria-label", T("unfoul_for", { seat: seat.seat }));
      minus.addEventListener("click", () => input({ type: "unfoul", seat: seat.seat }));
      fouls.append(count, " ", plus, " ", minus);
      const role = document.createElement("td");
      row.append(head, alive, fouls, role);
      body.appendChild(row);
    }
  }
  const lastWord = s.floor && s.floor.kind_id === "last_word" ? s.floor.seat : null;
  s.seats.forEach((seat, i) => {
    const [head, alive, fouls, role] = body.children[i].children;
    head.className = seat.alive ? "" : "out";
    head.textContent = seat.name ? T("named_seat", { seat: seat.seat, name: seat.name }) : String(seat.seat);
    alive.textContent = seat.alive ? T("yes") : T("no");
    fouls.firstChild.textContent = seat.fouls + (seat.silenced ? T("silenced") : "");
    const canFoul = seat.alive || seat.seat === lastWord;
    fouls.children[1].disabled = !canFoul;
    fouls.children[2].disabled = !canFoul || seat.fouls === 0;
    role.hidden = !s.reveal_roles;
    role.textContent = seat.role ? T("role_" + seat.role) : "";
  });
  $("role-head").hidden = !s.reveal_roles;
  $("reveal").setAttribute("aria-pressed", String(s.reveal_roles));
  $("reveal").textContent = s.reveal_roles ? T("roles_hide") : T("roles_show");
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
      label.textContent = T("vote_for", { seat });
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
  if (tallyPrompted !== key) {
    tallyPrompted = key;
    const first = s.candidates[0];
    say(s.candidates.length > 1 ? T("tally_prompt", { seat: first })
      : T("tally_prompt_last", { seat: first, count: s.voters }));
  }
}

function updateRemainder() {
  if (!state || !state.candidates.length) return;
  let given = 0;
  for (const field of $("votes-fields").querySelectorAll("input")) given += Number(field.value || 0);
  const left = state.voters - given;
  const last = state.candidates[state.candidates.length - 1];
  const text = left >= 0 ? T("remainder", { seat: last, count: left }) : T("remainder_over");
  if ($("remainder").textContent !== text) $("remainder").textContent = text;
  $("votes-form").querySelector("button").disabled = left < 0;
}

function renderCandidates(s) {
  const fields = $("candidates-fields");
  const key = JSON.stringify([s.day, s.alive.map(playerLabel)]);
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
    label.textContent = playerLabel(seat);
    fields.append(box, label);
  }
}

function parseDeal(text) {
  const roles = {};
  let players = 10;
  const named = [];
  for (const token of text.split(/[\s,]+/).filter(Boolean)) {
    const match = token.match(/^([a-z_]+)=(\d{1,2})$/);
    if (!match) throw new Error(T("deal_token", { word: token }));
    if (match[1] === "players") players = Number(match[2]); else named.push([match[2], match[1]]);
  }
  for (let seat = 1; seat <= players; seat++) roles[seat] = "citizen";
  for (const [seat, role] of named) roles[seat] = role;
  return roles;
}

function renderNight(s) {
  const everyone = seatNumbers(s);
  $("shot-form").hidden = !(s.phase_id === "hunt" && !s.shot_entered);
  fillSeats($("shot-seat"), s.alive, [["miss", T("miss")]]);
  $("don-form").hidden = !(s.phase_id === "don_check" && s.don_alive);
  $("sheriff-form").hidden = !(s.phase_id === "sheriff_check" && s.sheriff_alive);
  fillSeats($("don-seat"), everyone);
  fillSeats($("sheriff-seat"), everyone);
  const action = s.window_action;
  $("action-form").hidden = !(action && action.can_act);
  if (action) {
    $("action-label").textContent = action.label;
    fillSeats($("action-seat"), s.alive, [["none", T("nobody")]]);
  }
}

/* The night's private answers stay pinned until the host dismisses them; each
   new one is announced assertively, never in the public live region. */
function renderAnswers(s, first) {
  const items = s.answers.items;
  $("answers").hidden = items.length === 0;
  renderList($("answers-list"), items);
  for (const text of items) {
    const key = s.answers.night + ":" + text;
    if (announced.has(key)) continue;
    announced.add(key);
    if (!first) $("answer-live").textContent = T("answer_announce", { text });
  }
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
  const key = JSON.stringify([s.suggestions, s.readonly]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  clear(list);
  if (!s.suggestions.length) list.appendChild(item(T("none")));
  for (const hint of s.suggestions) {
    const foul = hint.suggest === "foul";
    const li = item(T("suggest_line", { seat: hint.seat, word: hint.word, what: T(foul ? "suggest_foul" : "suggest_dq") }));
    if (!s.readonly) {
      const give = document.createElement("button");
      give.type = "button";
      give.textContent = T(foul ? "give_foul" : "give_dq");
      give.addEventListener("click", () => input({ type: foul ? "foul" : "disqualify", seat: hint.seat, suggestion: hint.id }));
      const dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.className = "secondary";
      dismiss.textContent = T("dismiss");
      dismiss.addEventListener("click", () => post("/api/suggestions/" + hint.id + "/dismiss", {}));
      li.append(give, " ", dismiss);
    }
    list.appendChild(li);
  }
}

function renderDevices(s) {
  const list = $("devices-list");
  const key = JSON.stringify(s.devices);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  clear(list);
  for (const device of s.devices) {
    const li = item(T("device_line", { id: device.id, kind: T("device_" + device.kind), when: device.at })
      + (device.current ? T("device_this") : "") + " ");
    if (!device.current) {
      const revoke = document.createElement("button");
      revoke.type = "button";
      revoke.className = "secondary";
      revoke.textContent = T("revoke");
      revoke.setAttribute("aria-label", T("revoke") + ": " + T("device_line", { id: device.id, kind: T("device_" + device.kind), when: device.at }));
      revoke.addEventListener("click", async () => {
        const data = await post("/api/devices/" + device.id + "/revoke", {});
        if (data && data.message) $("notice").textContent = data.message;
      });
      li.appendChild(revoke);
    }
    list.appendChild(li);
  }
}

/* Every public line of an update goes to the polite log, not only the newest. */
function say(text) {
  const line = document.createElement("p");
  line.textContent = text;
  $("status").appendChild(line);
  while ($("status").children.length > 8) $("status").removeChild($("status").firstChild);
}

function announce(s) {
  const lines = s.log.filter((entry) => !entry.private);
  if (lastLine !== null) for (const entry of lines) if (entry.n > lastLine) say(entry.text);
  const newest = s.log.length ? s.log[s.log.length - 1].n : 0;
  lastLine = Math.max(lastLine || 0, newest);
}

function visible(node) {
  return node && node.isConnected && node.offsetParent !== null && !node.disabled && !node.closest("[hidden]");
}

function neededControl() {
  for (const id of NEEDED) {
    const node = $(id);
    const target = node && (node.matches("input, select, button") ? node : node.querySelector("input, select, button"));
    if (target && visible(target)) return target;
  }
  return null;
}

/* When the focused control disappears, focus goes to the form the game needs now
   (not to <body>); while focus still sits where we put it, a form that becomes
   needed later takes it over. Focus the host moved stays where the host put it. */
let placedFocus = null;
function keepFocus() {
  const active = document.activeElement;
  if (!$("unpaired").hidden) { if (active !== $("repair-pin")) $("repair-pin").focus(); return; }
  const ours = active === placedFocus;
  if (active && active !== document.body && visible(active) && !ours) return;
  const target = neededControl();
  if (target && target !== active) { target.focus(); placedFocus = target; }
}

function render(s) {
  if (state && s.epoch !== state.epoch) lastLine = null;
  const first = state === null;
  state = s;
  csrf = s.csrf;
  renderPending(s, $("pending"));
  document.body.classList.toggle("readonly", s.readonly);
  $("readonly").hidden = !s.readonly;
  $("phase").textContent = phaseLine(s);
  clockBase = { floor: s.floor, paused: s.paused, at: Date.now() };
  tickClock();
  $("setup").hidden = s.phase_id !== "setup" || s.game_kind === "city";
  $("city-setup").hidden = s.phase_id !== "setup" || s.game_kind !== "city";
  $("candidates").hidden = s.phase_id !== "candidates";
  if (!$("candidates").hidden) renderCandidates(s);
  $("votes").hidden = s.phase_id !== "tally";
  if (!$("votes").hidden) { announce(s); renderVotes(s); }
  $("lift").hidden = s.phase_id !== "lift_vote";
  $("lift-who").textContent = s.tied.length ? T("lift_who", { seats: s.tied, count: s.voters }) : "";
  $("lift-count").max = String(s.voters);
  $("night").hidden = !["hunt", "don_check", "sheriff_check", "night_action"].includes(s.phase_id);
  renderNight(s);
  renderAnswers(s, first);
  $("best-move").hidden = !s.best_move_open;
  const others = seatNumbers(s).filter((n) => !s.floor || n !== s.floor.seat);
  ["bm1", "bm2", "bm3"].forEach((id) => fillSeats($(id), others));
  ["role-don", "role-mafia1", "role-mafia2", "role-sheriff"].forEach((id, i) => {
    const fresh = !$(id).dataset.key;
    fillSeats($(id), seatNumbers(s));
    if (fresh) $(id).value = String([4, 2, 7, 6][i]);
  });
  $("end").hidden = !s.over;
  $("winner").textContent = s.winner || "";
  fillSeats($("best-player"), seatNumbers(s));
  fillSeats($("name-seat"), seatNumbers(s));
  showStopped(s.failure);
  $("journal-notice").hidden = !s.journal_notice || !!s.failure;   // the journal written anew: the game goes on
  if (s.journal_notice && $("journal-notice").textContent !== s.journal_notice) {
    $("journal-notice").textContent = s.journal_notice;
  }
  fillSeats($("worst-player"), seatNumbers(s));
  $("points").textContent = Object.keys(s.points).length
    ? T("points", { text: Object.entries(s.points).map(([seat, p]) => seat + ": " + p).join(", ") }) : "";
  $("pause").disabled = s.paused || s.over;
  $("resume").disabled = !s.paused;
  $("next").disabled = !s.floor;
  $("undo").disabled = !s.last_input;
  $("undo").textContent = s.last_input ? T("undo_label", { what: s.last_input.text }) : T("undo_nothing_label");
  renderSeats(s);
  renderList($("nominations"), s.nominations.map(playerLabel));
  renderSuggestions(s);
  renderDevices(s);
  renderList($("log"), s.log.slice().reverse().map((e) => (e.private ? T("private_mark") : "") + e.text));
  announce(s);
  keepFocus();
}

function seatValue(id) { return Number($(id).value); }

function setOnline(up) {
  $("conn").textContent = up ? T("connected") : T("reconnecting");
  $("board").inert = !up;
  $("board").classList.toggle("stale", !up);
  if (!up) { clockBase = null; tickClock(); }
}

function showUnpaired(resume) {
  if (resume) resumeChannel = resume;
  setOnline(false);
  $("conn").textContent = T("unpaired");
  $("answers").hidden = true;
  $("unpaired").hidden = false;
  $("repair-pin").focus();
}

function submitted(id, handler) {
  $(id).addEventListener("submit", (event) => { event.preventDefault(); handler(); });
}

function wire() {
  $("pause").addEventListener("click", () => input({ type: "pause" }));
  $("resume").addEventListener("click", () => input({ type: "resume" }));
  $("next").addEventListener("click", () => input({ type: "next" }));
  $("undo").addEventListener("click", async () => {
    const data = await post("/api/undo", { n: state && state.last_input ? state.last_input.n : null });
    if (data && data.message) $("notice").textContent = data.message;
  });
  $("reveal").addEventListener("click", () => post("/api/reveal", { show: !(state && state.reveal_roles) }));
  $("answers-dismiss").addEventListener("click", () => post("/api/answers/dismiss", {}));
  $("judge").addEventListener("click", async () => {
    const data = await post("/api/devices/judge", {});
    if (data && data.judge_link) $("judge-link").textContent = T("judge_link", { url: data.judge_link });
  });
  submitted("setup-form", () => {
    const ids = ["role-don", "role-mafia1", "role-mafia2", "role-sheriff"];
    const picked = ids.map((id) => $(id).value);
    if (new Set(picked).size !== 4) { $("error").textContent = T("deal_same_seat"); return; }
    const roles = {};
    for (const seat of seatNumbers(state)) roles[seat] = "citizen";
    ids.forEach((id) => { roles[$(id).value] = $(id).dataset.role; });
    input({ type: "setup", roles });
  });
  submitted("city-setup-form", () => {
    try { input({ type: "setup", roles: parseDeal($("city-deal").value) }); }
    catch (e) { $("error").textContent = e.message; }
  });
  submitted("candidates-form", () => {
    const seats = [...$("candidates-fields").querySelectorAll("input:checked")].map((box) => Number(box.value));
    input({ type: "candidates", seats });
  });
  submitted("action-form", () => {
    const value = $("action-seat").value;
    input({ type: state.window_action.type, seat: value === "none" ? null : Number(value) });
  });
  submitted("votes-form", () => {
    const counts = {};
    for (const field of $("votes-fields").querySelectorAll("input")) counts[field.dataset.seat] = Number(field.value || 0);
    if (!Object.keys(counts).length) counts[state.candidates[0]] = state.voters;
    input({ type: "votes", counts });
  });
  submitted("lift-form", () => input({ type: "lift_votes", count: Number($("lift-count").value) }));
  submitted("shot-form", () => {
    const value = $("shot-seat").value;
    input({ type: "shot", seat: value === "miss" ? null : Number(value) });
  });
  submitted("don-form", () => input({ type: "don_check", seat: seatValue("don-seat") }));
  submitted("sheriff-form", () => input({ type: "sheriff_check", seat: seatValue("sheriff-seat") }));
  submitted("best-move-form", () => input({ type: "best_move", seats: ["bm1", "bm2", "bm3"].map(seatValue) }));
  submitted("best-player-form", () => input({ type: "best_player", seat: seatValue("best-player") }));
  submitted("worst-player-form", () => input({ type: "worst_player", seat: seatValue("worst-player") }));
  submitted("names-form", async () => {
    const names = {};
    names[$("name-seat").value] = $("name-text").value.trim();
    if (await input({ type: "names", names })) $("name-text").value = "";
  });
  submitted("repair-form", async () => {
    $("error").textContent = "";
    try {
      const paired = await pairWithPin($("repair-pin").value, (line) => { $("error").textContent = line; });
      if (!paired.ok) { $("error").textContent = paired.error; return; }
    } catch (e) { $("error").textContent = T("no_link"); return; }
    $("error").textContent = "";
    $("unpaired").hidden = true;
    $("repair-pin").value = "";
    state = null;
    lastLine = null;
    if (resumeChannel) { const again = resumeChannel; resumeChannel = null; again(); }
  });
  HOST_ONLY.forEach((id) => $(id).classList.add("host-only"));
  window.setInterval(tickClock, 250);
  liveChannel("/api/ws", render, setOnline, showUnpaired);
}

loadTexts().then(wire);
