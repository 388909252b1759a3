// Clock countdown, locally, from the deadlines the server stored (no
// per-second messages).  The move allowance and the reserve are shown apart
// ("0:42 + 5:00"): the move counts down first, then the reserve, which turns
// amber while it is being spent and red in its last minute.  Two Connect's
// bank is shown to the minute to players above 10 minutes (data-minutes="1").
// Alerts at 10 s left on the move and when the reserve starts: see alerts.js.
// A clock is two elements (matches/partials/clocks.html): its state, hidden
// (classes; data-deadline and data-move-end while it runs, data-move-left and
// data-reserve-left while it stands), then what it shows (`.clock`, the state's
// next sibling, with data-per-move and data-minutes), so that a move sends the
// state alone.
(function () {
  "use strict";
  var offset = 0;      // server clock minus browser clock, in ms, from the page's server time
  var fired = {};      // alert key -> true (each alert once per turn)

  // The server time written into the page, until the socket's round trips measure the offset
  // better (netclock.js: without the page's load latency, and kept up over the whole match).
  function readOffset() {
    var meta = document.getElementById("live-meta");
    var serverNow = meta ? Date.parse(meta.dataset.serverNow) : NaN;
    if (!isNaN(serverNow)) { offset = serverNow - Date.now(); }
  }
  function serverNow() {
    var measured = window.dmServerOffset;
    return Date.now() + (typeof measured === "number" ? measured : offset);
  }
  window.dmServerNow = serverNow;

  function fmtWhole(s) {
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(r).padStart(2, "0");
  }
  // seconds below 10 minutes ("9:42"), whole minutes above ("19 min"), as the server's `minutes` filter
  function minutesWhole(s) { return s < 600 ? fmtWhole(s) : Math.floor(s / 60) + " min"; }
  function fmt(seconds) { return fmtWhole(Math.max(0, Math.ceil(seconds - 1e-6))); }
  function minutes(seconds) { return minutesWhole(Math.max(0, Math.ceil(seconds - 1e-6))); }
  window.dmClockFormat = { fmt: fmt, minutes: minutes };

  // Text written only when it changes: the clocks tick four times a second but show seconds, and
  // each write lays out and paints the page again (a phone's battery pays for it).
  // (a node the page lacks, null, is skipped)
  function show(node, text) { if (node && node.textContent !== text) { node.textContent = text; } }

  // A standing clock's times, from data-move-left / data-reserve-left, rounded as the server's
  // `clock` and `minutes` filters round (a move's update sends a clock's state alone and leaves
  // the times it shows to this script).
  function standing(value, inMinutes) {
    var seconds = parseFloat(value);
    if (value === "" || isNaN(seconds)) { return "\u2014"; }
    var s = Math.max(0, Math.floor(seconds + 0.999));
    return inMinutes ? minutesWhole(s) : fmtWhole(s);
  }
  function face(el) { return el.nextElementSibling || el; }
  function drawStanding(el) {
    var shown = face(el);
    show(shown.querySelector(".clock-move"), standing(el.dataset.moveLeft || "", false));
    show(shown.querySelector(".clock-reserve"), standing(el.dataset.reserveLeft || "", shown.dataset.minutes === "1"));
  }

  function alert(el, kind, key) {
    if (fired[key]) { return; }
    fired[key] = true;
    document.dispatchEvent(new CustomEvent("dm:clock-alert", { detail: { kind: kind, mine: face(el).classList.contains("me"), clock: face(el) } }));
  }

  function tickClock(el, now) {
    var deadline = Date.parse(el.dataset.deadline || "");
    if (isNaN(deadline)) {
      if (el.dataset.reserveLeft !== undefined) { drawStanding(el); }
      return;
    }
    var shown = face(el), moveEnd = Date.parse(el.dataset.moveEnd || "");
    var hasMove = (shown.dataset.perMove || "") !== "";
    var total = Math.max(0, (deadline - now) / 1000);
    var moveLeft = hasMove && !isNaN(moveEnd) ? Math.max(0, (moveEnd - now) / 1000) : 0;
    var reserveLeft = hasMove && !isNaN(moveEnd) ? Math.min(total, (deadline - moveEnd) / 1000) : total;
    var spending = !hasMove || moveLeft <= 0;
    show(shown.querySelector(".clock-move"), fmt(moveLeft));
    show(shown.querySelector(".clock-reserve"), shown.dataset.minutes === "1" ? minutes(reserveLeft) : fmt(reserveLeft));
    el.classList.toggle("spending", spending);
    el.classList.toggle("move-low", hasMove && !spending && moveLeft <= 10);
    el.classList.toggle("reserve-low", spending && reserveLeft < 60);
    var key = el.dataset.deadline;
    if (hasMove && moveLeft <= 10 && moveLeft > 0) { alert(el, "move10", "m" + key); }
    if (hasMove && spending && reserveLeft > 0) { alert(el, "reserve", "r" + key); }
    if (!hasMove && reserveLeft <= 10 && reserveLeft > 0) { alert(el, "move10", "m" + key); }
  }

  function tick() {
    var now = serverNow();
    document.querySelectorAll(".clock-state").forEach(function (el) { tickClock(el, now); });
    // the host's presence box: how long a seat has been disconnected ("disconnected for 0:42")
    document.querySelectorAll(".away[data-since]").forEach(function (el) {
      var since = Date.parse(el.dataset.since), out = el.querySelector(".away-time");
      if (!isNaN(since)) { show(out, fmtWhole(Math.max(0, Math.floor((now - since) / 1000)))); }
    });
    // the host's presence box: a seat's away time left while an away pause is using it
    document.querySelectorAll(".away-left[data-until]").forEach(function (el) {
      var until = Date.parse(el.dataset.until);
      if (!isNaN(until)) { show(el, fmt((until - now) / 1000)); }
    });
    document.querySelectorAll(".round-time[data-deadline]").forEach(function (el) {
      var deadline = Date.parse(el.dataset.deadline);
      if (!isNaN(deadline)) { show(el, fmt((deadline - now) / 1000)); el.classList.toggle("low", deadline - now < 15000); }
    });
  }

  function refresh() { readOffset(); tick(); }
  document.addEventListener("htmx:wsAfterMessage", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("dm:clock-sync", tick);
  setInterval(tick, 250);
})();
