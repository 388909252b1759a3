// Live page plumbing: version tracking (refetch on a gap), copy buttons
// (the clock countdown is clocks.js).  No per-second messages.
(function () {
  "use strict";
  var last = null;         // {bout, version} last applied

  function liveRoot() { return document.getElementById("live"); }

  function parseMeta(html) {
    var tag = /<div id="live-meta"[^>]*>/.exec(html || "");
    if (!tag) { return null; }
    var attr = function (name) { var m = new RegExp(" data-" + name + '="(\\d*)"').exec(tag[0]); return m ? m[1] : null; };
    var base = attr("base");
    return { bout: +attr("bout"), version: +attr("version"), base: base === null || base === "" ? null : +base };
  }

  // a state (parsed #live-meta) older than the one the page shows
  function olderThanPage(got) {
    return got.bout < last.bout || (got.bout === last.bout && got.version < last.version);
  }

  function refetch() {
    var root = liveRoot();
    if (root && window.htmx) { htmx.ajax("GET", root.dataset.fragmentsUrl, { target: "#live-meta", swap: "none" }); }
  }

  window.dmRefetch = refetch;  // also used by the browser test

  // the turn log shows its latest rows: after every new version, and whenever the log itself was
  // drawn anew (the socket's first full update replaces it, which would open it at the top)
  var shownLog = null;
  function scrollLog(always) {
    var log = document.querySelector("#log .log-list");
    if (log && (always || log !== shownLog)) { log.scrollTop = log.scrollHeight; }
    shownLog = log;
  }

  function readMeta() {
    var meta = document.getElementById("live-meta");
    if (!meta) { return; }
    var now = { bout: +meta.dataset.bout, version: +meta.dataset.version };
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
    if (!last || last.bout !== now.bout || last.version !== now.version) {
      var changed = last !== null;
      last = now;
      if (changed) { document.dispatchEvent(new CustomEvent("dm:board-changed", { detail: now })); }
      scrollLog(true);
    } else {
      scrollLog(false);
    }
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
  // An answer by HTTP (a move's reply, the host's, a refetch) older than the page: a websocket
  // update overtook it (the computer's answer to a move was drawn and sent before the move's own
  // reply reached the page, which then showed the position before the answer and waited for ever).
  // Its state is dropped; what comes before it (the move's error, the host's flash) still shows.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var html = e.detail.serverResponse;
    if (!last || typeof html !== "string") { return; }
    var at = html.indexOf('<div id="live-meta"');
    var got = at < 0 ? null : parseMeta(html.slice(at));
    if (got && olderThanPage(got)) {
      e.detail.serverResponse = html.slice(0, at);
    }
  });

  // htmx parses a message as HTML outside any <svg>, so a live part of an SVG board (a point's
  // <g>) arrives as an HTML element, which an <svg> does not draw: rebuild it in the SVG namespace,
  // as the parser does inside <svg>.  (Its children must be written with end tags: "/>" closes
  // nothing in HTML, so <circle/><text> would already have become a circle holding the text.)
  var SVG_NS = "http://www.w3.org/2000/svg";
  function asSvg(element) {
    var holder = document.createElement("template");
    holder.innerHTML = "<svg>" + element.outerHTML + "</svg>";
    var svg = holder.content.firstElementChild;
    return svg && svg.firstElementChild;
  }
  // The attributes the server drew on each live part ([data-live]), as they arrived: the page's
  // scripts change some (a pending move's classes and label) and add their own (a saved label),
  // so a patch applies to what the server drew, as a whole new element would.
  var drawn = new WeakMap();
  function attributesOf(el) { return Array.from(el.attributes, function (a) { return [a.name, a.value]; }); }
  function noteDrawn(scope) {
    var parts = scope.querySelectorAll ? Array.from(scope.querySelectorAll("[data-live]")) : [];
    if (scope.matches && scope.matches("[data-live]")) { parts.push(scope); }
    parts.forEach(function (el) { if (!drawn.has(el)) { drawn.set(el, attributesOf(el)); } });
  }
  noteDrawn(document);  // deferred: the page is parsed and no other script has run yet

  // A part as the server drew it: each live element ([data-live]) with the attributes it arrived
  // with (the page's scripts add some: a roving tabindex, a pending move's classes), and each run of
  // white space that holds a line break cut to one line break, as the socket sends it (render.tidy)
  // and the page served does not.
  function asDrawn(el) {
    var copy = el.cloneNode(true), walker = document.createTreeWalker(copy, NodeFilter.SHOW_TEXT), text;
    while ((text = walker.nextNode())) { text.nodeValue = text.nodeValue.replace(/\s*\n\s*/g, "\n"); }
    var mine = [el].concat(Array.from(el.querySelectorAll("[data-live]")));
    var its = [copy].concat(Array.from(copy.querySelectorAll("[data-live]")));
    mine.forEach(function (live, i) {
      var attributes = drawn.get(live);
      if (!attributes) { return; }
      Array.from(its[i].attributes).forEach(function (a) { its[i].removeAttribute(a.name); });
      attributes.forEach(function (pair) { its[i].setAttribute(pair[0], pair[1]); });
    });
    return copy;
  }
  function sameDrawing(incoming, target) { return asDrawn(incoming).isEqualNode(asDrawn(target)); }

  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var fragment = e.detail.fragment, target = e.detail.target;
    var incoming = fragment && fragment.firstElementChild;
    if (!incoming || !target) { return; }
    if (target.namespaceURI === SVG_NS && incoming.namespaceURI !== SVG_NS) {
      var rebuilt = asSvg(incoming);
      if (rebuilt) { fragment.replaceChild(rebuilt, incoming); incoming = rebuilt; }
    }
    // a part the page already shows exactly so (the socket's first full update repeats the page
    // just loaded) stays in place: a click or a tap under way on it is not lost to a redraw (its
    // press landed on the old element and its release on the new one: the host's first "Start
    // match" did nothing)
    if (incoming.id && incoming.id === target.id && !incoming.hasAttribute("data-keep") &&
        !incoming.hasAttribute("data-merge") && sameDrawing(incoming, target)) {
      e.detail.shouldSwap = false;
      return;
    }
    // a live part sent as a patch: only the attributes that changed (data-merge), those it lost
    // named in data-drop; the others as the server drew them on the page's element (for an
    // element of unknown origin, as the page holds them)
    var keep = incoming.hasAttribute("data-keep");
    incoming.removeAttribute("data-keep");
    if (incoming.hasAttribute("data-merge")) {
      var drop = (incoming.getAttribute("data-drop") || "").split(" ");
      incoming.removeAttribute("data-merge");
      incoming.removeAttribute("data-drop");
      (drawn.get(target) || attributesOf(target)).forEach(function (pair) {
        if (!incoming.hasAttribute(pair[0]) && drop.indexOf(pair[0]) < 0) { incoming.setAttribute(pair[0], pair[1]); }
      });
      drawn.set(incoming, attributesOf(incoming));
    }
    // a live part sent without its children (only its start tag changed): keep the page's children
    if (keep) {
      while (target.firstChild) { incoming.appendChild(target.firstChild); }
    }
    noteDrawn(fragment);
    keepEdits(target, incoming);
  });

  // A form being filled in keeps what its user chose when a live update redraws it (the host panel
  // is drawn anew after every host action and status change: a host half-way through "Who plays
  // seat 3: computer, strong" lost both choices, and a click then sent the defaults).  A control
  // keeps its user's value when the server still proposes the same default for it; focus stays
  // on the control being typed in.
  function formKey(form, seen) {
    var action = form.querySelector('input[type="hidden"][name="action"]');
    var key = [form.id, form.getAttribute("hx-post"), form.dataset.room, action ? action.value : ""].join("|");
    seen[key] = (seen[key] || 0) + 1;
    return key + "|" + seen[key];
  }
  function controlsOf(form) {
    var out = {}, count = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit" || el.type === "button") { return; }
      count[el.name] = (count[el.name] || 0) + 1;
      out[el.name + "#" + count[el.name]] = el;
    });
    return out;
  }
  // what the server proposes for a control ("" for a list with no option marked: its first shows)
  function defaultOf(el) {
    if (el.tagName === "SELECT") {
      var chosen = Array.prototype.filter.call(el.options, function (o) { return o.defaultSelected; });
      return chosen.length ? chosen[0].value : "";
    }
    if (el.type === "checkbox" || el.type === "radio") { return String(el.defaultChecked); }
    return el.defaultValue;
  }
  function untouched(el) {
    if (el.tagName === "SELECT") { return el.selectedIndex === Math.max(0, Array.prototype.findIndex.call(el.options, function (o) { return o.defaultSelected; })); }
    return valueOf(el) === defaultOf(el);
  }
  function valueOf(el) { return el.type === "checkbox" || el.type === "radio" ? String(el.checked) : el.value; }
  var refocus = null;
  function keepEdits(target, incoming) {
    if (!target.querySelectorAll) { return; }
    var oldForms = target.tagName === "FORM" ? [target] : Array.from(target.querySelectorAll("form"));
    if (!oldForms.length) { return; }
    var newForms = {}, seen = {};
    (incoming.tagName === "FORM" ? [incoming] : Array.from(incoming.querySelectorAll("form"))).forEach(function (f) {
      newForms[formKey(f, seen)] = f;
    });
    seen = {};
    oldForms.forEach(function (form) {
      var twin = newForms[formKey(form, seen)];
      if (!twin) { return; }
      var fresh = controlsOf(twin), old = controlsOf(form);
      Object.keys(old).forEach(function (name) {
        var el = old[name], now = fresh[name];
        if (!now || now.tagName !== el.tagName || now.type !== el.type) { return; }
        if (document.activeElement === el) { refocus = { el: now, start: el.selectionStart, end: el.selectionEnd }; }
        if (untouched(el) || defaultOf(now) !== defaultOf(el)) { return; }
        if (el.type === "checkbox" || el.type === "radio") { now.checked = el.checked; return; }
        if (el.tagName === "SELECT" && !Array.prototype.some.call(now.options, function (o) { return o.value === el.value; })) { return; }
        now.value = el.value;
      });
    });
  }
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!refocus || !refocus.el.isConnected) { refocus = null; return; }
    refocus.el.focus();
    try { if (refocus.start !== null && refocus.start !== undefined) { refocus.el.setSelectionRange(refocus.start, refocus.end); } } catch (err) { /* number inputs have no selection */ }
    refocus = null;
  });
  document.addEventListener("htmx:wsAfterMessage", readMeta);
  document.addEventListener("htmx:afterSettle", readMeta);
  document.addEventListener("htmx:afterRequest", function () { setTimeout(readMeta, 0); });
  // body[data-socket]: "open" while the page's socket is, "closed" while it reconnects (app.css
  // shows "reconnecting…"; browser tests wait on "open")
  document.addEventListener("htmx:wsClose", function () { document.body.dataset.socket = "closed"; });
  document.addEventListener("htmx:wsOpen", function () { document.body.dataset.socket = "open"; });

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
