// Two Connect (and Squava, Gomoku, Yinsh alone): clicks compose the whole turn
// ("squava C3; gomoku H7", "yinsh ring E5", "yinsh E5-E8") through the composer
// (static/js/composer.js), which owns the move box; ghosts preview the pending parts.  This script knows no rules: the server renders what each click
// would be refused with (data-no, in the server's words; data-taken-no on a board is the
// sentence for any occupied point, "{at}" standing for it), the legal ring destinations
// and the markers each ring move flips (#tc-ring-moves).  It only composes notation.
// Whose turn it is (moves needed, the page's refusal) is read from #tc-turn, a live part:
// a live update swaps it and the points that changed, not the whole board.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var parts = [];     // the pending turn: {board, text, at: [coords], kind: stone|ring|move|raw, from, to, flips}
  var picked = null;  // the Yinsh ring chosen to move (a coord)
  var tab = null;     // the board the player chose to see on a phone
  var busy = null;    // the point handled in this task (a key press and its synthetic click are one)

  function root() { return document.getElementById("tc-root"); }
  function turn() { var t = document.getElementById("tc-turn"); return t ? t.dataset : {}; }
  function board(word) { return document.querySelector('#tc-root .tc-board[data-word="' + word + '"]'); }
  function point(word, coord) {
    return document.querySelector('#tc-root .pt[data-board="' + word + '"][data-coord="' + coord + '"]');
  }
  function ringMoves() {
    var el = document.getElementById("tc-ring-moves");
    if (!el) { return {}; }
    try { return JSON.parse(el.textContent) || {}; } catch (err) { return {}; }
  }

  // -- messages --------------------------------------------------------------
  function quiet() {
    document.querySelectorAll("#tc-root .tc-say").forEach(function (el) { el.hidden = true; el.textContent = ""; });
  }
  function say(where, message) {
    quiet();
    if (!message) { return; }
    var el = where && where.querySelector(".tc-say");
    if (!el) { return; }
    var text = message.charAt(0).toUpperCase() + message.slice(1) + (/[.!?]$/.test(message) ? "" : ".");
    el.textContent = text;
    el.hidden = false;
    // it covers the top of the board: it goes after a while (or at the next click)
    setTimeout(function () { if (el.textContent === text) { el.hidden = true; el.textContent = ""; } }, 8000);
  }

  // -- composing (each returns the new pending turn, or undefined when it is unchanged) ----
  function text(turn) { return turn.map(function (p) { return p.text; }).join("; "); }

  function pendingAt(word, coord) {
    for (var i = 0; i < parts.length; i++) {
      if (parts[i].board === word && parts[i].at.indexOf(coord) >= 0) { return i; }
    }
    return -1;
  }

  function setPart(part, where) {
    var r = root();
    var same = -1;
    for (var i = 0; i < parts.length; i++) { if (parts[i].board === part.board) { same = i; } }
    if (same >= 0) {
      parts[same] = part;  // another point on the same board replaces that board's move
    } else if (r.dataset.solo === "1") {
      parts = [part];
    } else {
      var need = parseInt(turn().need, 10) || 1;
      var counted = parts.filter(function (p) { return p.board; }).length;
      if (counted >= need) { say(where, need === 1 ? turn().one : r.dataset.three); return undefined; }
      parts.push(part);
    }
    quiet();
    return parts;
  }

  function activate(coord, pt, pending) {
    var r = root();
    if (!r || busy === pt) { return undefined; }
    busy = pt; setTimeout(function () { busy = null; }, 0);
    parts = pending.slice();
    var word = pt.dataset.board, where = pt.closest(".tc-board");
    if (turn().no) { say(where, turn().no); return undefined; }
    var i = pendingAt(word, coord);
    if (i >= 0) { parts.splice(i, 1); picked = null; quiet(); return parts; }  // take a pending move back
    if (where.dataset.no) { say(where, where.dataset.no); return undefined; }
    if (word === "yinsh" && where.dataset.phase === "move") { return yinsh(pt, where, coord); }
    var no = refusal(pt, where);
    if (no) { say(where, no); return undefined; }
    if (word === "yinsh") { return setPart({ board: word, text: "yinsh ring " + coord, at: [coord], kind: "ring" }, where); }
    return setPart({ board: word, text: word + " " + coord, at: [coord], kind: "stone" }, where);
  }

  // a point's own data-no (even empty) wins; an occupied point otherwise says its board's data-taken-no
  function refusal(pt, where) {
    if (pt.hasAttribute("data-no")) { return pt.dataset.no; }
    return pt.dataset.v && where.dataset.takenNo ? where.dataset.takenNo.replace("{at}", pt.dataset.coord) : "";
  }

  function yinsh(pt, where, coord) {
    var moves = ringMoves();
    if (moves[coord]) { picked = picked === coord ? null : coord; quiet(); return undefined; }
    if (picked && moves[picked]) {
      var ring = moves[picked];
      if (ring.to[coord]) {
        var from = picked;
        picked = null;
        return setPart({ board: "yinsh", text: "yinsh " + from + "-" + coord, at: [from, coord], kind: "move",
                         from: from, to: coord, flips: ring.to[coord] }, where);
      }
      say(where, ring.no[coord] || ring.off.replace("{to}", coord));
      return undefined;
    }
    say(where, pt.dataset.no || where.dataset.loneNo || "");
    return undefined;
  }

  // typing fills the same box: read the parts back to preview them
  var PART = /^\s*(squava|yinsh|gomoku)?\s*(ring\s+)?([a-n]\d{1,2})(?:\s*-\s*([a-k]\d{1,2}))?\s*$/i;
  function fromText(text) {
    quiet();
    var r = root(), solo = r && r.dataset.solo === "1";
    var only = solo ? (document.querySelector("#tc-root .tc-board") || { dataset: {} }).dataset.word : null;
    var moves = ringMoves();
    parts = text.split(";").map(function (raw) {
      var m = PART.exec(raw), word = m && (m[1] ? m[1].toLowerCase() : only);
      if (!m || !word) { return { board: null, text: raw.trim(), at: [], kind: "raw" }; }
      var a = m[3].toUpperCase(), b = m[4] ? m[4].toUpperCase() : null;
      if (word === "yinsh" && b) {
        var flips = moves[a] && moves[a].to[b] ? moves[a].to[b] : [];
        return { board: word, text: raw.trim(), at: [a, b], kind: "move", from: a, to: b, flips: flips };
      }
      if (b) { return { board: null, text: raw.trim(), at: [], kind: "raw" }; }
      return { board: word, text: raw.trim(), at: [a], kind: word === "yinsh" ? "ring" : "stone" };
    }).filter(function (p) { return p.text; });
    picked = null;
    return parts;
  }

  function reset() { picked = null; quiet(); return []; }

  // -- drawing the pending parts ---------------------------------------------
  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text) { node.textContent = text; }
    return node;
  }
  function sizes(word) {
    var b = board(word);
    return b ? b.dataset : {};
  }
  function mine(kind) { return kind + root().dataset.me; }
  function mark() { var r = root(); return r.dataset.me === "2" ? r.dataset.m2 : r.dataset.m1; }
  // classes added to a point for the preview (never one it has of its own), undone by clearFx
  function fx(pt) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (!pt.classList.contains(c)) { pt.classList.add(c); pt.dataset.fx = (pt.dataset.fx || "") + " " + c; }
    }
  }
  function clearFx(pt) {
    (pt.dataset.fx || "").split(" ").forEach(function (c) { if (c) { pt.classList.remove(c); } });
    delete pt.dataset.fx;
    label(pt, "");
  }

  function ghost(pt, kind, word) {
    var s = sizes(word);
    var shape = kind === "ring" ? el("circle", { "class": "ghost ring tc-fx", r: s.ring })
      : el("circle", { "class": "ghost " + kind + " tc-fx", r: kind === "marker" ? s.marker : s.stone });
    pt.appendChild(shape);
    pt.appendChild(el("text", { "class": "mk ghost-mk tc-fx", dy: ".35em" }, mark()));
  }

  function label(pt, extra) {
    if (!pt.hasAttribute("aria-label")) { return; }
    if (!pt.dataset.l) { pt.dataset.l = pt.getAttribute("aria-label"); }
    pt.setAttribute("aria-label", pt.dataset.l + (extra ? ", " + extra : ""));
  }

  function draw(pending) {
    var r = root();
    if (!r) { return; }
    parts = pending;
    r.querySelectorAll(".tc-fx").forEach(function (n) { n.remove(); });
    r.querySelectorAll(".pt[data-fx], .pt[data-l]").forEach(clearFx);
    r.querySelectorAll(".pt.flip-preview").forEach(function (p) { p.classList.remove("flip-preview"); });
    parts.forEach(function (part) {
      if (!part.board) { return; }
      if (part.kind === "move") {
        var from = point("yinsh", part.from), to = point("yinsh", part.to);
        if (from) { fx(from, "pending", "moving", mine("m")); ghost(from, "marker", "yinsh"); label(from, "pending: your marker stays here"); }
        if (to) { fx(to, "pending", mine("r")); ghost(to, "ring", "yinsh"); label(to, "pending: your ring moves here"); }
        (part.flips || []).forEach(function (c) { var f = point("yinsh", c); if (f) { fx(f, "will-flip"); label(f, "flips"); } });
        return;
      }
      var pt = point(part.board, part.at[0]);
      if (!pt || pt.dataset.v) { return; }
      fx(pt, "pending", mine(part.kind === "ring" ? "r" : "s"));
      ghost(pt, part.kind === "ring" ? "ring" : "stone", part.board);
      label(pt, "pending: click again to take it back");
    });
    if (picked) {
      var ring = point("yinsh", picked), moves = ringMoves()[picked];
      if (ring) { fx(ring, "picked"); label(ring, "chosen to move"); }
      if (moves) {
        Object.keys(moves.to).forEach(function (c) {
          var d = point("yinsh", c);
          if (!d) { return; }
          fx(d, "dest");
          d.appendChild(el("circle", { "class": "dest-dot tc-fx", r: 5 }));
          var n = moves.to[c].length;
          if (n) { d.appendChild(el("text", { "class": "flip-tag tc-fx", dy: "-9" }, "\u21c4" + n)); }
          label(d, "a destination" + (n ? ", flips " + n : ""));
        });
      }
    }
    var pending = document.getElementById("tc-pending");
    var need = parseInt(turn().need, 10) || 0;
    var chosen = parts.filter(function (p) { return p.board; });
    if (pending) {
      pending.textContent = picked ? "(ring " + picked + " chosen: click where it goes)"
        : need > 1 && chosen.length ? "(" + chosen.length + " of " + need + " chosen)" : "";
    }
    r.querySelectorAll(".tc-tab").forEach(function (t) {
      t.classList.toggle("has-pending", chosen.some(function (p) { return p.board === t.dataset.tab; }));
    });
    showTab();
  }

  function showTab() {
    var r = root();
    if (!r) { return; }
    if (tab && r.querySelector('.tc-tab[data-tab="' + tab + '"]')) { r.dataset.active = tab; }
    r.querySelectorAll(".tc-tab").forEach(function (t) {
      t.setAttribute("aria-pressed", t.dataset.tab === r.dataset.active ? "true" : "false");
    });
  }

  // flips of a destination under the pointer or the keyboard focus
  function preview(pt, on) {
    if (!picked || !pt || !pt.classList.contains("dest")) { return; }
    var moves = ringMoves()[picked];
    ((moves && moves.to[pt.dataset.coord]) || []).forEach(function (c) {
      var f = point("yinsh", c);
      if (f) { f.classList.toggle("flip-preview", on); }
    });
  }

  // -- events ----------------------------------------------------------------
  window.Composer.register(["squava", "gomoku", "yinsh"], {
    empty: reset,
    text: text,
    parse: fromText,
    click: activate,
    draw: draw,
    eachSwap: true,  // a live update swaps single points: put their ghosts back at once
    // a whole turn of placements (stones, Yinsh rings), as many as the turn needs: "send on click"
    complete: function (pending) {
      var need = root() && root().dataset.solo === "1" ? 1 : (parseInt(turn().need, 10) || 1);
      return pending.length === need && pending.every(function (p) { return p.kind === "stone" || p.kind === "ring"; });
    }
  });
  document.addEventListener("click", function (e) {
    var t = e.target.closest && e.target.closest("#tc-root .tc-tab");
    if (t) { tab = t.dataset.tab; quiet(); showTab(); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Enter" && e.key !== " ") { return; }
    var pt = e.target.closest && e.target.closest("#tc-root .pt");
    if (!pt) { return; }
    e.preventDefault();
    window.Composer.click(pt);
  });
  document.addEventListener("pointerover", function (e) { preview(e.target.closest && e.target.closest("#tc-root .pt"), true); });
  document.addEventListener("pointerout", function (e) { preview(e.target.closest && e.target.closest("#tc-root .pt"), false); });
  document.addEventListener("focusin", function (e) { preview(e.target.closest && e.target.closest("#tc-root .pt"), true); });
  document.addEventListener("focusout", function (e) { preview(e.target.closest && e.target.closest("#tc-root .pt"), false); });
})();
