// Replay stepping: first / prev / next / last, keys ← → Home End, autoplay,
// and the move list.  Every control is a real link (?step=k) that works
// without this script; with it, the step is fetched from the server (the
// board is drawn there, from this viewer's view of that step) and swapped in
// with htmx, so a game's own board script sees htmx:load as on the live page.
(function () {
  "use strict";
  var timer = null;
  var busy = false;

  function root() { return document.getElementById("replay"); }
  function current() { return +root().dataset.step; }
  function last() { return +root().dataset.last; }

  function setLink(id, step, disabled) {
    var a = document.getElementById(id);
    if (!a) { return; }
    a.dataset.step = String(step);
    a.setAttribute("href", "?step=" + step);
    if (disabled) { a.setAttribute("aria-disabled", "true"); } else { a.removeAttribute("aria-disabled"); }
  }

  function mark(step) {
    var r = root();
    r.dataset.step = String(step);
    setLink("replay-first", 0, step === 0);
    setLink("replay-prev", Math.max(0, step - 1), step === 0);
    setLink("replay-next", Math.min(last(), step + 1), step === last());
    setLink("replay-last", last(), step === last());
    var list = document.getElementById("replay-moves");
    if (list) {
      list.querySelectorAll("a[aria-current]").forEach(function (a) { a.removeAttribute("aria-current"); });
      var here = list.querySelector('a[data-step="' + step + '"]');
      if (here) { here.setAttribute("aria-current", "step"); }
      reveal();
    }
    if (window.history && history.replaceState) { history.replaceState(null, "", "?step=" + step); }
  }

  // The current entry stays in the move list's view, centred when it was out of it: the list scrolls,
  // never the page (the board may be what the viewer is looking at).  Measured on screen: offsetTop
  // is relative to the nearest positioned ancestor, which the list and its entries need not share.
  function reveal() {
    var list = document.getElementById("replay-moves");
    var here = list && list.querySelector("a[aria-current]");
    if (!here) { return; }
    var box = list.getBoundingClientRect(), at = here.getBoundingClientRect();
    if (at.top < box.top || at.bottom > box.bottom) {
      list.scrollTop += (at.top - box.top) - (list.clientHeight - at.height) / 2;
    }
  }

  // `want` is the step asked for last: keys pressed while a step loads add up
  // (three presses of → go three steps), and only the last one is drawn.
  var want = null;

  function target() { return want === null ? current() : want; }

  function go(step) {
    if (!root()) { return Promise.resolve(); }
    want = Math.max(0, Math.min(last(), step));
    if (!window.htmx) { window.location.search = "?step=" + want; return Promise.resolve(); }
    return fetchWanted();
  }

  function fetchWanted() {
    if (busy) { return Promise.resolve(); }
    if (want === null || want === current()) { want = null; return Promise.resolve(); }
    busy = true;
    var step = want;
    return htmx.ajax("GET", "?step=" + step + "&partial=1", { target: "#replay-stage", swap: "innerHTML" })
      .then(function () {
        var shown = document.querySelector("#replay-stage .replay-step");
        mark(shown ? +shown.dataset.step : step);
        busy = false;
        return fetchWanted();
      }, function () { busy = false; want = null; });
  }

  function stop() {
    if (timer) { clearTimeout(timer); timer = null; }
    var b = document.getElementById("replay-play");
    if (b) { b.setAttribute("aria-pressed", "false"); b.innerHTML = '<span aria-hidden="true">▶</span> Play'; }
  }

  function tick() {
    if (target() >= last()) { stop(); return; }
    go(target() + 1).then(function () {
      if (timer !== null) { timer = setTimeout(tick, speed()); }
    });
  }

  function speed() {
    var s = document.getElementById("replay-speed");
    return s ? Math.max(200, +s.value || 1200) : 1200;
  }

  function play() {
    var b = document.getElementById("replay-play");
    if (timer) { stop(); return; }
    if (current() >= last()) { go(0); }
    b.setAttribute("aria-pressed", "true");
    b.innerHTML = '<span aria-hidden="true">❚❚</span> Pause';
    timer = setTimeout(tick, speed());
  }

  document.addEventListener("click", function (e) {
    if (!root()) { return; }
    var a = e.target.closest("a[data-step]");
    if (a && (a.closest(".replay-controls") || a.closest("#replay-moves"))) {
      if (e.metaKey || e.ctrlKey || e.shiftKey || e.button) { return; }  // new tab: the link works alone
      e.preventDefault();
      stop();
      go(+a.dataset.step);
      return;
    }
    if (e.target.closest("#replay-play")) { play(); }
  });

  // a page opened on a late step (the replay opens on the last one) shows that step's entry
  document.addEventListener("DOMContentLoaded", function () { if (root()) { reveal(); } });

  document.addEventListener("keydown", function (e) {
    if (!root() || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) { return; }
    var step = { ArrowRight: target() + 1, ArrowLeft: target() - 1, Home: 0, End: last() }[e.key];
    if (step === undefined) { return; }
    e.preventDefault();
    stop();
    go(step);
  });
})();
