"use strict";
/* The host page's part of a club's evening (`run --serve|--lan --series NAME`):
   before the deal, the players present picked from the roster (a newcomer
   added) and seated by lot or in the order picked; after the end, the protest
   and "Следующая игра"; between games, the series' standings (standings.js).
   Its own section, inserted before the board; every request is signed
   (secure.js signedFetch). Nothing shows when the table plays no series. */
(function () {
  let desk = null;
  let picked = [];
  let token = "";
  const el = (tag, props, ...children) => {
    const node = document.createElement(tag);
    Object.entries(props || {}).forEach(([k, v]) => {
      if (k === "text") node.textContent = v;
      else if (k in node && k !== "for") node[k] = v;
      else node.setAttribute(k, v);
    });
    children.forEach((c) => node.appendChild(c));
    return node;
  };

  const section = el("section", { id: "series", hidden: true, "aria-labelledby": "h-series" });
  const heading = el("h2", { id: "h-series" });
  const message = el("p", { id: "series-message", className: "notice", role: "status" });
  const problem = el("p", { id: "series-error", className: "series-error", role: "alert" });

  // Seating: the roster as checkboxes, in the order picked; a newcomer; by lot or in order.
  const seatingBox = el("div", { id: "series-seating", className: "host-only" });
  const seatingHead = el("h3", { id: "h-series-seating" });
  const roster = el("fieldset", { id: "series-roster" });
  const rosterLegend = el("legend", { id: "series-roster-legend" });
  const rosterList = el("div", { className: "series-roster" });
  roster.append(rosterLegend, rosterList);
  const order = el("p", { id: "series-order", className: "note" });
  const seated = el("p", { id: "series-seated" });
  const newcomerForm = el("form", { id: "series-newcomer-form", className: "row" });
  const newcomerInput = el("input", { id: "series-newcomer", maxLength: 40, autocomplete: "off" });
  const newcomerLabel = el("label", { for: "series-newcomer" });
  const newcomerButton = el("button", { type: "submit", className: "secondary" });
  newcomerForm.append(newcomerLabel, newcomerInput, newcomerButton);
  const drawButton = el("button", { type: "button", id: "series-draw" });
  const setButton = el("button", { type: "button", id: "series-set", className: "secondary" });
  seatingBox.append(seatingHead, roster, order, el("div", { className: "row" }, drawButton, setButton),
    newcomerForm);

  // After the end: the protest (1.8) and the next game.
  const protestForm = el("form", { id: "series-protest-form", className: "host-only" });
  const protestHead = el("h3", { id: "h-series-protest" });
  const team = el("select", { id: "series-protest-team" });
  const votes = el("input", { id: "series-protest-votes", type: "number", min: 0, max: 10, value: 0,
    inputMode: "numeric", required: true });
  const outcome = el("select", { id: "series-protest-outcome" });
  const teamLabel = el("label", { for: "series-protest-team" });
  const votesLabel = el("label", { for: "series-protest-votes" });
  const outcomeLabel = el("label", { for: "series-protest-outcome" });
  const protestButton = el("button", { type: "submit" });
  protestForm.append(protestHead,
    el("div", { className: "row" }, teamLabel, team), el("div", { className: "row" }, votesLabel, votes),
    el("div", { className: "row" }, outcomeLabel, outcome), protestButton);
  const protestDone = el("p", { id: "series-protest-done" });
  const nextButton = el("button", { type: "button", id: "series-next", className: "host-only series-next" });

  const standings = el("div", { id: "series-standings" });
  // After the end the next game comes first (in reach on a phone), the protest right below it.
  section.append(heading, problem, message, seated, seatingBox, nextButton, protestForm, protestDone, standings);

  function words() {
    seatingHead.textContent = T("h_series_seating");
    newcomerLabel.textContent = T("series_newcomer");
    newcomerButton.textContent = T("series_newcomer_add");
    drawButton.textContent = T("series_seat_draw");
    setButton.textContent = T("series_seat_set");
    protestHead.textContent = T("h_series_protest");
    teamLabel.textContent = T("series_protest_team");
    votesLabel.textContent = T("series_protest_votes");
    outcomeLabel.textContent = T("series_protest_outcome");
    protestButton.textContent = T("series_protest_send");
    nextButton.textContent = T("series_next");
    [["red", "series_protest_red"], ["black", "series_protest_black"]].forEach(([value, key]) =>
      team.appendChild(el("option", { value, text: T(key) })));
    ["annulled", "changed", "replayed"].forEach((value) =>
      outcome.appendChild(el("option", { value, text: T("series_outcome_" + value) })));
  }

  const orderText = (names) => names.map((name, i) => (i + 1) + " — " + name).join(", ");

  function renderRoster() {
    const names = desk.roster;
    const shown = JSON.stringify(names);
    if (rosterList.dataset.shown !== shown) {
      rosterList.dataset.shown = shown;
      clear(rosterList);
      names.forEach((name, i) => {
        const box = el("input", { type: "checkbox", id: "series-p" + i, value: name, checked: picked.includes(name) });
        box.addEventListener("change", () => {
          picked = box.checked ? picked.concat([name]) : picked.filter((n) => n !== name);
          renderPicked();
        });
        rosterList.appendChild(el("label", { for: box.id, className: "series-player" }, box,
          el("span", { text: name })));
      });
    }
    picked = picked.filter((n) => names.includes(n));
    rosterList.querySelectorAll("input").forEach((box) => { box.checked = picked.includes(box.value); });
    renderPicked();
  }

  function renderPicked() {
    rosterLegend.textContent = T("series_seating_hint", { seats: desk.seats, count: picked.length });
    order.textContent = picked.length ? T("series_seating_order", { order: orderText(picked) }) : "";
  }

  /* A message is said of one phase: it goes once the game has been seen in that
     phase and moved on. "Следующая игра" is said of the next game's first phase,
     which a reply may still precede (the old game's end is not a moment gone by). */
  let messagePhase = null;
  let messageSeen = false;

  function say(text, phase) {
    message.textContent = text;
    messagePhase = phase;
    messageSeen = false;
  }

  function render(data) {
    const focused = section.contains(document.activeElement) ? document.activeElement : null;
    if (data.phase_id === messagePhase) messageSeen = true;
    else if (messageSeen) say("", null);   // said of a moment gone by
    desk = data;
    if (data.csrf) token = data.csrf;
    section.hidden = !data.between;
    const names = Object.entries(data.seated || {}).sort((a, b) => a[0] - b[0]).map(([, n]) => n);
    // Seated: the deal is the moment now, so the series' part moves below it (nothing needed below the fold).
    place(data.phase_id === "setup" && !names.length);
    heading.textContent = T("h_series", { name: data.name });
    const host = !data.readonly;
    seatingBox.hidden = !host || data.phase_id !== "setup" || names.length > 0;
    if (!seatingBox.hidden) renderRoster();
    seated.textContent = names.length && !data.over ? T("series_seated_now", { order: orderText(names) }) : "";
    protestForm.hidden = !host || !data.over || !!data.protest;
    protestDone.textContent = data.over && data.protest ? T("series_protest_done", {
      team: T("series_protest_" + data.protest.team), votes: data.protest.votes }) : "";
    nextButton.hidden = !host || !data.over;
    renderStandings(standings, data);
    // The control the host just used went away (seated: the seating form hides):
    // the host page puts the focus on what is needed now, as after its own changes.
    if (focused && !focused.getClientRects().length) document.dispatchEvent(new Event("voicehost-refocus"));
  }

  /* Before the deal the seating comes first, at the top; after the end the series'
     part follows the game's own end (its best and worst player come before the next game). */
  function place(first) {
    const board = document.getElementById("board");
    const end = document.getElementById("end");
    const main = document.querySelector("main");
    if (first || !end || !end.parentNode) {
      if (section.nextSibling !== board) main.insertBefore(section, board || null);
    } else if (end.nextSibling !== section) {
      end.parentNode.insertBefore(section, end.nextSibling);
    }
  }

  async function call(path, body) {
    problem.textContent = "";
    let response;
    try {
      response = await signedFetch(path, {
        method: body === undefined ? "GET" : "POST", credentials: "same-origin",
        headers: body === undefined ? {} : { "Content-Type": "application/json", "X-CSRF-Token": token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      if (body !== undefined) problem.textContent = T("no_link");
      return null;
    }
    if (!response) return null;
    if (response.status === 204) return false;   // no series at this table: nothing to show, nothing to ask
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    if (response.status === 401) return null;   // host.js tells the host to pair again
    if (!response.ok) {
      if (body !== undefined) problem.textContent = data.error || T("bad_input");
      return null;
    }
    if (body !== undefined) say(data.message || "", data.message_phase || data.phase_id);
    render(data);
    return data;
  }

  function seat(draw) {
    if (picked.length !== desk.seats) {
      problem.textContent = T("series_seating_count", { seats: desk.seats, count: picked.length });
      return;
    }
    call("/api/series/seating", { names: picked, draw }).then((done) => { if (done) picked = []; });
  }

  function wire() {
    words();
    place(true);
    drawButton.addEventListener("click", () => seat(true));
    setButton.addEventListener("click", () => seat(false));
    newcomerForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const name = newcomerInput.value.trim();
      if (!name) { problem.textContent = T("series_newcomer_bad"); return; }
      const done = await call("/api/series/newcomer", { name });
      if (done) {
        newcomerInput.value = "";
        const added = done.roster.find((n) => n.toLowerCase() === name.toLowerCase());
        if (added && !picked.includes(added) && picked.length < done.seats) { picked.push(added); renderRoster(); }
      }
    });
    protestForm.addEventListener("submit", (event) => {
      event.preventDefault();
      call("/api/series/protest", { team: team.value, votes: Number(votes.value), outcome: outcome.value });
    });
    nextButton.addEventListener("click", () => call("/api/series/next", {}));
    // The game's phase moved (the deal, the end): the series' part follows at once, not at its next poll.
    document.addEventListener("voicehost-phase", () => call("/api/series"));
    async function loop() {
      const result = await call("/api/series");
      if (result !== false) window.setTimeout(loop, 3000);
    }
    loop();
  }

  loadTexts().then(wire);
})();
