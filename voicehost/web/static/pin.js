"use strict";
loadTexts();
document.getElementById("pin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("error");
  error.textContent = "";
  const body = new URLSearchParams(new FormData(event.target));
  try {
    const response = await request("/pin", { method: "POST", body });
    if (response.ok) { window.location.assign("/"); return; }
    const data = await response.json();
    error.textContent = data.error || T("bad_input");
  } catch (e) {
    error.textContent = T("no_link");
  }
});
