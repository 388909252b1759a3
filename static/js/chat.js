// The match chat: room tabs, unread counts (per room and in all; on phones the chat opens from a
// button in the top bar, as a sheet at the bottom of the screen), one copy of each line (the socket
// and a post's reply may both bring it), the panel fetched again when the host changed the rooms,
// the box cleared once a line is taken.  The arrow keys stay in the chat box (static/js/keys.js
// moves only on the board).
(function () {
  "use strict";
  var store = window.sessionStorage;
  var key = function (room) { return "dm-chat-seen:" + location.pathname + ":" + room; };
  var active = null;     // the room shown
  var toggle = null;     // the phone's "Chat" button (in the top bar)

  function panel() { return document.getElementById("chat"); }
  function rooms() { return Array.prototype.slice.call(document.querySelectorAll("#chat .chat-room")); }
  function isOpen() { return !toggle || getComputedStyle(toggle).display === "none" || document.body.classList.contains("chat-open"); }
  function seen(room) { return +(store.getItem(key(room)) || 0); }
  function lastId(room) {
    var items = document.querySelectorAll("#chat-list-" + room + " > li[data-id]");
    return items.length ? +items[items.length - 1].dataset.id : 0;
  }
  function markRead(room) { if (room) { store.setItem(key(room), String(Math.max(seen(room), lastId(room)))); } }

  function dedupe() {
    var ids = {};
    document.querySelectorAll("#chat .chat-list > li[data-id]").forEach(function (li) {
      if (ids[li.id]) { li.remove(); } else { ids[li.id] = true; }
    });
    // out-of-band appends arrive wrapped in an <ol>: htmx unwraps them, nothing else to do
  }

  function count() {
    var me = (panel() || { dataset: {} }).dataset.viewer, total = 0;
    if (active && isOpen()) { markRead(active); }
    rooms().forEach(function (div) {
      var room = div.dataset.room, since = seen(room), n = 0;
      div.querySelectorAll(".chat-list > li[data-id]").forEach(function (li) {
        if (+li.dataset.id > since && li.dataset.writer !== me && !li.classList.contains("removed")) { n++; }
      });
      var badge = document.querySelector("#chat-tab-" + room + " .chat-unread");
      if (badge) { badge.textContent = n; badge.hidden = n === 0; }
      total += n;
    });
    var all = document.getElementById("chat-unread-total");
    if (all) { all.textContent = total; all.hidden = total === 0; }
    if (toggle) {
      var b = toggle.querySelector(".chat-unread");
      b.textContent = total; b.hidden = total === 0;
      var word = document.body.classList.contains("chat-open") ? "Close chat" : "Chat";
      toggle.querySelector(".chat-toggle-word").textContent = word;
      toggle.setAttribute("aria-label", total ? word + ", " + total + " unread" : word);
    }
  }

  function show(room) {
    var found = false;
    rooms().forEach(function (div) { if (div.dataset.room === room) { found = true; } });
    if (!found) { var first = rooms()[0]; room = first ? first.dataset.room : null; }
    active = room;
    rooms().forEach(function (div) {
      div.hidden = div.dataset.room !== room;
      var tab = document.getElementById("chat-tab-" + div.dataset.room);
      if (tab) { tab.setAttribute("aria-selected", div.dataset.room === room ? "true" : "false"); }
    });
    scrollDown();
    count();
  }

  function scrollDown() {
    document.querySelectorAll("#chat .chat-list").forEach(function (list) { list.scrollTop = list.scrollHeight; });
  }

  // The host's "Mute" list: the server draws it with the panel (each seat, each spectator who
  // wrote, newest first); a spectator who writes afterwards is offered as soon as their line comes,
  // so the host never reloads the page to mute them.
  function offerWriters() {
    var select = document.querySelector("#chat .chat-mute-form select[name=writer]");
    if (!select) { return; }
    var known = {}, first = null;
    Array.prototype.forEach.call(select.options, function (o) {
      known[o.value] = true;
      if (!first && o.value.indexOf("spectator-") === 0) { first = o; }
    });
    document.querySelectorAll("#chat .chat-list > li[data-writer^='spectator-']").forEach(function (li) {
      var who = li.querySelector(".chat-who");
      if (known[li.dataset.writer] || !who) { return; }
      known[li.dataset.writer] = true;
      first = select.insertBefore(new Option(who.textContent.replace(/\s+/g, " ").trim(), li.dataset.writer), first);
    });
  }

  function refresh() { dedupe(); offerWriters(); show(active); }

  document.addEventListener("click", function (e) {
    var tab = e.target.closest && e.target.closest("#chat .chat-tab");
    if (tab) { show(tab.dataset.room); var box = document.querySelector("#chat-room-" + tab.dataset.room + " .chat-text"); if (box) { box.focus(); } return; }
    if (toggle && e.target.closest && e.target.closest(".chat-toggle")) {
      document.body.classList.toggle("chat-open");
      toggle.setAttribute("aria-expanded", document.body.classList.contains("chat-open") ? "true" : "false");
      show(active);
    }
  });

  // the whole panel replaced (on connect, after a host's change): keep the room shown and what was typed
  var typed = {}, moderating = false;
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    if (!e.detail.target || e.detail.target.id !== "chat") { return; }
    typed = {};
    var details = document.querySelector("#chat .chat-moderate");
    moderating = !!(details && details.open);
    document.querySelectorAll("#chat .chat-text").forEach(function (box) { if (box.value) { typed[box.form.dataset.room] = box.value; } });
    // a panel drawn before the latest lines arrived (its fetch raced them over the socket): the
    // page keeps those lines, after the panel's newest one in the same room
    var incoming = e.detail.fragment && e.detail.fragment.firstElementChild;
    if (!incoming) { return; }
    // the host's "Writer muted." stays when the panel every page fetches after a mute comes in
    // and so does a writer's own error ("The host muted you…") when that panel lands after it;
    // the next line sent successfully hides it
    document.querySelectorAll("#chat-flash, #chat .chat-error[id]").forEach(function (shown) {
      var fresh = incoming.querySelector("#" + shown.id);
      if (fresh && !shown.hidden && shown.textContent.trim() && !fresh.textContent.trim()) {
        fresh.textContent = shown.textContent;
        fresh.hidden = false;
      }
    });
    document.querySelectorAll("#chat .chat-list[id]").forEach(function (list) {
      var twin = incoming.querySelector("#" + list.id);
      if (!twin) { return; }  // the room is gone from this page (closed to it, or switched off)
      var items = twin.querySelectorAll(":scope > li[data-id]");
      var newest = items.length ? +items[items.length - 1].dataset.id : 0;
      list.querySelectorAll(":scope > li[data-id]").forEach(function (li) {
        if (+li.dataset.id > newest) { twin.appendChild(li.cloneNode(true)); }
      });
    });
  });
  document.addEventListener("htmx:oobAfterSwap", function (e) {
    // htmx fires this on every element settled with the swap: over the socket, on the socket's own
    // element too, which fetched the panel twice after each change of the rooms (and the second
    // redraw could land between a press and a release of "Send", which then sent nothing).  The
    // panel itself is merged into the page's (idiomorph, static/js/live.js): it is never one of them.
    var id = e.detail.target && e.detail.target.id;
    if (!id || (e.target.id !== id && id !== "chat")) { return; }
    if (id === "chat-stale") { if (window.htmx) { htmx.ajax("GET", "chat/", { target: "#chat-stale", swap: "none" }); } return; }
    if (id === "chat") {
      Object.keys(typed).forEach(function (room) {
        var box = document.querySelector("#chat-room-" + room + " .chat-text");
        if (box) { box.value = typed[room]; }
      });
      var details = document.querySelector("#chat .chat-moderate");
      if (details && moderating) { details.open = true; }
      refresh();  // (the Mute list also offers writers of lines the page kept over a panel drawn before them)
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    setTimeout(refresh, 0);
    // the spectators' room, delayed to players until the match ends: it ended, fetch the panel
    var p = panel();
    if (p && p.dataset.delayed === "1" && document.querySelector("#status.finished") && window.htmx) {
      p.dataset.delayed = "";
      htmx.ajax("GET", "chat/", { target: "#chat-stale", swap: "none" });
    }
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    // (a form the reply replaced is no longer in #chat: known by its class; htmx then tells the
    // nearest element still on the page, and the form is the request's own element)
    var source = (e.detail.requestConfig && e.detail.requestConfig.elt) || e.detail.elt;
    var form = source && source.closest && source.closest("form");
    if (!form || !/\bchat-/.test(form.className)) { return; }
    setTimeout(function () {
      refresh();
      var error = form.dataset.room ? document.getElementById("chat-error-" + form.dataset.room) : null;
      if (e.detail.successful && form.classList.contains("chat-form") && (!error || error.hidden)) {
        // (the room's box on the page now: a panel drawn meanwhile replaced the form that sent)
        var box = document.querySelector("#chat-room-" + form.dataset.room + " .chat-text");
        if (box) { box.value = ""; box.focus(); }
      }
      // a mute that was done (a refusal shows in #chat-flash as an error): its form is empty again
      // (the panel the reply drew anew kept the typed reason: a merge keeps a form's edits, live.js)
      var flash = document.getElementById("chat-flash");
      if (e.detail.successful && form.classList.contains("chat-mute-form") && !(flash && flash.classList.contains("chat-error"))) {
        var reason = document.querySelector("#chat .chat-mute-form input[name=reason]");
        if (reason) { reason.value = ""; }
      }
    }, 0);
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (!panel()) { return; }
    document.body.classList.add("chat-js");
    toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "chat-toggle";
    toggle.setAttribute("aria-controls", "chat");
    toggle.setAttribute("aria-expanded", "false");
    toggle.innerHTML = '<span class="chat-toggle-word">Chat</span> <span class="chat-unread" hidden></span>';
    // in the top bar's flow (shown on phones only, chat.css): a button floating over the page
    // covered the edge of the board and its legend
    (document.querySelector(".topbar") || document.body).appendChild(toggle);
    var wanted = location.hash.indexOf("#chat-room-") === 0 ? location.hash.slice(11) : null;
    show(wanted);
    if (wanted && getComputedStyle(toggle).display !== "none") { document.body.classList.add("chat-open"); show(wanted); }
  });
  window.addEventListener("resize", function () { count(); });
})();
