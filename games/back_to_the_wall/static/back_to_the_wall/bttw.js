// Back to the Wall: the order builder, the board tabs and the round replay.
//
// The script knows no rules.  The server (games/back_to_the_wall/page.py)
// says where a wall would certainly be dropped and why (data-why), which
// squares count as adjacent (data-near), every piece's path preview for each
// choice of directions, which garnet toggles are open, and the resolution
// trace with the engine's reasons.  The script composes canonical notation
// ("once wall C3; once piece 1 up right down; twice garnet") through the
// composer (static/js/composer.js), which owns the move box (the host's is
// #bttw-host-text), and draws the trace's frames on the boards.
(function () {
  "use strict";
  var BOARDS = ["once", "twice", "thrice"];
  var TITLES = { once: "Once", twice: "Twice", thrice: "Thrice" };
  var ARROWS = { up: "↑", right: "→", down: "↓", left: "←" };
  var PHASES = ["first", "second", "third"];
  var LETTERS = { u: "up", r: "right", d: "down", l: "left", x: null };
  // the preview's keys, in the order page.preview() lists them (depth first: u, uu, uuu, uur, ...)
  var KEYS = [];
  (function walk(prefix) {
    "urdl".split("").forEach(function (d) { KEYS.push(prefix + d); if (prefix.length < 2) { walk(prefix + d); } });
  })("");
  var store = {};        // round key -> seat -> board -> {walls: [], moves: {n: [dirs]}, garnet}
  var active = {};       // board -> "seat:number" of the piece whose preview shows
  var note = {};         // board -> a one-off message (why a click did nothing)
  var tab = "once";
  var replay = { on: false, round: null, step: 0, timer: null, saved: {} };
  var hostSeat = null;   // the seat the host is entering orders for (kept across live swaps)
  var roundKey = null;   // the round the pending orders (and any typed text) belong to
  var opened = {};       // board -> true when its "how the round resolved" details are open
  var D = null;          // the page's data (json_script #bttw-data), re-read after every swap

  function $(sel, el) { return (el || document).querySelector(sel); }
  function $$(sel, el) { return Array.prototype.slice.call((el || document).querySelectorAll(sel)); }
  function root() { return document.getElementById("bttw"); }
  function read() {
    var el = document.getElementById("bttw-data");
    D = el ? JSON.parse(el.textContent) : null;
  }
  function building() { var r = root(); return !!(r && r.classList.contains("building")) && !replay.on; }

  // -- builder state ---------------------------------------------------------------------
  function seat() {
    if (!D) { return null; }
    if (D.host) {
      var sel = document.getElementById("bttw-host-seat");
      if (!sel) { return null; }
      if (hostSeat && sel.value !== hostSeat) { sel.value = hostSeat; }
      return sel.value;
    }
    var live = document.getElementById("live");
    return live ? live.dataset.viewer : null;
  }
  function empty() { return { walls: [], moves: {}, garnet: false }; }
  function orders(who) {
    var key = D.roundKey;
    store[key] = store[key] || {};
    if (!store[key][who]) {
      var start = (D.initial && D.initial[who]) || {};
      var mine = {};
      BOARDS.forEach(function (b) {
        var o = start[b] || empty();
        mine[b] = { walls: o.walls.slice(), moves: JSON.parse(JSON.stringify(o.moves)), garnet: !!o.garnet };
      });
      store[key][who] = mine;
    }
    return store[key][who];
  }
  function piecesOf(board, who) {
    return $$('.bttw-build[data-for="' + board + '"] .bttw-piece[data-seat="' + who + '"]').map(function (li) {
      return { number: li.dataset.number, square: li.dataset.square, el: li };
    });
  }

  function compose(o, who) {
    var parts = [];
    BOARDS.forEach(function (b) {
      o[b].walls.forEach(function (w) { parts.push(b + " wall " + w); });
      piecesOf(b, who).forEach(function (p) {
        var dirs = o[b].moves[p.number] || [];
        if (dirs.length === 3) { parts.push(b + " piece " + p.number + " " + dirs.join(" ")); }
      });
      if (o[b].garnet) { parts.push(b + " garnet"); }
    });
    return parts.join("; ");
  }
  // the pending move of the composer: the orders being built, per round and seat (`store`)
  function text() {
    if (!D) { read(); }
    var who = building() && D ? seat() : null;
    if (!who) { var t = box(); return t ? t.value : ""; }
    return compose(orders(who), who);
  }
  function box() {
    var r = root();
    return r && r.dataset.host === "1" ? document.getElementById("bttw-host-text") : null;  // null: the player's box
  }

  // -- drawing the builder -------------------------------------------------------------------
  function render() {
    read();
    var r = root();
    if (!r || !D) { return; }
    showTab(tab);
    $$(".bttw-why").forEach(function (d) { if (opened[d.dataset.for]) { d.open = true; } });
    if (!r.classList.contains("building")) {
      var review = document.getElementById("bttw-review");
      if (review) { review.innerHTML = ""; }
    }
    if (!r.classList.contains("building")) { return; }
    var who = seat();
    if (!who) { return; }
    var o = orders(who);
    $$(".bttw-piece").forEach(function (li) { li.hidden = li.dataset.seat !== String(who); });
    BOARDS.forEach(function (b) { drawBoard(b, o[b], who); });
    drawGarnets(o, who);
    drawReview(o, who);
  }

  function drawBoard(b, o, who) {
    var build = $('.bttw-build[data-for="' + b + '"]');
    if (!build) { return; }
    var squares = {};
    $$('#bttw .sq[data-board="' + b + '"]').forEach(function (sq) {
      sq.classList.remove("ghost", "flagged", "pv", "pv1", "pv2", "pv3", "pvend");
      sq.removeAttribute("data-mark");
      squares[sq.dataset.coord] = sq;
    });
    // pending walls: ghosts; a pair the rules would drop (data-near says which squares touch) is flagged
    var flags = [];
    o.walls.forEach(function (w, i) {
      var sq = squares[w];
      if (!sq) { return; }
      sq.classList.add("ghost");
      var near = (sq.dataset.near || "").split(" ");
      o.walls.forEach(function (x, j) {
        if (j === i || near.indexOf(x) < 0) { return; }
        sq.classList.add("flagged");
        if (j > i) { flags.push(w + " and " + x + " are adjacent on " + TITLES[b] + ": both would be dropped"); }
      });
    });
    $(".bttw-wallcount", build).textContent = String(o.walls.length);
    var msg = note[b] ? [note[b]] : [];
    $(".bttw-flags", build).textContent = msg.concat(flags).join(". ");
    $(".bttw-flags", build).classList.toggle("warn", flags.length > 0 || msg.length > 0);
    // directions per piece
    var pieces = piecesOf(b, who);
    pieces.forEach(function (p) {
      var dirs = o.moves[p.number] || [];
      var shown = [0, 1, 2].map(function (i) { return dirs[i] ? ARROWS[dirs[i]] : "_"; }).join(" ");
      var span = $(".bttw-dirs", p.el);
      span.textContent = shown;
      span.setAttribute("aria-label", dirs.length ? "directions: " + dirs.join(", ") : "no directions yet");
      p.el.classList.toggle("done", dirs.length === 3);
      p.el.classList.toggle("active", active[b] === who + ":" + p.number);
    });
    // the path preview of the active piece (computed by the server for every choice of directions)
    var text = "";
    var cur = active[b] && active[b].split(":")[0] === String(who) ? active[b].split(":")[1] : null;
    if (cur === null) {
      var first = pieces.filter(function (p) { return (o.moves[p.number] || []).length; })[0];
      cur = first ? first.number : null;
    }
    var packed = D.previews && D.previews[who] && D.previews[who][b] && cur !== null ? D.previews[who][b][cur] : null;
    var tree = null;
    if (packed) {
      tree = {};
      packed.split(",").forEach(function (v, i) { tree[KEYS[i]] = v; });
    }
    var dirs = cur !== null ? (o.moves[cur] || []) : [];
    if (tree && dirs.length) {
      var key = "", steps = [];
      var from = pieces.filter(function (p) { return p.number === cur; })[0].square;
      dirs.forEach(function (d, i) {
        key += d.charAt(0);
        var node = tree[key];
        if (!node) { return; }
        var took = LETTERS[node.charAt(0)], end = node.slice(1);
        line(from, end).forEach(function (c) {
          var sq = squares[c];
          if (sq) { sq.classList.add("pv", "pv" + (i + 1)); sq.dataset.mark = "①②③".charAt(i); }
        });
        if (i === dirs.length - 1 && squares[end]) { squares[end].classList.add("pvend"); }
        var text = ARROWS[d];
        if (!took) { text += " blocked everywhere: stays on " + end; }
        else if (took !== d) { text += " blocked: takes " + ARROWS[took] + " to " + end; }
        else { text += " to " + end; }
        steps.push(text);
        from = end;
      });
      text = "Preview of piece " + cur + " (on the board as it stands, moving alone): " + steps.join(", then ") +
             ". Walls placed this round, other pieces and the fallback can change it.";
    }
    $(".bttw-preview", build).textContent = text;
  }

  function drawGarnets(o, who) {
    var info = (D.garnets && D.garnets[who]) || { left: null, spent: [] };
    var used = BOARDS.filter(function (b) { return o[b].garnet; }).length;
    BOARDS.forEach(function (b) {
      var box = $('.bttw-garnet[data-for="' + b + '"]');
      if (!box) { return; }
      var why = "";
      if (info.spent.indexOf(b) >= 0) { why = "You have spent your garnet on " + TITLES[b] + " already."; }
      else if (info.left === 0) { why = "You have no garnet to spend."; }
      else if (info.left !== null && !o[b].garnet && used >= info.left) {
        why = "You have " + info.left + " garnet" + (info.left === 1 ? "" : "s") + " to spend, all chosen.";
      }
      if (why && o[b].garnet && info.spent.indexOf(b) >= 0) { o[b].garnet = false; }
      box.checked = o[b].garnet;
      box.disabled = !!why;
      var p = box.closest(".bttw-build");
      $(".bttw-garnet-why", p).textContent = why;
    });
  }

  function drawReview(o, who) {
    var list = document.getElementById("bttw-review");
    if (!list) { return; }
    list.innerHTML = "";
    BOARDS.forEach(function (b) {
      var bits = [];
      if (o[b].walls.length) { bits.push("wall" + (o[b].walls.length > 1 ? "s " : " ") + o[b].walls.join(" ")); }
      var missing = [];
      piecesOf(b, who).forEach(function (p) {
        var dirs = o[b].moves[p.number] || [];
        if (dirs.length === 3) { bits.push("piece " + p.number + " " + dirs.map(function (d) { return ARROWS[d]; }).join(" ")); }
        else { missing.push("piece " + p.number + " needs " + (3 - dirs.length) + " more direction" + (dirs.length === 2 ? "" : "s")); }
      });
      if (o[b].garnet) { bits.push("garnet"); }
      var li = document.createElement("li");
      var head = document.createElement("b");
      head.textContent = TITLES[b] + ": ";
      li.appendChild(head);
      li.appendChild(document.createTextNode((bits.join(" · ") || "no walls") + (missing.length ? " — " + missing.join(", ") : "")));
      if (missing.length) { li.className = "todo"; }
      list.appendChild(li);
    });
  }

  // -- builder clicks ----------------------------------------------------------------------------
  function seen(el) { if (el && el.textContent) { el.scrollIntoView({ block: "nearest" }); } }
  function clickSquare(sq) {
    var b = sq.dataset.board, who = seat(), o = orders(who)[b];
    var build = $('.bttw-build[data-for="' + b + '"]');
    var limit = build ? parseInt(build.dataset.limit, 10) : 1;
    var coord = sq.dataset.coord, at = o.walls.indexOf(coord);
    note[b] = "";
    if (at >= 0) { o.walls.splice(at, 1); }
    else if (sq.dataset.why) { note[b] = "No wall on " + coord + ": " + sq.dataset.why + ", so a wall there is dropped"; }
    else if (o.walls.length < limit) { o.walls.push(coord); }
    else if (limit === 1) { o.walls = [coord]; }
    else { note[b] = TITLES[b] + " takes at most " + limit + " walls a round: click one of yours to remove it first"; }
    return store;
  }

  function clickArrow(btn) {
    var li = btn.closest(".bttw-piece"), b = btn.closest(".bttw-build").dataset.for;
    var who = seat(), o = orders(who)[b], n = li.dataset.number;
    var dirs = o.moves[n] = o.moves[n] || [];
    active[b] = who + ":" + n;
    note[b] = "";
    if (btn.classList.contains("bttw-back")) { dirs.pop(); }
    else if (dirs.length < 3) { dirs.push(btn.dataset.dir); }
    else { note[b] = "Piece " + n + " has its three directions: ⌫ removes the last one"; }
    window.Composer.set(store);
  }

  // -- tabs (phones show one board at a time) ------------------------------------------------------
  function showTab(name) {
    tab = name;
    $$(".bttw-tab").forEach(function (t) { t.setAttribute("aria-selected", t.dataset.tab === name ? "true" : "false"); });
    $$(".bttw-panel").forEach(function (p) { p.classList.toggle("shown", p.dataset.panel === name); });
  }

  // -- replay ----------------------------------------------------------------------------------
  function roundData() {
    if (!D || !D.replay) { return null; }
    var want = replay.round || D.replay.last;
    return D.replay.rounds.filter(function (r) { return r.round === want; })[0] || null;
  }
  function stepList(r) {
    var list = [["start"], ["walls"]];
    r.steps.forEach(function (s) { list.push(["tick", s[0], s[1]]); });
    if (r.boards.some(function (b) { return b.spawned.length; })) { list.push(["spawn"]); }
    return list;
  }
  function before(t, step) { return t[0] < step[1] || (t[0] === step[1] && t[1] <= step[2]); }

  function frame(b, step) {
    var owners = b.owners.split("").map(Number);
    var walls = b.walls.slice(), dropped = [];
    var pos = b.starts.slice(), cap = [], con = [], pieces = b.pieces.slice();
    var kind = step[0];
    if (kind !== "start") {
      b.placed.forEach(function (w) { if (walls.indexOf(w) < 0) { walls.push(w); } });
      if (kind === "walls") { dropped = b.dropped.filter(function (w) { return walls.indexOf(w) < 0; }); }
    }
    b.ticks.forEach(function (t) {
      var passed = kind === "spawn" || (kind === "tick" && before(t, step));
      if (!passed) { return; }
      t[3].forEach(function (c) { var i = idx(c[0], b.size); owners[i] = c[1]; });
      pos = t[2];
      if (kind === "tick" && t[0] === step[1] && t[1] === step[2]) { cap = t[3].map(function (c) { return c[0]; }); con = t[4]; }
    });
    if (kind === "spawn") {
      b.spawned.forEach(function (s) { owners[idx(s[2], b.size)] = s[0]; pieces.push([s[0], s[1]]); pos = pos.concat([s[2]]); });
      cap = b.spawned.map(function (s) { return s[2]; });
    }
    return { owners: owners, walls: walls, dropped: dropped, pos: pos, pieces: pieces, cap: cap, con: con };
  }
  // the squares from `a` (excluded) to `b` (included) along a row or column
  function line(a, b) {
    var ac = a.charCodeAt(0), ar = parseInt(a.slice(1), 10), bc = b.charCodeAt(0), br = parseInt(b.slice(1), 10);
    var out = [], dc = Math.sign(bc - ac), dr = Math.sign(br - ar);
    if (dc && dr) { return [b]; }
    while (ac !== bc || ar !== br) { ac += dc; ar += dr; out.push(String.fromCharCode(ac) + ar); }
    return out;
  }
  function idx(c, n) { return (parseInt(c.slice(1), 10) - 1) * n + (c.charCodeAt(0) - 65); }

  function draw() {
    var r = roundData();
    if (!r) { return; }
    var steps = stepList(r);
    replay.step = Math.max(0, Math.min(replay.step, steps.length - 1));
    var step = steps[replay.step];
    r.boards.forEach(function (b) {
      var grid = $('#bttw .bttw-grid[data-grid="' + b.name + '"]');
      if (!grid) { return; }
      var f = frame(b, step), at = {};
      f.pos.forEach(function (c, i) { (at[c] = at[c] || []).push(f.pieces[i]); });
      $$(".sq", grid).forEach(function (sq) {
        var c = sq.dataset.coord, i = idx(c, b.size), owner = f.owners[i];
        var wall = f.walls.indexOf(c) >= 0, corner = sq.dataset.corner || "";
        var cls = ["sq", "o" + owner];
        if (wall) { cls.push("wall"); }
        if (corner) { cls.push("corner", "c" + corner); }
        if (f.dropped.indexOf(c) >= 0) { cls.push("dropped"); }
        if (f.cap.indexOf(c) >= 0) { cls.push("cap"); }
        if (f.con.indexOf(c) >= 0) { cls.push("contest"); }
        sq.className = cls.join(" ");
        // the marks are drawn by CSS from data-n/data-p: the square's name is its aria-label
        var html = corner ? '<span class="cflag" data-n="' + corner + '" aria-hidden="true"></span>' : "";
        if (owner) { html += '<span class="omark" data-n="' + owner + '" aria-hidden="true"></span>'; }
        if ((at[c] || []).length) {
          html += '<span class="toks" aria-hidden="true">' + at[c].map(function (p) {
            return '<span class="tok s' + p[0] + '" data-n="' + p[0] + '" data-p="' + p[1] + '"></span>';
          }).join("") + "</span>";
        }
        sq.innerHTML = html;
        var label = [c];
        if (wall) { label.push("wall"); }
        label.push(owner ? name(owner) + "'s territory" : wall ? "" : "owned by no one");
        label = label.filter(Boolean);
        if (corner) { label.push(name(corner) + "'s corner"); }
        (at[c] || []).forEach(function (p) { label.push(name(p[0]) + "'s piece " + p[1]); });
        if (f.con.indexOf(c) >= 0) { label.push("contested this tick"); }
        if (f.dropped.indexOf(c) >= 0) { label.push("submitted wall dropped"); }
        sq.setAttribute("aria-label", label.join(", "));
      });
      // the legend counts this frame's squares too (the live counts come back with the board)
      $$('#bttw-panel-' + b.name + ' .bttw-legend .count').forEach(function (el) {
        if (el.dataset.live === undefined) { el.dataset.live = el.textContent; }
        var n = f.owners.filter(function (o) { return o === +el.dataset.seat; }).length;
        el.textContent = String(n);
      });
    });
    // the reasons of this step, highlighted under each board
    $$(".bttw-why-round").forEach(function (el) { el.hidden = String(el.dataset.round) !== String(r.round); });
    $$(".bttw-why li").forEach(function (li) {
      var now = (step[0] === "walls" && li.dataset.step === "walls") ||
                (step[0] === "tick" && li.dataset.phase === String(step[1]));
      li.classList.toggle("now", now);
    });
    var label = "Round " + r.round + ": ";
    if (step[0] === "start") { label += "the boards as the round started"; }
    else if (step[0] === "walls") { label += "walls added (dropped ones crossed out)"; }
    else if (step[0] === "tick") { label += "phase " + step[1] + " (" + PHASES[step[1] - 1] + " directions), tick " + step[2]; }
    else { label += "new pieces spawn on their corners"; }
    var tick = document.getElementById("bttw-tick");
    if (tick) { tick.textContent = label + " · step " + (replay.step + 1) + " of " + steps.length; }
    var sel = document.getElementById("bttw-replay-round");
    if (sel) { sel.value = String(r.round); }
  }
  function name(s) { return (D.names && D.names[s]) || "seat " + s; }

  function startReplay() {
    if (replay.on) { return; }
    replay.on = true;
    replay.saved = {};
    $$("#bttw .bttw-grid").forEach(function (g) { replay.saved[g.dataset.grid] = g.innerHTML; });
    var r = root();
    if (r) { r.classList.add("replaying"); }
    var close = document.getElementById("bttw-replay-close");
    if (close) { close.hidden = false; }
  }
  function stopReplay() {
    pause();
    replay.on = false;
    $$("#bttw .bttw-grid").forEach(function (g) {
      if (replay.saved[g.dataset.grid] !== undefined) { g.innerHTML = replay.saved[g.dataset.grid]; }
    });
    replay.saved = {};
    $$("#bttw .bttw-legend .count[data-live]").forEach(function (el) {
      el.textContent = el.dataset.live;
      el.removeAttribute("data-live");
    });
    var r = root();
    if (r) { r.classList.remove("replaying"); }
    var close = document.getElementById("bttw-replay-close");
    if (close) { close.hidden = true; }
    $$(".bttw-why li.now").forEach(function (li) { li.classList.remove("now"); });
    var tick = document.getElementById("bttw-tick");
    if (tick) { tick.textContent = "Showing the boards now. Pick a round and step through it to check every ruling."; }
    render();
  }
  function go(delta, absolute) {
    startReplay();
    var r = roundData();
    if (!r) { return; }
    var last = stepList(r).length - 1;
    replay.step = absolute !== undefined ? (absolute < 0 ? last : absolute) : Math.max(0, Math.min(last, replay.step + delta));
    draw();
    return replay.step < last;
  }
  function pause() {
    if (replay.timer) { clearInterval(replay.timer); replay.timer = null; }
    var btn = document.getElementById("bttw-replay-play");
    if (btn) { btn.textContent = "Play"; btn.setAttribute("aria-label", "play"); }
  }
  function play() {
    if (replay.timer) { pause(); return; }
    var r = roundData();
    if (r && replay.on && replay.step >= stepList(r).length - 1) { replay.step = -1; }
    startReplay();
    if (replay.step < 0) { replay.step = 0; draw(); }
    var btn = document.getElementById("bttw-replay-play");
    if (btn) { btn.textContent = "Pause"; btn.setAttribute("aria-label", "pause"); }
    replay.timer = setInterval(function () { if (!go(1)) { pause(); } }, 650);
  }

  // after a live swap: the board is new, so keep the replay's frame (or the builder's ghosts) on it
  function refresh() {
    read();
    if (!root()) { return; }
    if (replay.on) {
      if (!D || !D.replay) { stopReplay(); return; }
      replay.saved = {};
      $$("#bttw .bttw-grid").forEach(function (g) { replay.saved[g.dataset.grid] = g.innerHTML; });
      root().classList.add("replaying");
      var close = document.getElementById("bttw-replay-close");
      if (close) { close.hidden = false; }
      showTab(tab);
      $$(".bttw-why").forEach(function (d) { if (opened[d.dataset.for]) { d.open = true; } });
      draw();
    } else {
      render();
    }
  }

  window.Composer.register(BOARDS, {
    empty: function () { return store; },
    text: text,
    parse: function () { return null; },  // typed orders are sent as written
    active: building,
    box: box,
    click: function (coord, sq) {
      var next = clickSquare(sq), b = sq.dataset.board;
      // why the click did nothing sits under the board: on a phone it is brought into view
      if (note[b]) { setTimeout(function () { seen($('.bttw-build[data-for="' + b + '"] .bttw-flags')); }, 0); }
      return next;
    },
    draw: refresh,
    // a new round starts from the orders the page holds for it (typed text is dropped)
    sync: function () {
      read();
      if (!D || D.roundKey === roundKey) { return undefined; }
      roundKey = D.roundKey;
      return store;
    },
    changed: function () { return undefined; },  // the builder keeps the round's orders: sync decides
    clear: function () {
      if (D && seat()) {
        store[D.roundKey] = store[D.roundKey] || {};
        var blank = {};
        BOARDS.forEach(function (b) { blank[b] = empty(); note[b] = ""; });
        store[D.roundKey][seat()] = blank;
      }
      return store;
    },
    submitLabel: function () { var r = root(); return r && r.classList.contains("building") ? "Submit sealed orders" : null; }
  });

  document.addEventListener("click", function (e) {
    var t = e.target;
    if (!t.closest || !t.closest("#bttw, #bttw-controls")) { return; }
    var tabBtn = t.closest(".bttw-tab");
    if (tabBtn) { showTab(tabBtn.dataset.tab); return; }
    var arrow = t.closest(".bttw-arrow, .bttw-back");
    if (arrow) { if (building()) { clickArrow(arrow); } return; }
    if (t.closest("#bttw-replay-first")) { pause(); go(0, 0); return; }
    if (t.closest("#bttw-replay-prev")) { pause(); go(-1); return; }
    if (t.closest("#bttw-replay-next")) { pause(); go(1); return; }
    if (t.closest("#bttw-replay-last")) { pause(); go(0, -1); return; }
    if (t.closest("#bttw-replay-play")) { play(); return; }
    if (t.closest("#bttw-replay-close")) { stopReplay(); }
  });
  document.addEventListener("change", function (e) {
    var t = e.target;
    if (t.classList && t.classList.contains("bttw-garnet") && building()) {
      orders(seat())[t.dataset.for].garnet = t.checked;
      window.Composer.set(store);
    } else if (t.id === "bttw-host-seat") {
      hostSeat = t.value;
      window.Composer.set(store);
    } else if (t.id === "bttw-replay-round") {
      pause();
      replay.round = parseInt(t.value, 10);
      replay.step = 0;
      if (replay.on) { draw(); } else { go(0, 0); }
    }
  });
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d.classList && d.classList.contains("bttw-why")) { opened[d.dataset.for] = d.open; }
  }, true);
  document.addEventListener("keydown", function (e) {
    // arrow keys move between tabs (the ARIA tabs pattern)
    var t = e.target;
    if (!t.classList || !t.classList.contains("bttw-tab")) { return; }
    var i = BOARDS.indexOf(t.dataset.tab);
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      var next = BOARDS[(i + (e.key === "ArrowRight" ? 1 : 2)) % 3];
      showTab(next);
      var btn = document.getElementById("bttw-tab-" + next);
      if (btn) { btn.focus(); }
      e.preventDefault();
    }
  });
})();
