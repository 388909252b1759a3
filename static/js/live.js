// Live page plumbing: version tracking (refetch on a gap), copy buttons
// (the clock countdown is clocks.js).  No per-second messages.
(function () {
  "use strict";
  // {bout, version, log} last applied.  An offer, its answer and a host's note add a log row but
  // no version, so what the page receives is ordered by (bout, version, log): the highest log
  // sequence drawn.
  var last = null;

  function liveRoot() { return document.getElementById("live"); }

  function parseMeta(html) {
    var tag = /<div id="live-meta"[^>]*>/.exec(html || "");
    if (!tag) { return null; }
    // (a base of -1 applies to no page: the server had nothing this page can be brought up from)
    var attr = function (name) { var m = new RegExp(" data-" + name + '="(-?\\d*)"').exec(tag[0]); return m ? m[1] : null; };
    var base = attr("base");
    return { bout: +attr("bout"), version: +attr("version"), log: +attr("log"),
             base: base === null || base === "" ? null : +base };
  }

  // a state (parsed #live-meta) older than the one the page shows
  function olderThanPage(got) {
    if (got.bout !== last.bout) { return got.bout < last.bout; }
    return got.version < last.version || (got.version === last.version && got.log < last.log);
  }

  function refetch() {
    var root = liveRoot();
    if (root && window.htmx) { htmx.ajax("GET", root.dataset.fragmentsUrl, { target: "#live-meta", swap: "none" }); }
  }

  window.dmRefetch = refetch;  // also used by the browser test

  // the turn log shows its latest rows: after every new version, whenever the log itself was
  // drawn anew (the socket's first full update replaces it, which would open it at the top), and
  // when rows came without a new version (an offer, its answer, a note of the host's)
  var shownLog = null;
  var shownRows = 0;
  function scrollLog(always) {
    var log = document.querySelector("#log .log-list");
    var rows = log ? log.children.length : 0;
    if (log && (always || log !== shownLog || rows !== shownRows)) { log.scrollTop = log.scrollHeight; }
    shownLog = log;
    shownRows = rows;
  }

  function readMeta() {
    var meta = document.getElementById("live-meta");
    if (!meta) { return; }
    var now = { bout: +meta.dataset.bout, version: +meta.dataset.version, log: +meta.dataset.log };
    var base = document.title.replace(/^● /, "");
    document.title = meta.dataset.myTurn === "1" ? "● " + base : base;
    // a pause stops every move: Play is disabled until the host resumes (the server refuses anyway)
    var play = document.getElementById("move-submit");
    if (play) {
      var paused = meta.dataset.paused === "1";
      play.disabled = paused;
      if (paused) { play.title = "Paused by the host"; } else { play.removeAttribute("title"); }
    }
    // every form acts on the version the page shows (a delta leaves older forms' inputs behind)
    var inputs = document.querySelectorAll('#live input[name="version"]');
    for (var i = 0; i < inputs.length; i++) { inputs[i].value = now.version; }
    var moved = !last || last.bout !== now.bout || last.version !== now.version;
    var changed = moved && last !== null;
    last = now;  // also when only rows came (an offer, its answer): the log orders them
    if (changed) { document.dispatchEvent(new CustomEvent("dm:board-changed", { detail: now })); }
    scrollLog(moved);
  }

  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var got = parseMeta(e.detail.message);
    if (!got || !last) { return; }
    var older = olderThanPage(got);
    if (got.base === null) {
      if (older) { e.preventDefault(); }  // a full update older than the page: keep the page
      return;
    }
    // a delta applies only to the version it was made from; otherwise fetch everything
    if (got.bout !== last.bout || got.base !== last.version) {
      e.preventDefault();
      if (!older && !(got.bout === last.bout && got.version === last.version)) { setTimeout(refetch, 0); }
    }
  });
  // An answer by HTTP (a move's reply, the host's, a refetch) older than the page: a websocket update
  // overtook it, so its state is dropped; what comes before it (the move's error, a flash) still shows.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var html = e.detail.serverResponse;
    if (!last || typeof html !== "string") { return; }
    var at = html.indexOf('<div id="live-meta"');
    var got = at < 0 ? null : parseMeta(html.slice(at));
    if (got && olderThanPage(got)) {
      e.detail.serverResponse = html.slice(0, at);
    }
  });

  // A fragment (hx-swap-oob="morph": the board, the clocks, the host's panel...) is merged into the
  // page's with idiomorph (the htmx extension "morph" on #live): elements stay in place, so a click
  // or a tap under way is not lost, and focus stays where it was.  What a user typed or chose stays:
  // the control being typed in keeps its value, and any other control its user changed keeps it
  // while the server proposes the same default for it as before (a host half-way through "Who
  // plays seat 3: computer, strong" keeps both choices over a redraw); a <details> the user opened
  // stays open.  (Not idiomorph's ignoreActiveValue: it would keep a focused button's old label too.)
  function isControl(node) { return node.nodeType === 1 && /^(INPUT|SELECT|TEXTAREA)$/.test(node.tagName); }
  function defaultOf(el) {
    if (el.tagName === "SELECT") {
      var chosen = Array.prototype.filter.call(el.options, function (o) { return o.defaultSelected; });
      return chosen.length ? chosen[0].value : "";
    }
    if (el.type === "checkbox" || el.type === "radio") { return String(el.defaultChecked); }
    return el.defaultValue;
  }
  function changedByUser(el) {
    if (el.tagName === "SELECT") {
      var first = Array.prototype.findIndex.call(el.options, function (o) { return o.defaultSelected; });
      return el.selectedIndex !== Math.max(0, first);
    }
    if (el.type === "checkbox" || el.type === "radio") { return el.checked !== el.defaultChecked; }
    return el.type !== "hidden" && el.value !== el.defaultValue;
  }
  var kept = new WeakSet();  // controls whose user's value a morph leaves alone
  if (window.Idiomorph && window.htmx) {
    // The extension idiomorph ships, but for "morph" (outerHTML) alone: it calls every style inline,
    // so an out-of-band "beforeend:#log-list" appended the <ol> wrapping new rows, not the rows.
    htmx.defineExtension("morph", {
      isInlineSwap: function (style) { return style === "morph"; },
      handleSwap: function (style, target, fragment) {
        return style === "morph" ? Idiomorph.morph(target, fragment.children, { morphStyle: "outerHTML" }) : false;
      }
    });
    Idiomorph.defaults.callbacks.beforeNodeMorphed = function (old, now) {
      if (isControl(old) && isControl(now) && old.name === now.name &&
          (old === document.activeElement || (changedByUser(old) && defaultOf(old) === defaultOf(now)))) {
        kept.add(old);
      }
      return true;
    };
    Idiomorph.defaults.callbacks.afterNodeMorphed = function (old) { kept.delete(old); };
    Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, el) {
      if (name === "value" || name === "checked") { return !kept.has(el); }
      if (name === "open" && el.tagName === "DETAILS") { return false; }
      return !(name === "selected" && el.parentElement && kept.has(el.closest("select")));
    };
  }

  // A live part sent alone (a cell, a clock) replaces the page's element of its id.  htmx parses a
  // message as HTML outside any <svg>, so a part of an SVG board (a point's <g>) arrives as an HTML
  // element, which an <svg> does not draw: it is read again inside an <svg>, as the page's parser
  // read it.  (Its children are written with end tags: "/>" closes nothing in HTML.)
  var SVG_NS = "http://www.w3.org/2000/svg";
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var fragment = e.detail.fragment, target = e.detail.target;
    var incoming = fragment && fragment.firstElementChild;
    if (!incoming || !target || target.namespaceURI !== SVG_NS || incoming.namespaceURI === SVG_NS) { return; }
    var holder = document.createElement("template");
    holder.innerHTML = "<svg>" + incoming.outerHTML + "</svg>";
    var svg = holder.content.firstElementChild;
    if (svg && svg.firstElementChild) { fragment.replaceChild(svg.firstElementChild, incoming); }
  });
  document.addEventListener("htmx:wsAfterMessage", readMeta);
  document.addEventListener("htmx:afterSettle", readMeta);
  document.addEventListener("htmx:afterRequest", function () { setTimeout(readMeta, 0); });
  // body[data-socket]: "open" while the page's socket is, "closed" while it reconnects (app.css
  // shows "reconnecting…"; browser tests wait on "open")
  document.addEventListener("htmx:wsClose", function () { document.body.dataset.socket = "closed"; });
  document.addEventListener("htmx:wsOpen", function () { document.body.dataset.socket = "open"; });

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
