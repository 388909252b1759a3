// Live page plumbing: version tracking (refetch on a gap), copy buttons
// (the clock countdown is clocks.js).  No per-second messages.
(function () {
  "use strict";
  var offset = 0;          // server clock minus browser clock, in ms
  var last = null;         // {bout, version} last applied

  function liveRoot() { return document.getElementById("live"); }

  function parseMeta(html) {
    var m = /id="live-meta"[^>]*data-bout="(\d+)"[^>]*data-version="(\d+)"/.exec(html || "");
    return m ? { bout: +m[1], version: +m[2] } : null;
  }

  function refetch() {
    var root = liveRoot();
    if (root && window.htmx) { htmx.ajax("GET", root.dataset.fragmentsUrl, { target: "#live-meta", swap: "none" }); }
  }

  window.dmRefetch = refetch;  // also used by the browser test

  function readMeta() {
    var meta = document.getElementById("live-meta");
    if (!meta) { return; }
    var serverNow = Date.parse(meta.dataset.serverNow);
    if (!isNaN(serverNow)) { offset = serverNow - Date.now(); }
    var now = { bout: +meta.dataset.bout, version: +meta.dataset.version };
    var base = document.title.replace(/^● /, "");
    document.title = meta.dataset.myTurn === "1" ? "● " + base : base;
    var input = document.getElementById("move-version");
    if (input) { input.value = now.version; }
    if (!last || last.bout !== now.bout || last.version !== now.version) {
      var changed = last !== null;
      last = now;
      if (changed) { document.dispatchEvent(new CustomEvent("dm:board-changed", { detail: now })); }
      var log = document.querySelector("#log .log-list");
      if (log) { log.scrollTop = log.scrollHeight; }
    }
  }

  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var got = parseMeta(e.detail.message);
    // a message that skips a version means we missed one: refetch everything after this swap
    if (got && last && got.bout === last.bout && got.version > last.version + 1) {
      setTimeout(refetch, 0);
    }
  });
  document.addEventListener("htmx:wsAfterMessage", readMeta);
  document.addEventListener("htmx:afterSettle", readMeta);
  document.addEventListener("htmx:afterRequest", function () { setTimeout(readMeta, 0); });
  document.addEventListener("htmx:wsClose", function () { document.body.classList.add("offline"); });
  document.addEventListener("htmx:wsOpen", function () { document.body.classList.remove("offline"); });

  // the clock countdown lives in clocks.js

  document.addEventListener("click", function (e) {
    var btn = e.target.closest("button.copy");
    if (!btn) { return; }
    var input = document.querySelector(btn.dataset.copy);
    if (!input) { return; }
    var done = function () { btn.textContent = "Copied"; setTimeout(function () { btn.textContent = "Copy"; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { input.select(); document.execCommand("copy"); done(); });
    } else { input.select(); document.execCommand("copy"); done(); }
  });

  document.addEventListener("DOMContentLoaded", readMeta);
})();
