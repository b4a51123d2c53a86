"use strict";
/* The series' standings (SPEC §6.2), the rows `voicehost standings` computes,
   drawn as a table in the table's language (the [web] block's series_* words).
   Public: no roles, no secrets. On the TV board (/table) this file also keeps
   its own section, shown between games, read from GET /api/table/series. */
const SERIES_COLUMNS = ["place", "name", "games", "wins", "points", "coefficient", "bests", "worsts", "best_moves", "decided_by"];

function seriesNumber(value) {
  if (typeof value !== "number") return value === null || value === undefined ? "" : String(value);
  const lang = document.documentElement.lang || "ru";
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 4 }).format(value);
}

/* The standings into `box` (emptied first): a table with its caption, or the line saying it is empty. */
function renderStandings(box, data) {
  const key = JSON.stringify([data.name, data.count, data.rows]);
  if (box.dataset.shown === key) return;
  box.dataset.shown = key;
  clear(box);
  const caption = T("series_caption", { name: data.name, count: data.count });
  if (!data.rows.length) {
    const title = document.createElement("p");
    title.className = "series-title";
    title.textContent = caption;
    const empty = document.createElement("p");
    empty.textContent = T("series_empty");
    box.append(title, empty);
    return;
  }
  const scroll = document.createElement("div");
  scroll.className = "series-scroll";
  scroll.tabIndex = 0;   // a narrow screen scrolls it sideways, from the keyboard too
  scroll.role = "region";   // ARIA reflection: a named, focusable region
  scroll.setAttribute("aria-label", caption);
  const table = document.createElement("table");
  table.className = "series-table";
  table.style.setProperty("--rows", String(data.rows.length));   // the TV fits every row on the screen
  const cap = document.createElement("caption");
  cap.textContent = caption;
  const head = document.createElement("thead");
  const top = document.createElement("tr");
  SERIES_COLUMNS.forEach((column) => {
    const th = document.createElement("th");
    th.scope = "col";
    th.className = "col-" + column;
    th.textContent = T("series_col_" + column);
    top.appendChild(th);
  });
  head.appendChild(top);
  const body = document.createElement("tbody");
  data.rows.forEach((row) => {
    const tr = document.createElement("tr");
    SERIES_COLUMNS.forEach((column) => {
      const cell = document.createElement(column === "name" ? "th" : "td");
      if (column === "name") cell.scope = "row";
      cell.className = "col-" + column;
      const why = row.decided_by ? T("series_by_" + row.decided_by) : "";
      cell.textContent = column === "decided_by" ? why : seriesNumber(row[column]);
      if (column === "name" && why) {   // a phone has no room for the column: the reason under the name
        const under = document.createElement("span");
        under.className = "why";
        const label = document.createElement("span");
        label.className = "visually-hidden";   // short on a phone: the reason alone, its label for a screen reader
        label.textContent = T("series_col_decided_by") + ": ";
        under.append(label, why);
        cell.appendChild(under);
      }
      tr.appendChild(cell);
    });
    body.appendChild(tr);
  });
  table.append(cap, head, body);
  scroll.appendChild(table);
  box.appendChild(scroll);
}

/* The TV board: its own section, shown only between games (before a deal, after an end). */
function tvStandings() {
  const main = document.querySelector("main");
  const section = document.createElement("section");
  section.id = "series-board";
  section.hidden = true;
  const heading = document.createElement("h2");
  heading.id = "h-series-board";
  section.setAttribute("aria-labelledby", heading.id);
  const box = document.createElement("div");
  section.append(heading, box);
  main.insertBefore(section, document.getElementById("conn"));
  async function load() {
    let response;
    try { response = await fetch("/api/table/series", { credentials: "same-origin" }); } catch (e) { return true; }
    if (response.status === 204) return false;   // one game, no series: nothing to show
    if (!response.ok) return true;
    const data = await response.json();
    heading.textContent = T("h_series", { name: data.name });
    renderStandings(box, data);
    section.hidden = !data.between;
    document.body.classList.toggle("between-games", data.between);
    return true;
  }
  async function loop() {
    if (await load()) window.setTimeout(loop, 4000);
  }
  loop();
}

if (document.body && document.body.classList.contains("tv")) loadTexts().then(tvStandings);
