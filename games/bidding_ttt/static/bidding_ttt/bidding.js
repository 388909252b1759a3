// Bidding 3D Tic-Tac-Toe: the bid builder.  Clicking tiles composes the
// canonical bid ("A1 3; E5 2"); the composer (static/js/composer.js) owns the
// move box, so clicking and typing are one path to the server.  The script
// knows no rules: the server marks each tile it may not take (data-blocked,
// with the reason), the round-1 pairs that would complete three in a line with
// it (data-pairs) and how many boards a bid may cover (data-max-boards); the
// script only applies that data to the draft.
(function () {
  "use strict";
  var draft = [];   // the pending bid: [{tile: "E5", chips: 3}], sorted by tile like the canonical form
  var key = null;   // which board state the draft belongs to (bout, round, own sealed bid)
  var focusNext = null;  // the tile whose amount takes the focus once the rows are drawn

  function bt() { return document.getElementById("bt"); }
  function byId(id) { return document.getElementById(id); }
  function canBid() { var b = bt(); return !!(b && byId("bt-builder") && b.dataset.canBid === "1"); }
  function tileEl(name) { return document.querySelector('#bt .bt-tile[data-coord="' + name + '"]'); }
  function find(name) {
    for (var i = 0; i < draft.length; i++) { if (draft[i].tile === name) { return draft[i]; } }
    return null;
  }
  function canonical(bids) { return bids.map(function (b) { return b.tile + " " + b.chips; }).join("; "); }
  function total() { return draft.reduce(function (n, b) { return n + b.chips; }, 0); }
  function note(msg, bad) {
    var el = byId("bt-note");
    if (el) { el.textContent = msg; el.classList.toggle("bad", !!bad); }
  }

  // canonical text -> bids; null when the text is something else (natural phrasing)
  function parse(text) {
    var s = (text || "").trim();
    if (!s || /^pass$/i.test(s)) { return []; }
    var out = [], ok = true;
    s.split(";").forEach(function (part) {
      var m = /^\s*([A-Ia-i][1-9])\s+(\d{1,6})\s*$/.exec(part);
      if (!m) { ok = false; return; }
      out.push({ tile: m[1].toUpperCase(), chips: parseInt(m[2], 10) });
    });
    return ok ? out.sort(order) : null;
  }
  function order(a, b) { return a.tile < b.tile ? -1 : a.tile > b.tile ? 1 : 0; }

  // why `name` may not join the draft now ("" when it may), from the server's data
  function why(name) {
    var el = tileEl(name), root = bt();
    if (!el || !root) { return "there is no tile " + name; }
    if (el.dataset.blocked) { return el.dataset.blocked; }
    var pairs = (el.dataset.pairs || "").split(",").filter(Boolean);
    for (var i = 0; i < pairs.length; i++) {
      var two = pairs[i].split(" ");
      if (find(two[0]) && find(two[1])) {
        return "it would make three in a line with " + two[0] + " and " + two[1] + " (round 1)";
      }
    }
    var max = parseInt(root.dataset.maxBoards || "9", 10), boards = {};
    draft.forEach(function (b) { boards[b.tile.charAt(0)] = true; });
    var letters = Object.keys(boards).sort();
    if (!boards[name.charAt(0)] && letters.length >= max) {
      return "it would be a third board: a round-2 bid covers at most " + max + " boards (yours: " +
        letters.join(" and ") + ")";
    }
    return "";
  }

  // a click on a tile: the draft with it at 1 chip, or undefined (already in it, or refused)
  function add(name, el, pending) {
    draft = pending;
    if (find(name)) { focusNext = name; return undefined; }
    var reason = why(name);
    if (reason) {
      note(name + " is not allowed: " + reason + ".", true);
      el.classList.remove("refused");
      void el.offsetWidth;  // restart the shake
      el.classList.add("refused");
      return undefined;
    }
    note(name + " added at 1 chip.");
    focusNext = name;
    return draft.concat([{ tile: name, chips: 1 }]).sort(order);
  }

  function focusAmount(name) {
    var input = document.querySelector('#bt-list input[data-tile="' + name + '"]');
    if (input && window.matchMedia("(hover: hover)").matches) { input.focus(); input.select(); }
  }

  function setChips(name, chips) {
    var b = find(name);
    if (!b) { return; }
    b.chips = Math.max(1, Math.min(999999, chips || 1));
    window.Composer.set(draft);
  }

  function remove(name) {
    note(name + " removed from your bid.");
    window.Composer.set(draft.filter(function (b) { return b.tile !== name; }));
  }

  function render(pending) {
    draft = pending;
    var root = bt();
    if (!root || !byId("bt-builder")) { return; }  // a page without the builder: nothing to draw
    var card = byId("move-card");
    if (card) { card.hidden = root.dataset.finished === "1"; }  // nothing left to bid on
    var active = canBid();
    document.querySelectorAll("#bt .bt-tile").forEach(function (el) {
      var name = el.dataset.coord;
      if (!el.dataset.label) { el.dataset.label = el.getAttribute("aria-label") || name; }
      var b = active ? find(name) : null;
      var reason = active && !b && !el.dataset.blocked ? why(name) : "";
      el.classList.toggle("drafted", !!b);
      el.classList.toggle("nope", !!reason);
      el.querySelector(".amt").textContent = b ? String(b.chips) : "";
      if (b) {
        // the visible text ("E5 3") starts the name, as screen-reader users hear it
        el.setAttribute("aria-label", name + " " + b.chips + ", in your bid: " + b.chips + " chip" + (b.chips === 1 ? "" : "s"));
      } else if (reason) {
        el.setAttribute("aria-label", name + ", empty, not allowed: " + reason);
        el.title = name + ": not allowed, " + reason;
      } else {
        el.setAttribute("aria-label", el.dataset.label);
        if (!el.dataset.blocked) { el.removeAttribute("title"); }
      }
    });
    var builder = byId("bt-builder");
    if (builder) { builder.hidden = !active; }
    var list = byId("bt-list");
    if (list) { syncRows(list); }
    var sum = byId("bt-total");
    if (sum) {
      var have = parseInt(root.dataset.chips || "0", 10), n = total();
      sum.textContent = draft.length
        ? "Total " + n + " of your " + have + " chips" + (n > have ? ": " + (n - have) + " more than you have" : "")
        : "No tiles in your bid yet (" + have + " chips left).";
      sum.classList.toggle("over", n > have);
    }
    if (focusNext) { focusAmount(focusNext); focusNext = null; }
  }

  // rows are rebuilt only when the tiles change: a rebuild would drop the focus, or the
  // button under a pointer that is half-way through a click
  function syncRows(list) {
    var names = Array.prototype.map.call(list.children, function (li) { return li.dataset.tile; });
    if (names.join() !== draft.map(function (b) { return b.tile; }).join()) {
      list.replaceChildren.apply(list, draft.map(row));
      return;
    }
    draft.forEach(function (b, i) {
      var input = list.children[i].querySelector("input");
      if (document.activeElement !== input) { input.value = b.chips; }
    });
  }

  function row(b) {
    var li = document.createElement("li");
    li.dataset.tile = b.tile;
    li.innerHTML =
      '<span class="t">' + b.tile + "</span>" +
      '<button type="button" class="step" data-step="-1" aria-label="one chip less on ' + b.tile + '">−</button>' +
      '<input type="number" inputmode="numeric" min="1" step="1" value="' + b.chips + '" data-tile="' + b.tile +
      '" aria-label="chips on ' + b.tile + '">' +
      '<button type="button" class="step" data-step="1" aria-label="one chip more on ' + b.tile + '">+</button>' +
      '<button type="button" class="rm" aria-label="remove ' + b.tile + ' from your bid">×</button>';
    return li;
  }

  // the board was redrawn: a new round or a new sealed bid of ours starts the draft
  // afresh from that bid; the opponent submitting keeps what we are composing
  function sync() {
    var root = bt();
    if (!root || !byId("bt-builder")) { return undefined; }
    var k = [root.dataset.bout, root.dataset.round, root.dataset.done, root.dataset.submitted, root.dataset.sealed].join("|");
    if (k === key) { return undefined; }
    key = k;
    var sealed = root.dataset.submitted === "1" ? parse(root.dataset.sealed) : [];
    if (root.dataset.submitted === "1") {
      note(sealed && sealed.length ? "Your sealed bid is shown: change it and submit again to replace it." : "You passed this round.");
    } else { note(""); }
    return sealed || [];
  }

  window.Composer.register("bidding", {
    empty: function () { return []; },
    text: canonical,
    parse: function (text) {
      var typed = parse(text);
      if (typed === null) { note("Typed bids are sent as written."); }
      return typed;
    },
    active: canBid,
    click: add,
    draw: render,
    sync: sync,
    changed: function () { return undefined; },  // sync decides, from the redrawn board
    clear: function () { note(""); return []; },
    // the platform's move row says "Play"; a bid is a sealed submission
    submitLabel: function () { return "Submit sealed bid"; },
    placeholder: "or type bids, e.g. A1 3; E5 2"
  });

  document.addEventListener("click", function (e) {
    if (!bt() || !e.target.closest) { return; }
    var li = e.target.closest("#bt-list li");
    if (li) {
      var step = e.target.closest("button.step"), b = find(li.dataset.tile);
      if (step && b) { setChips(b.tile, b.chips + parseInt(step.dataset.step, 10)); return; }
      if (e.target.closest("button.rm")) { remove(li.dataset.tile); }
      return;
    }
    if (e.target.closest("#bt-pass")) { window.Composer.submit("pass"); }
  });
  document.addEventListener("input", function (e) {
    if (bt() && e.target.matches && e.target.matches("#bt-list input")) {
      var b = find(e.target.dataset.tile), n = parseInt(e.target.value, 10);
      if (b && n >= 1) { b.chips = Math.min(999999, n); window.Composer.set(draft); }
    }
  });
  document.addEventListener("change", function (e) {
    if (e.target.matches && e.target.matches("#bt-list input")) {
      setChips(e.target.dataset.tile, parseInt(e.target.value, 10));
    }
  });
})();
