"use strict";
/* The pairing link lands here (same origin), so the cookie set by this POST is
   sent with the next page even when the link came from another app or site. */
async function pairDevice(event) {
  if (event) event.preventDefault();
  const error = document.getElementById("error");
  error.textContent = "";
  try {
    const response = await request(window.location.pathname, { method: "POST" });
    if (response.ok) { window.location.replace("/"); return; }
    const data = await response.json();
    error.textContent = data.error || "";
  } catch (e) {
    error.textContent = T("no_link");
  }
}
document.getElementById("pair-form").addEventListener("submit", pairDevice);
loadTexts().then(() => pairDevice(null));
