// The move composer, one for every game.  It owns the move box (#move-text),
// the pending move, typing, the Clear button (#move-clear), the submit button
// (#move-submit) and starting afresh when the board changes; clicking and
// typing are one path to the server.  A game's click script knows no rules and
// no page plumbing: it registers the boards it draws (their points carry
// data-board and data-coord) and maps clicks on them to notation:
//
//   Composer.register(["squava", "gomoku", "yinsh"], {
//     empty: function () { return []; },                     // a fresh pending move (required)
//     text: function (pending) { return "squava C3"; },      // its notation, for the box (required)
//     click: function (coord, el, pending) { ... },          // after a click on a point: the new pending
//                                                            //   move, or undefined when it is unchanged
//     parse: function (text, pending) { ... },               // typed text -> the pending move it names,
//                                                            //   or null (the text is sent as typed)
//     draw: function (pending) { ... },                      // ghosts, lists, messages: after every change
//                                                            //   and every live update
//     sync: function (pending) { ... },                      // after a live update: a pending move to start
//                                                            //   from (a new round), or undefined
//     changed: function (pending) { ... },                   // a move was played or undone: default empty();
//                                                            //   undefined keeps composing
//     clear: function (pending) { ... },                     // the Clear button: default empty()
//     active: function () { ... },                           // may clicks compose now (default: the move
//                                                            //   form is on the page)
//     box: function () { ... },                              // the box (default #move-text)
//     submitLabel: function (pending) { ... },               // the submit button's text (default: as drawn)
//     placeholder: "or type bids, e.g. A1 3; E5 2",          // the box's placeholder (default: as drawn)
//     eachSwap: true,                                        // draw after every swapped live part too
//     complete: function (pending) { ... },                  // the pending move is a whole turn of single
//                                                            //   placements: sent on the click when the
//                                                            //   player chose "send on click"
//     sending: function (pending) { ... },                   // the move form is being sent with this move
//     answered: function (ok, reply) { ... },                // the move form's request ended: ok when it
//                                                            //   went through, reply the server's HTML
//     say: function (message, el) { ... }                    // where a refused click's sentence goes
//                                                            //   (default: #move-error)
//   });
//
// A point the player may not click carries data-refuse, the rules' sentence why ("B2 is not a
// corner: the first move goes on a corner"), rendered by the server from the game's view (as
// chessground is told the legal destinations): the click says it and composes nothing.
//
// and its own controls (chips, directions, garnets) change the pending move
// with Composer.set(pending); Composer.pending(), Composer.click(el),
// Composer.submit(text) and Composer.refresh() complete the API.
(function () {
  "use strict";
  var specs = {};       // board name -> the spec registered for it
  var current = null;   // the spec the pending move belongs to
  var pending = null;
  var typed = null;     // text typed into the box, kept as typed until a click or a new start

  function byId(id) { return document.getElementById(id); }
  function form() { return byId("move-form"); }
  function noop() {}

  // the spec of the game on this page: the first registered board that is drawn
  function spec() {
    var names = Object.keys(specs);
    for (var i = 0; i < names.length; i++) {
      if (document.querySelector('[data-board="' + names[i] + '"]')) { return specs[names[i]]; }
    }
    return null;
  }
  function box(s) { return (s && s.box ? s.box() : null) || byId("move-text"); }
  function active(s) { return s.active ? s.active() : !!form(); }
  function start(s) {
    if (s !== current) { current = s; pending = s.empty(); typed = null; }
    return s;
  }

  function write(s) {
    var t = box(s);
    if (!t) { return; }
    var text = typed !== null ? typed : s.text(pending);
    if (t.value !== text) { t.value = text; }
  }
  function dress(s) {
    var submit = byId("move-submit"), t = byId("move-text");
    if (submit) {
      if (submit.dataset.label === undefined) { submit.dataset.label = submit.textContent; }
      var label = (s.submitLabel && s.submitLabel(pending)) || submit.dataset.label;
      if (submit.textContent !== label) { submit.textContent = label; }
    }
    if (t && s.placeholder && t.placeholder !== s.placeholder) { t.placeholder = s.placeholder; }
  }
  function show(s) { write(s); dress(s); (s.draw || noop)(pending); }

  // a new pending move (undefined: the same one, drawn again)
  function replace(s, next) {
    if (next !== undefined) { pending = next; typed = null; }
    show(s);
  }

  var refused = false;  // #move-error holds a refused click's sentence (hidden again by the next click)
  function refuse(s, message, el) {
    if (s.say) { s.say(message, el); return; }
    var out = byId("move-error");
    if (!out) { return; }
    out.textContent = message;
    out.hidden = false;
    refused = true;
  }

  function click(el) {
    var s = specs[el.dataset.board];
    if (!s) {
      // a board no script registered: the click names its square in the box
      var t = byId("move-text");
      if (t && form() && el.closest("#board")) { t.value = (t.value ? t.value + " " : "") + el.dataset.coord; typed = t.value; }
      return;
    }
    if (!active(start(s))) { return; }
    if (el.dataset.refuse) { refuse(s, el.dataset.refuse, el); return; }
    if (refused) { refused = false; var said = byId("move-error"); if (said && !s.say) { said.hidden = true; } }
    var next = s.click ? s.click(el.dataset.coord, el, pending) : undefined;
    replace(s, next);
    if (next !== undefined && sendOnClick() && s.complete && s.complete(pending)) {
      var f = form(), submit = byId("move-submit");
      if (f && submit && !submit.disabled) { f.requestSubmit(submit); }  // shown pending until the answer
    }
  }

  // "Send a placement on the click": a choice of this browser, for games whose spec says when a
  // pending move is a whole turn of single placements (Squava, Gomoku, a Yinsh ring; not Lance
  // Assembly, whose placement a slide may follow: the composer cannot know the player is done)
  var SEND_KEY = "dm-send-on-click";
  function sendOnClick() {
    var box = byId("send-on-click");
    return !!(box && box.checked);
  }
  function offerSendOnClick() {
    var label = byId("send-on-click-label"), box = byId("send-on-click"), s = spec();
    if (!label || !box) { return; }
    label.hidden = !(s && s.complete);
    try { box.checked = localStorage.getItem(SEND_KEY) === "1"; } catch (err) { /* private mode: off */ }
  }
  document.addEventListener("change", function (e) {
    if (!e.target || e.target.id !== "send-on-click") { return; }
    try { localStorage.setItem(SEND_KEY, e.target.checked ? "1" : "0"); } catch (err) { /* private mode */ }
  });
  document.addEventListener("DOMContentLoaded", offerSendOnClick);

  function clear() {
    var s = spec();
    var err = byId("move-error");
    if (err) { err.hidden = true; }
    if (!s) { var t = byId("move-text"); if (t) { t.value = ""; } typed = null; return; }
    start(s);
    replace(s, s.clear ? s.clear(pending) : s.empty());
  }

  function refresh() {
    var s = spec();
    if (!s) { return; }
    start(s);
    var next = s.sync ? s.sync(pending) : undefined;
    replace(s, next);
  }

  document.addEventListener("click", function (e) {
    if (!e.target.closest) { return; }
    if (e.target.closest("#move-clear")) { clear(); return; }
    var el = e.target.closest("[data-board][data-coord]");
    if (el) { click(el); }
  });
  document.addEventListener("input", function (e) {
    var s = spec();
    if (!s || e.target !== box(start(s))) { return; }
    typed = e.target.value;
    var read = s.parse ? s.parse(typed, pending) : null;
    pending = read === null || read === undefined ? s.empty() : read;
    dress(s);
    (s.draw || noop)(pending);
  });
  // the board changed (a move was played or undone): start composing afresh
  document.addEventListener("dm:board-changed", function () {
    var s = spec();
    if (!s) { var t = byId("move-text"); if (t) { t.value = ""; } typed = null; return; }
    start(s);
    var next = s.changed ? s.changed(pending) : s.empty();
    if (next !== undefined) { pending = next; typed = null; }
    refresh();
  });
  // a live update redrew the board: put the pending move back on it
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);
  // (a game whose points are live parts, swapped one by one, asks to be drawn after each: eachSwap)
  document.addEventListener("htmx:oobAfterSwap", function () { var s = spec(); if (s && s.eachSwap) { show(start(s)); } });
  document.addEventListener("submit", function (e) {
    var s = spec();
    if (e.target === form() && s && s.sending) { s.sending(pending); }
  }, true);
  // a refused move: its message is brought into view (below the board it could sit under the fold)
  document.addEventListener("htmx:afterRequest", function (e) {
    if (!e.detail.elt || e.detail.elt.id !== "move-form") { return; }
    var s = spec();
    if (s && s.answered) { s.answered(!!e.detail.successful, e.detail.xhr ? e.detail.xhr.responseText || "" : ""); }
    setTimeout(function () {
      var err = byId("move-error");
      if (err && !err.hidden && err.textContent.trim()) { err.scrollIntoView({ block: "nearest" }); }
    }, 0);
  });
  // the move carries the player's think time (netclock.js measures it; the server's lag quota)
  document.addEventListener("htmx:configRequest", function (e) {
    if (!e.detail.elt || e.detail.elt.id !== "move-form" || !window.dmThinkTime) { return; }
    // a move sent again (retry.js) goes as it was sent, its think time too: measured again, it
    // differed whenever the page had not yet heard that the first one went through
    if (e.detail.headers && e.detail.headers["X-Retry"]) { return; }
    var think = window.dmThinkTime();
    if (think !== null) { e.detail.parameters.think = think.toFixed(3); }
  });
  // (a deferred script: every game's script has registered by then)
  document.addEventListener("DOMContentLoaded", refresh);

  window.Composer = {
    register: function (boards, s) { [].concat(boards).forEach(function (name) { specs[name] = s; }); },
    pending: function () { return pending; },
    set: function (next) { var s = spec(); if (s) { start(s); replace(s, next); } },
    click: click,
    refresh: refresh,
    submit: function (text) {
      var s = spec(), t = box(s), f = form();
      if (s) { start(s); typed = text; var read = s.parse ? s.parse(text, pending) : null; pending = read || s.empty(); }
      if (t) { t.value = text; }
      if (s) { dress(s); (s.draw || noop)(pending); }
      if (f) { f.requestSubmit(byId("move-submit")); }
    }
  };
})();
