"use strict";
/* The host's console: one screen per moment (deal, speeches, tally, night, end)
   above the seat board every seat action starts from. Screen-reader first:
   every public line goes to the polite log, every private answer and
   suggestion to the assertive one (queued, never overwritten), and after each
   input the focus goes to where the next input is, never to <body> and never
   to a control whose second press would change the game again. */
const $ = (id) => document.getElementById(id);
let state = null;
let csrf = "";
let lastLine = null;
let clockBase = null;
let tallyPrompted = "";
let resumeChannel = null;
let openSeat = null;        // the seat whose panel is open
let pendingConfirm = null;  // what the seat panel's confirm button does
let bestMove = [];          // seats picked from the board for the best move
let answersSaid = new Set();
let hintsSaid = new Set();
let wasOffline = false;
let moveFocus = false;      // an input was accepted: focus goes to the next input
let afterPanel = null;      // "close": the seat panel closes once its input is accepted
const HOST_ONLY = ["controls", "setup-form", "city-setup-form", "candidates-form", "votes-form", "lift-form",
  "shot-form", "don-form", "sheriff-form", "action-form", "best-move-form", "best-player-form",
  "worst-player-form", "reveal", "devices", "answers-dismiss", "names-form", "seat-actions"];
// The input the game needs now, in order. Never a control whose second press
// changes the game (pause, next, undo, a submit button): with none of these,
// the moment's own heading takes the focus.
const NEEDED = ["votes-confirm-text", "votes-fields", "lift-count", "shot-seat", "don-seat", "sheriff-seat",
  "action-seat", "candidates-fields", "bm1", "role-don", "city-deal", "best-player", "worst-player"];

async function post(path, body) {
  $("error").textContent = "";
  let response;
  try {
    response = await request(path, {
      method: "POST",
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
  const closing = afterPanel === "close";
  afterPanel = null;
  if (!response.ok) {
    $("error").textContent = data.error || T("bad_input");
    if (data.stopped && $("stopped").hidden) showStopped(data.error);  // the state brings the full line
    return null;
  }
  moveFocus = true;
  if (closing) openSeat = null;
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

function fillSeats(select, seats, extra, short) {
  const name = (s) => (seatName(s) ? s + " — " + seatName(s) : String(s));
  const options = (extra || []).concat(seats.map((s) => [String(s), short ? name(s) : playerLabel(s)]));
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
  select.dataset.seats = "1";
}
const PICK = () => [["", T("pick_seat")]];

/* A seat list takes a typed seat number: "3" picks seat 3, "1" then "0" within a
   second seat 10 (the browser's own type-ahead matched the options' words, "Игрок 3",
   never the number). */
let typedSeat = { list: null, digits: "", at: 0 };
document.addEventListener("keydown", (event) => {
  const list = event.target;
  if (!(list instanceof HTMLSelectElement) || !list.dataset.seats || !/^[0-9]$/.test(event.key)
    || event.altKey || event.ctrlKey || event.metaKey) return;
  const now = Date.now();
  const seat = (digits) => [...list.options].find((o) => o.value === digits);
  let digits = (typedSeat.list === list && now - typedSeat.at < 1000 ? typedSeat.digits : "") + event.key;
  if (!seat(digits)) digits = event.key;   // no such seat: this digit starts a new number
  typedSeat = { list, digits, at: now };
  const option = seat(digits);
  event.preventDefault();
  if (!option || option.value === list.value) return;
  list.value = option.value;
  list.dispatchEvent(new Event("input", { bubbles: true }));
  list.dispatchEvent(new Event("change", { bubbles: true }));
}, true);

function phaseLine(s) {
  const parts = [s.phase];
  if (s.phase_id !== "setup" && s.phase_id !== "game_over") {
    parts.unshift(s.is_night ? T("night_n", { night: s.night }) : T("day_n", { day: s.day }));
  }
  if (s.paused) parts.push(T("paused"));
  return parts.join(" · ");
}

function tickClock() {
  const text = clockBase && clockBase.floor
    ? formatClock(clockBase.floor.remaining - (clockBase.paused ? 0 : (Date.now() - clockBase.at) / 1000)) : "";
  if ($("clock").textContent !== text) $("clock").textContent = text;
  const tile = document.querySelector("#seats .speaking .time");
  if (tile && tile.textContent !== text) tile.textContent = text;
}

/* ---------------------------------------------------------------- the seat board */

function seatAbout(seat, s) {
  const parts = [];
  if (seat.out) parts.push(T("seat_out", { how: seat.out.how, when: seat.out.when }));
  else parts.push(T("seat_in"));
  parts.push(T("seat_fouls", { count: seat.fouls }) + (seat.silenced ? T("silenced") : ""));
  if (s.floor && s.floor.seat === seat.seat) parts.push(T("seat_speaking", { kind: s.floor.kind }));
  if (s.nominations.includes(seat.seat)) parts.push(T("seat_nominated"));
  if (seat.role) parts.push(T("role_" + seat.role));
  return parts.join(". ");
}

function renderSeats(s) {
  const list = $("seats");
  if (list.children.length !== s.seats.length) {
    clear(list);
    for (const seat of s.seats) {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "tile";
      button.id = "seat-" + seat.seat;
      button.setAttribute("aria-expanded", "false");
      button.setAttribute("aria-controls", "seat-panel");
      button.addEventListener("click", () => toggleSeat(seat.seat));
      li.appendChild(button);
      list.appendChild(li);
    }
  }
  s.seats.forEach((seat, i) => {
    const li = list.children[i];
    const button = li.firstChild;
    const speaking = !!(s.floor && s.floor.seat === seat.seat);
    const key = JSON.stringify([seat, speaking, s.nominations.includes(seat.seat), openSeat === seat.seat,
      s.floor && s.floor.kind]);
    if (button.dataset.key === key) return;
    button.dataset.key = key;
    const nominated = s.nominations.includes(seat.seat);
    li.className = [seat.out ? "gone" : "", speaking ? "speaking" : "", nominated ? "nominated" : ""].join(" ").trim();
    clear(button);
    const number = document.createElement("span");
    number.className = "num";
    number.textContent = String(seat.seat);
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = seat.name || "";
    const marks = document.createElement("span");
    marks.className = "marks";
    marks.setAttribute("aria-hidden", "true");
    marks.textContent = "●".repeat(Math.min(seat.fouls, 4)) + (seat.role ? " " + T("role_" + seat.role) : "");
    const status = document.createElement("span");
    status.className = "state";
    status.setAttribute("aria-hidden", "true");
    status.textContent = seat.out ? T("tile_out") : (nominated ? T("tile_nominated") : "");
    const time = document.createElement("span");
    time.className = "time";
    time.setAttribute("aria-hidden", "true");
    const spoken = document.createElement("span");
    spoken.className = "visually-hidden";
    spoken.textContent = (seat.name ? T("player_named", { seat: seat.seat, name: seat.name }) : T("player_n", { seat: seat.seat }))
      + ". " + seatAbout(seat, s);
    number.setAttribute("aria-hidden", "true");
    name.setAttribute("aria-hidden", "true");
    button.append(spoken, number, name, marks, status, time);
    button.setAttribute("aria-expanded", String(openSeat === seat.seat));
  });
  tickClock();
  $("reveal").setAttribute("aria-pressed", String(s.reveal_roles));
  $("reveal").textContent = s.reveal_roles ? T("roles_hide") : T("roles_show");
}

function toggleSeat(seat) {
  if (openSeat === seat) { closeSeat(); return; }
  openSeat = seat;
  pendingConfirm = null;
  render(state);
  $("seat-title").focus();
}

function closeSeat() {
  const was = openSeat;
  openSeat = null;
  pendingConfirm = null;
  render(state);
  if (was !== null) $("seat-" + was).focus();
}

/* The actions a seat has now: fouls always, the night's and the end's when they fit. */
function seatActions(seat, s) {
  const n = seat.seat;
  const actions = [];
  if (s.readonly) return actions;
  const lastWord = s.floor && s.floor.kind_id === "last_word" ? s.floor.seat : null;
  const canFoul = (seat.alive || n === lastWord) && !s.over;
  if (s.phase_id === "hunt" && !s.shot_entered && seat.alive) actions.push([T("act_shot", { seat: n }), { type: "shot", seat: n }]);
  if (s.phase_id === "don_check" && s.don_alive) actions.push([T("act_don", { seat: n }), { type: "don_check", seat: n }]);
  if (s.phase_id === "sheriff_check" && s.sheriff_alive) actions.push([T("act_sheriff", { seat: n }), { type: "sheriff_check", seat: n }]);
  const action = s.window_action;
  if (action && action.can_act && seat.alive) actions.push([T("act_window", { label: action.label, seat: n }), { type: action.type, seat: n }]);
  if (s.best_move_open && !(s.floor && s.floor.seat === n)) actions.push([T("act_best_move", { seat: n }), "best_move"]);
  if (s.can_nominate && seat.alive && !(s.nominations || []).includes(n)) {   // the microphone missed it
    actions.push([T("act_nominate", { seat: n, by: s.floor.seat }), { type: "nominate", seat: n }]);
  }
  if (canFoul) actions.push([T("foul_for", { seat: n }), { type: "foul", seat: n }]);
  if (canFoul && seat.fouls > 0) actions.push([T("unfoul_for", { seat: n }), { type: "unfoul", seat: n }, "secondary"]);
  if (s.over) {
    actions.push([T("act_best_player", { seat: n }), { type: "best_player", seat: n }]);
    actions.push([T("act_worst_player", { seat: n }), { type: "worst_player", seat: n }, "secondary"]);
  }
  if (seat.alive && !s.over && s.phase_id !== "setup") {
    actions.push([T("act_dq", { seat: n }), { type: "disqualify", seat: n }, "danger", T("confirm_dq", { seat: n })]);
    actions.push([T("act_leave", { seat: n }), { type: "leave_table", seat: n }, "danger", T("confirm_leave", { seat: n })]);
  }
  return actions;
}

function renderSeatPanel(s) {
  const panel = $("seat-panel");
  const seat = openSeat !== null && s.seats.find((x) => x.seat === openSeat);
  panel.hidden = !seat;
  if (!seat) return;
  $("seat-title").textContent = seat.name ? T("player_named", { seat: seat.seat, name: seat.name }) : T("player_n", { seat: seat.seat });
  $("seat-about").textContent = seatAbout(seat, s);
  const actions = seatActions(seat, s);
  const box = $("seat-actions");
  const key = JSON.stringify(actions.map((a) => a[0]));
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    clear(box);
    for (const [label, what, style, confirm] of actions) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      if (style) button.className = style;
      button.addEventListener("click", () => {
        if (what === "best_move") { pickBestMove(seat.seat); return; }
        if (confirm) { askSeatConfirm(confirm, label, what); return; }
        afterPanel = what.type === "foul" || what.type === "unfoul" ? null : "close";
        input(what);
      });
      box.appendChild(button);
    }
  }
  $("seat-confirm").hidden = !pendingConfirm;
  if (!$("name-text").dataset.seat || Number($("name-text").dataset.seat) !== seat.seat) {
    $("name-text").dataset.seat = String(seat.seat);
    $("name-text").value = seat.name || "";
  }
}

function askSeatConfirm(question, label, event) {
  pendingConfirm = event;
  $("seat-confirm-text").textContent = question;
  $("seat-confirm-yes").textContent = label;
  $("seat-confirm").hidden = false;
  $("seat-confirm-text").focus();
}

function pickBestMove(seat) {
  if (!bestMove.includes(seat)) bestMove = bestMove.concat([seat]).slice(-3);
  ["bm1", "bm2", "bm3"].forEach((id, i) => { if (bestMove[i] !== undefined) $(id).value = String(bestMove[i]); });
  $("notice").textContent = T("best_move_picked", { seats: bestMove });
  closeSeat();
  $("bm1").focus();
}

/* ---------------------------------------------------------------- the moments */

function momentOf(s) {
  if (s.phase_id === "setup") return s.game_kind === "city" ? "city-setup-form" : "setup-form";
  if (s.over) return "end";
  if (s.phase_id === "tally") return "votes-form";
  if (s.phase_id === "lift_vote") return "lift-form";
  if (s.phase_id === "candidates") return "candidates-form";
  if (s.phase_id === "hunt" && !s.shot_entered) return "shot-form";
  // A check entered closes its form: the pinned answer is what is left of the window.
  if (s.phase_id === "don_check" && s.don_alive && !s.checked.includes("don")) return "don-form";
  if (s.phase_id === "sheriff_check" && s.sheriff_alive && !s.checked.includes("sheriff")) return "sheriff-form";
  if (s.window_action && s.window_action.can_act) return "action-form";
  if (s.floor) return "speaker";
  return null;
}
const MOMENTS = ["setup-form", "city-setup-form", "speaker", "candidates-form", "votes-form", "lift-form",
  "shot-form", "don-form", "sheriff-form", "action-form", "end"];

function momentTitle(s, moment) {
  if (moment === "speaker" && s.floor) return T("floor_title", { who: playerLabel(s.floor.seat), kind: s.floor.kind });
  if (moment === "votes-form") return T("h_votes");
  if (moment === "end") return T("h_end");
  if (moment === "setup-form" || moment === "city-setup-form") return T("h_deal");
  return s.phase;
}

function renderMoment(s) {
  const moment = s.readonly ? (s.floor ? "speaker" : null) : momentOf(s);
  // A seat's panel open: it is the screen now; the moment comes back when it closes.
  document.body.classList.toggle("seat-open", openSeat !== null);
  MOMENTS.forEach((id) => { $(id).hidden = id !== moment; });
  $("best-move-form").hidden = !s.best_move_open || s.readonly;
  const title = momentTitle(s, moment);
  if ($("moment-title").textContent !== title) $("moment-title").textContent = title;
  let help = "";
  if (s.is_night && !moment) help = T("night_wait");
  if (s.paused) help = T("paused_help");
  if (s.best_move_open) help = T("best_move_help", { seat: s.floor ? s.floor.seat : "" });
  $("moment-help").textContent = help;
  if (moment === "candidates-form") renderCandidates(s);
  if (moment === "votes-form") renderVotes(s);
  else { $("votes-confirm").hidden = true; $("votes-submit").hidden = false; }
  $("lift-who").textContent = s.tied.length ? T("lift_who", { seats: s.tied, count: s.voters }) : "";
  $("lift-count").max = String(s.voters);
  renderNight(s);
  renderCaptions(s);
  const others = seatNumbers(s).filter((n) => !s.floor || n !== s.floor.seat);
  ["bm1", "bm2", "bm3"].forEach((id) => fillSeats($(id), others, [["", "—"]], true));
  if (!s.best_move_open) bestMove = [];
  ["role-don", "role-sheriff", "role-mafia1", "role-mafia2"].forEach((id) => fillSeats($(id), seatNumbers(s), PICK()));
  $("winner").textContent = s.winner && s.over ? s.winner : "";
  fillSeats($("best-player"), seatNumbers(s), PICK());
  fillSeats($("worst-player"), seatNumbers(s), PICK());
  $("points").textContent = Object.keys(s.points).length
    ? T("points", { text: Object.entries(s.points).map(([seat, p]) => (seatName(Number(seat)) || seat) + ": " + localNumber(p))
      .join(", ") }) : "";
}

/* The speaker's words; a nomination the table took is marked, as on the board (no bracketed "[выставлен …]"). */
function renderCaptions(s) {
  const box = $("host-captions");
  const items = s.captions ? s.captions.items : [];
  const key = JSON.stringify(items.map((i) => [i.text, !!i.nominated]));
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  clear(box);
  items.forEach((item, n) => {
    if (n) box.appendChild(document.createTextNode(" "));
    const part = document.createElement(item.nominated ? "mark" : "span");
    part.textContent = item.text;
    box.appendChild(part);
  });
}

function renderCandidates(s) {
  const fields = $("candidates-fields");
  const key = JSON.stringify([s.day, s.alive.map(playerLabel)]);
  if (fields.dataset.key === key) return;
  fields.dataset.key = key;
  clear(fields);
  for (const seat of s.alive) {
    const wrap = document.createElement("div");
    wrap.className = "check";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = "cand-" + seat;
    box.value = String(seat);
    const label = document.createElement("label");
    label.htmlFor = box.id;
    label.textContent = playerLabel(seat);
    wrap.append(box, label);
    fields.appendChild(wrap);
  }
}

/* The tally: a field for every candidate but the last, who gets the rest; an
   empty field is not a 0 until the host confirms it. */
function renderVotes(s) {
  const fields = $("votes-fields");
  const key = JSON.stringify([s.day, s.candidates, s.votes.length]);
  if (fields.dataset.key !== key) {
    fields.dataset.key = key;
    clear(fields);
    $("votes-confirm").hidden = true;
    s.candidates.slice(0, -1).forEach((seat) => {
      const wrap = document.createElement("div");
      wrap.className = "field vote";
      const label = document.createElement("label");
      label.htmlFor = "vote-" + seat;
      label.textContent = T("vote_for", { seat });
      const field = document.createElement("input");
      field.type = "number";
      field.inputMode = "numeric";
      field.min = "0";
      field.max = String(s.voters);
      field.id = "vote-" + seat;
      field.dataset.seat = seat;
      field.addEventListener("input", () => {
        $("votes-confirm").hidden = true;
        $("votes-submit").hidden = false;
        updateRemainder();
      });
      wrap.append(label, field);
      fields.append(wrap);
    });
  }
  const voters = T("voters_line", { count: s.voters });
  if ($("voters-line").textContent !== voters) $("voters-line").textContent = voters;
  updateRemainder();
  if (tallyPrompted !== key) {
    tallyPrompted = key;
    const first = s.candidates[0];
    say([{ text: s.candidates.length > 1 ? T("tally_prompt", { seat: first })
      : T("tally_prompt_last", { seat: first, count: s.voters }) }]);
  }
}

function tallyCounts() {
  const counts = {};
  const omitted = [];
  let given = 0;
  for (const field of $("votes-fields").querySelectorAll("input")) {
    const typed = field.value.trim();
    const value = typed === "" ? 0 : Number(typed);
    if (typed === "") omitted.push(Number(field.dataset.seat));
    counts[field.dataset.seat] = value;
    given += value;
  }
  const last = state.candidates[state.candidates.length - 1];
  const rest = state.voters - given;
  if (rest === 0) omitted.push(last);
  return { counts, omitted, rest, last };
}

function updateRemainder() {
  if (!state || !state.candidates.length) return;
  const { rest, last } = tallyCounts();
  const text = rest < 0 ? T("remainder_over") : T("remainder", { seat: last, count: rest });
  if ($("remainder").textContent !== text) $("remainder").textContent = text;
}

function submitVotes(confirmed) {
  const { counts, omitted, rest } = tallyCounts();
  if (rest < 0) { $("error").textContent = T("remainder_over"); $("votes-fields").querySelector("input").focus(); return; }
  const bad = Object.values(counts).some((v) => !Number.isInteger(v) || v < 0);
  if (bad) { $("error").textContent = T("votes_whole"); return; }
  if (omitted.length && !confirmed) {
    $("votes-confirm-text").textContent = T("votes_zero_confirm", { seats: omitted });
    $("votes-confirm").hidden = false;
    $("votes-submit").hidden = true;
    $("votes-confirm-text").focus();
    queueAssertive(T("votes_zero_confirm", { seats: omitted }));
    return;
  }
  $("votes-confirm").hidden = true;
  $("votes-submit").hidden = false;
  if (!Object.keys(counts).length) counts[state.candidates[0]] = state.voters;
  input({ type: "votes", counts });
}

function renderNight(s) {
  const everyone = seatNumbers(s);
  fillSeats($("shot-seat"), s.alive, [["", T("pick_seat")], ["miss", T("miss")]]);
  fillSeats($("don-seat"), everyone, PICK());
  fillSeats($("sheriff-seat"), everyone, PICK());
  const action = s.window_action;
  if (action) {
    if ($("action-label").textContent !== action.label) $("action-label").textContent = action.label;
    fillSeats($("action-seat"), s.alive, [["", T("pick_seat")], ["none", T("nobody")]]);
  }
}

/* ---------------------------------------------------------------- announcements */

/* The night's private answers stay pinned until the host dismisses them; each
   one is announced (queued, assertive, never in the public log). An answer
   taken back by an undo and entered again is announced again; after a lost
   link every pinned answer is announced again. */
function renderAnswers(s, again) {
  const items = s.answers.items;
  $("answers").hidden = items.length === 0 || !$("unpaired").hidden;
  // The end is its own screen: the night's answers stay readable there, no longer pinned over it.
  $("answers").classList.toggle("pinned", !s.over);
  renderList($("answers-list"), items);
  const now = new Set(items.map((text) => s.answers.night + ":" + text));
  for (const text of items) {
    const key = s.answers.night + ":" + text;
    if (answersSaid.has(key) && !again) continue;
    queueAssertive(T("answer_announce", { text }));
  }
  answersSaid = now;
}

const assertiveQueue = [];
let assertiveBusy = false;
/* One line at a time, a pause between them: a later one never overwrites an earlier one. */
function queueAssertive(text) {
  assertiveQueue.push(text);
  if (!assertiveBusy) nextAssertive();
}
function nextAssertive() {
  const text = assertiveQueue.shift();
  if (text === undefined) { assertiveBusy = false; return; }
  assertiveBusy = true;
  const line = document.createElement("p");
  line.textContent = text;
  $("answer-live").appendChild(line);
  while ($("answer-live").children.length > 12) $("answer-live").removeChild($("answer-live").firstChild);
  window.setTimeout(nextAssertive, 700);
}

function renderList(node, texts) {
  const key = JSON.stringify(texts);
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  clear(node);
  texts.forEach((text) => node.appendChild(item(text)));
}

function suggestionText(hint) {
  const foul = hint.suggest === "foul";
  return T("suggest_line", { seat: hint.seat, word: hint.word, what: T(foul ? "suggest_foul" : "suggest_dq") }).trim();
}

function renderSuggestions(s, again) {
  const list = $("suggestions");
  $("hints").hidden = !s.suggestions.length;
  const open = new Set(s.suggestions.map((h) => h.id));
  for (const hint of s.suggestions) {
    if (hintsSaid.has(hint.id) && !again) continue;
    queueAssertive(T("suggest_announce", { text: suggestionText(hint) }));
  }
  hintsSaid = open;
  const key = JSON.stringify([s.suggestions, s.readonly]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  clear(list);
  for (const hint of s.suggestions) {
    const foul = hint.suggest === "foul";
    const li = item(suggestionText(hint));
    if (!s.readonly) {
      const row = document.createElement("div");
      row.className = "row";
      const give = document.createElement("button");
      give.type = "button";
      give.textContent = T(foul ? "give_foul" : "give_dq", { seat: hint.seat });
      if (!foul) give.className = "danger";
      const event = { type: foul ? "foul" : "disqualify", seat: hint.seat, suggestion: hint.id };
      give.addEventListener("click", () => {
        if (foul) { input(event); return; }
        openSeat = hint.seat;
        render(state);
        askSeatConfirm(T("confirm_dq", { seat: hint.seat }), T("act_dq", { seat: hint.seat }), event);
      });
      const dismiss = document.createElement("button");
      dismiss.type = "button";
      dismiss.className = "secondary";
      dismiss.textContent = T("dismiss_for", { seat: hint.seat, word: hint.word });
      dismiss.addEventListener("click", () => post("/api/suggestions/" + hint.id + "/dismiss", {}));
      row.append(give, dismiss);
      li.append(row);
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

/* Every public line of an update goes to the polite log, not only the newest, and in
   one insertion (a block of lines): lines inserted one by one were spoken out of
   their order ("Голоса разделились" before the counts). */
const STATUS_LINES = 80;
function say(lines) {
  if (!lines.length) return;
  const block = document.createElement("div");
  for (const { text, className } of lines) {
    const line = document.createElement("p");
    line.textContent = text;
    if (className) line.className = className;
    block.appendChild(line);
  }
  const log = $("status");
  log.appendChild(block);
  while (log.children.length > 1 && log.querySelectorAll("p").length > STATUS_LINES) log.removeChild(log.firstChild);
  log.scrollTop = log.scrollHeight;  // the newest line in view
}

/* The public lines not yet told, all of them: after a lost link too, with a line saying so. */
function announce(s, again) {
  const lines = s.log.filter((entry) => !entry.private);
  if (lastLine !== null) {
    const missed = lines.filter((entry) => entry.n > lastLine);
    const told = missed.map((entry) => ({ text: entry.text }));
    if (again && missed.length) told.unshift({ text: T("missed_lines", { count: missed.length }), className: "missed" });
    say(told);
  }
  const newest = s.log.length ? s.log[s.log.length - 1].n : 0;
  lastLine = Math.max(lastLine || 0, newest);
}

/* ---------------------------------------------------------------- focus */

function visible(node) {
  return node && node.isConnected && node.getClientRects().length > 0 && !node.disabled && !node.closest("[hidden]")
    && !node.closest("[inert]");
}

function neededControl() {
  for (const id of NEEDED) {
    const node = $(id);
    if (!node) continue;
    if ((id === "best-player" && state.best_player !== null) || (id === "worst-player" && state.worst_player !== null)) continue;
    const target = node.matches("input, select, [tabindex]") ? node : node.querySelector("input, select");
    if (target && visible(target)) {
      if (node.id === "votes-fields") {  // the first empty vote field, else the first
        const empty = [...node.querySelectorAll("input")].find((f) => f.value === "");
        return empty || target;
      }
      return target;
    }
  }
  if (visible($("moment-title")) && $("moment-title").textContent) return $("moment-title");
  return $("phase");
}

/* After an input the focus goes to the next input (or, for a seat action kept
   open, to the seat's heading), never staying on the button just pressed; when
   the focused control disappears, too. While focus still sits where we put it,
   an input that becomes needed later takes it over. Focus the host moved
   elsewhere stays where the host put it. A heading the focus was put on is a
   labelled target: when its words change under the focus (the shot entered, the
   Don's check now), it is focused afresh, so a screen reader says the new words. */
let placedFocus = null, placedWords = "";
function keepFocus() {
  const active = document.activeElement;
  if (!$("unpaired").hidden) { if (active !== $("repair-pin")) $("repair-pin").focus(); return; }
  if ($("board").inert) return;
  const forced = moveFocus;
  moveFocus = false;
  const gone = !active || active === document.body || !visible(active) || active === $("conn");
  if (!gone && !forced && active !== placedFocus) return;
  const target = openSeat !== null ? $("seat-title") : neededControl();
  if (target && target === active && active.tabIndex === -1 && active.textContent !== placedWords) active.blur();
  if (target && target !== document.activeElement) target.focus();
  placedFocus = target;
  placedWords = target ? target.textContent : "";
}
document.addEventListener("voicehost-refocus", keepFocus);   // series.js: its control went away

/* ---------------------------------------------------------------- the whole page */

function render(s) {
  if (state && s.epoch !== state.epoch) lastLine = null;
  const again = wasOffline || state === null;
  wasOffline = false;
  if (s.over && state && !state.over) openSeat = null;  // the end is the screen now
  if (state && state.phase_id !== "setup" && s.phase_id === "setup") clearDeal();  // a new game: a deal of its own
  if (state && state.phase_id !== s.phase_id) document.dispatchEvent(new Event("voicehost-phase"));  // series.js
  state = s;
  csrf = s.csrf;
  renderPending(s, $("pending"));
  document.body.classList.toggle("readonly", s.readonly);
  $("readonly").hidden = !s.readonly;
  const phase = phaseLine(s);
  if ($("phase").textContent !== phase) $("phase").textContent = phase;
  clockBase = { floor: s.floor, paused: s.paused, at: Date.now() };
  if (openSeat !== null && !s.seats.some((x) => x.seat === openSeat)) openSeat = null;
  renderMoment(s);
  renderAnswers(s, again);
  showStopped(s.failure);
  $("journal-notice").hidden = !s.journal_notice || !!s.failure;   // the journal written anew: the game goes on
  if (s.journal_notice && $("journal-notice").textContent !== s.journal_notice) {
    $("journal-notice").textContent = s.journal_notice;
  }
  $("pause").hidden = s.paused;
  $("pause").disabled = s.over || s.phase_id === "setup";
  $("resume").hidden = !s.paused;
  $("next").disabled = !s.floor;
  $("undo").disabled = !s.last_input;
  const undo = s.last_input ? T("undo_label", { what: s.last_input.text }) : T("undo_nothing_label");
  if ($("undo").textContent !== undo) $("undo").textContent = undo;
  renderSeats(s);
  renderSeatPanel(s);
  renderList($("nominations"), s.nominations.map(playerLabel));
  renderSuggestions(s, again);
  renderDevices(s);
  renderList($("log"), s.log.slice().reverse().map((e) => (e.private ? T("private_mark") : "") + e.text));
  announce(s, again && lastLine !== null);
  keepFocus();
}

const DEAL = ["role-don", "role-sheriff", "role-mafia1", "role-mafia2"];

/* Every game is dealt afresh: the selects must not carry the game before's seats. */
function clearDeal() {
  DEAL.forEach((id) => { $(id).value = ""; });
  $("city-deal").value = "";
}

/* Four different seats at random (the host still checks them and starts the game). */
function randomDeal() {
  const seats = seatNumbers(state).map(String);
  const random = new Uint32Array(seats.length);
  crypto.getRandomValues(random);
  for (let i = seats.length - 1; i > 0; i--) {
    const j = random[i] % (i + 1);
    [seats[i], seats[j]] = [seats[j], seats[i]];
  }
  DEAL.forEach((id, n) => { $(id).value = seats[n]; });
  $("error").textContent = "";
}

/* A number as the table's language writes it (1,75 in Russian), the same on the phone and the TV. */
function localNumber(value) {
  return new Intl.NumberFormat(document.documentElement.lang || "ru", { maximumFractionDigits: 4 }).format(value);
}

function seatValue(id) { return Number($(id).value); }

/* A form's seat: a clear line when none is picked. */
function picked(id) {
  if ($(id).value === "") { $("error").textContent = T("pick_first", { what: document.querySelector("label[for=" + id + "]").textContent }); $(id).focus(); return null; }
  return $(id).value;
}

function setOnline(up) {
  $("conn").textContent = up ? T("connected") : T("reconnecting");
  const inside = $("board").contains(document.activeElement);
  $("board").inert = !up;
  $("board").classList.toggle("stale", !up);
  if (!up) {
    wasOffline = true;
    clockBase = null;
    tickClock();
    if (inside || document.activeElement === document.body) {  // not <body>: the line that says why
      $("conn").focus();
      placedFocus = $("conn");
    }
  }
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
  $("seat-close").addEventListener("click", closeSeat);
  $("seat-confirm-yes").addEventListener("click", () => {
    const event = pendingConfirm;
    pendingConfirm = null;
    $("seat-confirm").hidden = true;
    afterPanel = "close";
    if (event) input(event);
  });
  $("seat-confirm-no").addEventListener("click", () => {
    pendingConfirm = null;
    $("seat-confirm").hidden = true;
    $("seat-title").focus();
  });
  $("votes-confirm-yes").addEventListener("click", () => submitVotes(true));
  $("votes-confirm-no").addEventListener("click", () => {
    $("votes-confirm").hidden = true;
    $("votes-submit").hidden = false;
    const fields = [...$("votes-fields").querySelectorAll("input")];
    const empty = fields.find((f) => f.value === "");
    (empty || fields[0] || $("moment-title")).focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && openSeat !== null) closeSeat();
  });
  $("random-deal").addEventListener("click", randomDeal);
  submitted("setup-form", () => {
    const ids = ["role-don", "role-sheriff", "role-mafia1", "role-mafia2"];
    for (const id of ids) if (picked(id) === null) return;
    const seats = ids.map((id) => $(id).value);
    if (new Set(seats).size !== 4) { $("error").textContent = T("deal_same_seat"); return; }
    const roles = {};
    for (const seat of seatNumbers(state)) roles[seat] = "citizen";
    ids.forEach((id) => { roles[$(id).value] = $(id).dataset.role; });
    input({ type: "setup", roles });
  });
  submitted("city-setup-form", () => {
    try { input({ type: "setup", roles: parseDeal($("city-deal").value) }); }
    catch (e) { $("error").textContent = e.message; $("city-deal").focus(); }
  });
  submitted("candidates-form", () => {
    const seats = [...$("candidates-fields").querySelectorAll("input:checked")].map((box) => Number(box.value));
    input({ type: "candidates", seats });
  });
  submitted("action-form", () => {
    const value = picked("action-seat");
    if (value === null) return;
    input({ type: state.window_action.type, seat: value === "none" ? null : Number(value) });
  });
  submitted("votes-form", () => submitVotes(false));
  submitted("lift-form", () => {
    const count = $("lift-count").value.trim();
    if (count === "") { $("error").textContent = T("pick_first", { what: T("label_lift") }); $("lift-count").focus(); return; }
    input({ type: "lift_votes", count: Number(count) });
  });
  submitted("shot-form", () => {
    const value = picked("shot-seat");
    if (value === null) return;
    input({ type: "shot", seat: value === "miss" ? null : Number(value) });
  });
  submitted("don-form", () => { if (picked("don-seat") !== null) input({ type: "don_check", seat: seatValue("don-seat") }); });
  submitted("sheriff-form", () => { if (picked("sheriff-seat") !== null) input({ type: "sheriff_check", seat: seatValue("sheriff-seat") }); });
  submitted("best-move-form", () => {
    for (const id of ["bm1", "bm2", "bm3"]) if (picked(id) === null) return;
    input({ type: "best_move", seats: ["bm1", "bm2", "bm3"].map(seatValue) });
  });
  submitted("best-player-form", () => { if (picked("best-player") !== null) input({ type: "best_player", seat: seatValue("best-player") }); });
  submitted("worst-player-form", () => { if (picked("worst-player") !== null) input({ type: "worst_player", seat: seatValue("worst-player") }); });
  submitted("names-form", async () => {
    const names = {};
    names[String(openSeat)] = $("name-text").value.trim();
    if (await input({ type: "names", names })) $("seat-title").focus();
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

function parseDeal(text) {
  const roles = {};
  let players = 10;
  const named = [];
  const tokens = text.split(/[\s,]+/).filter(Boolean);
  if (!tokens.length) throw new Error(T("deal_empty"));
  for (const token of tokens) {
    const match = token.match(/^([a-z_]+)=(\d{1,2})$/);
    if (!match) throw new Error(T("deal_token", { word: token }));
    if (match[1] === "players") players = Number(match[2]); else named.push([match[2], match[1]]);
  }
  for (let seat = 1; seat <= players; seat++) roles[seat] = "citizen";
  for (const [seat, role] of named) roles[seat] = role;
  return roles;
}

loadTexts().then(wire);
