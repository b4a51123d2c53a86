"use strict";
/* The pairing link lands here (same origin), so the cookie set by this POST is
   sent with the next page even when the link came from another app or site.
   The link's #fragment is this device's key: secure.js keeps it, the POST never
   carries it. */
async function pairDevice(event) {
  if (event) event.preventDefault();
  const error = document.getElementById("error");
  error.textContent = "";
  try {
    const paired = await pairWithLink((line) => { error.textContent = line; });
    if (paired.ok) { window.location.replace("/"); return; }
    error.textContent = paired.error || "";
  } catch (e) {
    error.textContent = T("no_link");
  }
}
document.getElementById("pair-form").addEventListener("submit", pairDevice);
loadTexts().then(() => pairDevice(null));
