"use strict";
loadTexts();
document.getElementById("pin-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("error");
  error.textContent = "";
  try {
    const paired = await pairWithPin(document.getElementById("pin").value.trim(),
      (line) => { error.textContent = line; });
    if (paired.ok) { window.location.assign("/"); return; }
    error.textContent = paired.error || T("bad_input");
  } catch (e) {
    error.textContent = T("no_link");
  }
});
