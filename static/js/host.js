// The host's move box (#move-card, for games in which the host plays: the host's game) is offered
// while a bout is in play, as the server decides: it draws #host-panel with data-bout-in-play on
// the page and in every live update, and the box follows it (shown when the next bout starts,
// gone when a bout or the match ends), with no reload.  The Links card leads the page while the
// match is set up (the host's first job is to send them) and sits under the board once it has
// started, as a fresh page draws it (host.html): a page open at the start moves it there.
(function () {
  "use strict";
  function follow() {
    var panel = document.getElementById("host-panel"), card = document.getElementById("move-card");
    var links = document.getElementById("links"), grid = document.querySelector(".match-grid");
    if (panel && links && grid && panel.dataset.setup === "0" && links.nextElementSibling === grid) {
      grid.after(links);
    }
    if (!panel || !card || !card.classList.contains("host-move")) { return; }
    var open = panel.dataset.boutInPlay === "1";
    if (card.hidden === open) { card.hidden = !open; }
  }
  document.addEventListener("htmx:afterSettle", follow);
  document.addEventListener("htmx:wsAfterMessage", follow);
  document.addEventListener("DOMContentLoaded", follow);
})();
