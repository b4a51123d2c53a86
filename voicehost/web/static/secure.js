"use strict";
/* The request layer of the host's pages: every request of a paired device carries
   a proof, an HMAC-SHA256 (WebCrypto) under this device's own key, which never
   crosses the network: a pairing link's key is its #fragment, a PIN's is agreed
   by ECDH P-256 with the table. Pages call:
     signedFetch(path, options)      fetch with the proof (and the cookie)
     signedSocketURL(path)           a ws(s):// URL whose query carries the proof
     pairWithLink(onWaiting)         the pairing page: spend the link, keep its key
     pairWithPin(pin, onWaiting)     the PIN forms: ECDH, then the same
     renderPending(state, section)   the devices waiting for this host's approval
   Downloads (<a download href="/api/...">) are fetched with a proof by themselves. */
const VH_KEY = "vh_key", VH_COUNTER = "vh_n", PIN_LABEL = "voicehost pin key";
let vhEpoch = null;

function b64u(bytes) {
  let text = "";
  new Uint8Array(bytes).forEach((b) => { text += String.fromCharCode(b); });
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function unb64u(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}
function cryptoReady() { return !!(window.crypto && window.crypto.subtle); }

async function serverEpoch(fresh) {
  if (!vhEpoch || fresh) {
    const response = await fetch("/api/epoch", { credentials: "same-origin" });
    vhEpoch = (await response.json()).epoch;
  }
  return vhEpoch;
}

async function proofFor(key, method, path, body) {
  const counter = Number(localStorage.getItem(VH_COUNTER) || "0") + 1;
  localStorage.setItem(VH_COUNTER, String(counter));
  const epoch = await serverEpoch(false);
  const head = new TextEncoder().encode(epoch + "\n" + counter + "\n" + method.toUpperCase() + "\n" + path + "\n");
  const tail = new TextEncoder().encode(body || "");
  const data = new Uint8Array(head.length + tail.length);
  data.set(head); data.set(tail, head.length);
  const hmac = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return epoch + "." + counter + "." + b64u(await crypto.subtle.sign("HMAC", hmac, data));
}

function deviceKey() {
  const stored = localStorage.getItem(VH_KEY);
  return stored ? unb64u(stored) : null;
}

async function signedFetch(path, options, key) {
  options = Object.assign({ method: "GET", credentials: "same-origin" }, options || {});
  const pathname = new URL(path, window.location.href).pathname;
  key = key || deviceKey();
  for (let attempt = 0; attempt < 2; attempt++) {
    const headers = Object.assign({}, options.headers || {});
    if (key && cryptoReady()) headers["X-VH-Proof"] = await proofFor(key, options.method, pathname, options.body);
    const response = await fetch(path, Object.assign({}, options, { headers }));
    if (response.status !== 401 || attempt) return response;
    let data = {};
    try { data = await response.clone().json(); } catch (e) { return response; }
    if (!data.epoch) return response;
    vhEpoch = data.epoch;  // the table restarted: sign again under its new epoch
  }
  return null;
}

async function signedSocketURL(path) {
  const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
  const key = deviceKey();
  let query = "";
  if (key && cryptoReady()) {
    await serverEpoch(true);
    query = "?proof=" + encodeURIComponent(await proofFor(key, "GET", path, ""));
  }
  return scheme + window.location.host + path + query;
}

async function finishPairing(response, key, onWaiting) {
  let data = {};
  try { data = await response.json(); } catch (e) { data = {}; }
  if (response.status === 202 && data.pending) {
    onWaiting(T("pair_waiting", { code: data.code }));
    const started = Date.now();
    while (Date.now() - started < 300000) {
      await new Promise((done) => window.setTimeout(done, 2000));
      let answer;
      try { answer = await signedFetch("/pair/wait/" + data.pending, {}, key); } catch (e) { continue; }
      if (answer.status === 202) continue;
      return finishPairing(answer, key, onWaiting);
    }
    return { error: T("pair_refused") };
  }
  if (!response.ok) return { error: data.error || T("bad_input") };
  localStorage.setItem(VH_KEY, b64u(key));
  return { ok: true };
}

async function pairWithLink(onWaiting) {
  if (!cryptoReady()) return { error: T("no_crypto") };
  const fragment = window.location.hash.slice(1);
  if (!fragment) return { error: T("pair_key_missing") };
  const key = unb64u(fragment);
  const path = window.location.pathname;
  window.history.replaceState(null, "", path);  // the key leaves the address bar (and the history)
  const response = await fetch(path, { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: "{}" });
  return finishPairing(response, key, onWaiting);
}

async function pairWithPin(pin, onWaiting) {
  if (!cryptoReady()) return { error: T("no_crypto") };
  const mine = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const pub = await crypto.subtle.exportKey("raw", mine.publicKey);
  const response = await fetch("/pin", { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin, pub: b64u(pub) }) });
  if (response.status !== 200 && response.status !== 202) return finishPairing(response, null, onWaiting);
  const data = await response.clone().json();
  const theirs = await crypto.subtle.importKey("raw", unb64u(data.pub), { name: "ECDH", namedCurve: "P-256" },
    false, []);
  const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: theirs }, mine.privateKey, 256));
  const label = new TextEncoder().encode(PIN_LABEL);
  const both = new Uint8Array(label.length + shared.length);
  both.set(label); both.set(shared, label.length);
  const key = new Uint8Array(await crypto.subtle.digest("SHA-256", both));
  return finishPairing(response, key, onWaiting);
}

/* The devices waiting for approval, each with its code (shown on that device) and two
   buttons. The section is a polite live region and every state push calls this: it
   changes the page only when a device comes or goes (a line added or removed, the
   others and their focused buttons left alone), so a screen reader hears each change
   once and the focus stays where the host put it. */
function renderPending(state, section) {
  if (!section) return;
  section.vhCsrf = state && state.csrf;
  const waiting = (state && state.pending) || [];
  const lines = new Map([...section.querySelectorAll("p[data-device]")].map((p) => [p.dataset.device, p]));
  const wanted = new Set(waiting.map((device) => device.id));
  const focused = section.contains(document.activeElement);
  for (const [id, line] of lines) if (!wanted.has(id)) line.remove();
  if (!waiting.length) {  // a focus inside is lost with it: the host's page moves it on (keepFocus)
    if (!section.hidden) section.hidden = true;
    return;
  }
  if (!section.querySelector("h2")) {
    const title = document.createElement("h2");
    title.textContent = T("pending_title");
    title.tabIndex = -1;
    section.prepend(title);
  }
  waiting.filter((device) => !lines.has(device.id)).forEach((device) => section.appendChild(pendingLine(device, section)));
  if (section.hidden) section.hidden = false;
  if (focused && !section.contains(document.activeElement)) {  // its device went: the next one, or the title
    (section.querySelector("p[data-device] button") || section.querySelector("h2")).focus();
  }
}

function pendingLine(device, section) {
  const line = document.createElement("p");
  line.dataset.device = device.id;
  line.textContent = T("pending_line", { code: device.code, via: T("pending_via_" + device.via) }) + " ";
  ["approve", "refuse"].forEach((verdict) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = T("pending_" + verdict, { code: device.code });
    button.addEventListener("click", () => signedFetch("/api/devices/pending/" + device.id + "/" + verdict, {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": section.vhCsrf }, body: "{}" }));
    line.appendChild(button);
  });
  return line;
}

document.addEventListener("click", async (event) => {
  const link = event.target.closest && event.target.closest("a[download]");
  if (!link || !link.getAttribute("href").startsWith("/api/")) return;
  event.preventDefault();
  const response = await signedFetch(link.getAttribute("href"));
  if (!response || !response.ok) return;
  const url = URL.createObjectURL(await response.blob());
  const save = document.createElement("a");
  save.href = url;
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  save.download = named ? named[1] : link.getAttribute("href").split("/").pop();
  document.body.appendChild(save);
  save.click();
  save.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10000);
});
