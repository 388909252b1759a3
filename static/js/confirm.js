// The host's confirmations name their consequence ("Bob forfeits the match: Ann wins it."): an
// hx-confirm sentence may hold {seat} (the seat chosen in its form), {others} (every other seat)
// and {winners} (the ticked winners), filled in when the host clicks.
(function () {
  "use strict";
  function names(list) { return list.length ? list.join(" and ") : ""; }
  document.addEventListener("htmx:confirm", function (e) {
    var question = e.detail.question;
    if (!question || !/\{(seat|others|winners)\}/.test(question)) { return; }
    e.preventDefault();
    var form = (e.detail.elt.closest && e.detail.elt.closest("form")) || e.detail.elt;
    var select = form.querySelector('select[name="seat"]');
    var seat = select ? select.options[select.selectedIndex].text : "";
    var others = select ? Array.from(select.options).filter(function (o) { return !o.selected; })
      .map(function (o) { return o.text; }) : [];
    var winners = Array.from(form.querySelectorAll('input[name="winners"]:checked'))
      .map(function (i) { return i.parentNode.textContent.trim(); });
    var text = question.replace(/\{seat\}/g, seat).replace(/\{others\}/g, names(others))
      .replace(/\{winners\}/g, winners.length ? names(winners) + (winners.length > 1 ? " win it" : " wins it")
                                               : "the winner is whoever won more bouts");
    if (window.confirm(text)) { e.detail.issueRequest(true); }
  });
})();

// The toast that undoes an ending (matches/partials/undo_toast.html) goes after its 30 seconds;
// the host can still reopen from Moderation while the ending may be taken back.
(function () {
  "use strict";
  function arm() {
    var toast = document.getElementById("undo-toast");
    if (!toast || toast.dataset.armed) { return; }
    toast.dataset.armed = "1";
    setTimeout(function () {
      var flash = toast.closest("#host-flash");
      toast.remove();
      if (flash) { flash.hidden = true; }
    }, 1000 * (+toast.dataset.seconds || 30));
  }
  document.addEventListener("htmx:afterSettle", arm);
  document.addEventListener("htmx:oobAfterSwap", arm);
  document.addEventListener("DOMContentLoaded", arm);  // the season manage page's (drawn with the page)
})();

// Plain forms (the season's manage page) confirm the same way before they are sent: the sentence is
// the data-confirm of the clicked button, of the chosen option of one of the form's selects, or of
// the form; {player} is the chosen player's name, {amount} the form's amount.
(function () {
  "use strict";
  function chosen(form) {
    return Array.from(form.querySelectorAll("select")).map(function (s) { return s.options[s.selectedIndex]; })
      .filter(function (o) { return o && o.dataset.confirm; }).map(function (o) { return o.dataset.confirm; })[0];
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || form.hasAttribute("hx-post")) { return; }
    var question = (e.submitter && e.submitter.dataset.confirm) || chosen(form) || form.dataset.confirm;
    if (!question) { return; }
    var select = form.querySelector('select[name="player"]');
    var option = select ? select.options[select.selectedIndex] : null;
    var amount = form.querySelector('input[name="amount"]');
    var text = question.replace(/\{player\}/g, option ? (option.dataset.name || option.text) : "")
      .replace(/\{amount\}/g, amount ? amount.value : "");
    if (!window.confirm(text)) { e.preventDefault(); }
  });
})();
