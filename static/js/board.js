// Click-to-move: clicks compose the notation in the move text box; the
// player submits it like typed text (one path for both).
(function () {
  "use strict";
  var parts = [];
  var selected = null;   // first end of a run (Lance) or the symbol to move (Grid Master)
  var runEnd = null;

  function root() { return document.getElementById("live"); }
  function text() { return document.getElementById("move-text"); }
  function say(msg) { var el = document.getElementById("run-sel"); if (el) { el.textContent = msg; } }

  function split(coord) { return { col: coord.charCodeAt(0) - 65, row: parseInt(coord.slice(1), 10) }; }
  function name(col, row) { return String.fromCharCode(65 + col) + row; }

  function sync() { var t = text(); if (t) { t.value = parts.join("; "); } }
  function mark() {
    document.querySelectorAll("#board .cell.sel").forEach(function (c) { c.classList.remove("sel"); });
    [selected, runEnd].forEach(function (coord) {
      if (!coord) { return; }
      var cell = document.querySelector('#board .cell[data-coord="' + coord + '"]');
      if (cell) { cell.classList.add("sel"); }
    });
    preview();
  }

  // The pending turn drawn on the board before it is played: a ghost tile for
  // a placement (and the neutral tile), an arrow over a slide's run (or a
  // moved symbol) showing direction and distance.  Drawn from the composed
  // notation only, so what is previewed is exactly what will be sent.
  function cellAt(coord) { return document.querySelector('#board .cell[data-coord="' + coord + '"]'); }
  function preview() {
    document.querySelectorAll("#board .cell.ghost").forEach(function (c) {
      c.classList.remove("ghost", "ghost-p1", "ghost-p2", "ghost-neutral");
      if (c.dataset.label) { c.setAttribute("aria-label", c.dataset.label); }
    });
    document.querySelectorAll("#board .move-preview").forEach(function (n) { n.remove(); });
    var me = root() ? root().dataset.viewer : "";
    parts.forEach(function (p) {
      var m = /^(place|neutral) ([A-Z]\d+)$/.exec(p);
      if (m) { ghost(m[2], m[1] === "neutral" ? "ghost-neutral" : "ghost-p" + me, m[1] === "neutral" ? "neutral tile" : "your tile"); return; }
      m = /^slide ([A-Z]\d+)(?:-([A-Z]\d+))? (up|down|left|right) (\d+)$/.exec(p);
      if (m) { arrow(m[1], m[2] || m[1], m[3], +m[4]); return; }
      m = /^move ([A-Z]\d+) (up|down|left|right) (\d+)$/.exec(p);
      if (m) { arrow(m[1], m[1], m[2], +m[3]); }
    });
  }
  function ghost(coord, cls, what) {
    var cell = cellAt(coord);
    if (!cell) { return; }
    if (!cell.dataset.label) { cell.dataset.label = cell.getAttribute("aria-label") || coord; }
    cell.classList.add("ghost", cls);
    cell.setAttribute("aria-label", coord + ", pending " + what + " (select to remove)");
  }
  var STEP = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
  var ARROW = { up: "↑", down: "↓", left: "←", right: "→" };
  function arrow(from, to, dir, dist) {
    var a = cellAt(from), b = cellAt(to), board = a && a.closest(".board");
    if (!a || !b || !board) { return; }
    var box = board.getBoundingClientRect();
    var ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
    var left = Math.min(ra.left, rb.left) - box.left, top = Math.min(ra.top, rb.top) - box.top;
    var right = Math.max(ra.right, rb.right) - box.left, bottom = Math.max(ra.bottom, rb.bottom) - box.top;
    var d = STEP[dir], w = ra.width + (parseFloat(getComputedStyle(board).columnGap) || 0);
    var h = ra.height + (parseFloat(getComputedStyle(board).rowGap) || 0);
    var cx = (left + right) / 2, cy = (top + bottom) / 2;
    var tx = cx + d[0] * w * dist, ty = cy + d[1] * h * dist;
    var ns = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "move-preview");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("viewBox", "0 0 " + box.width + " " + box.height);
    svg.innerHTML =
      '<defs><marker id="dm-head" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse">' +
      '<path d="M0,0 L10,5 L0,10 z" class="preview-head"/></marker></defs>' +
      '<rect class="preview-run" x="' + (left + 2) + '" y="' + (top + 2) + '" width="' + (right - left - 4) +
      '" height="' + (bottom - top - 4) + '" rx="8"/>' +
      '<rect class="preview-dest" x="' + (left + 2 + d[0] * w * dist) + '" y="' + (top + 2 + d[1] * h * dist) +
      '" width="' + (right - left - 4) + '" height="' + (bottom - top - 4) + '" rx="8"/>' +
      '<line class="preview-line" x1="' + cx + '" y1="' + cy + '" x2="' + tx + '" y2="' + ty + '" marker-end="url(#dm-head)"/>' +
      '<text class="preview-label" x="' + ((cx + tx) / 2 + (d[1] ? 14 : 0)) + '" y="' + ((cy + ty) / 2 + (d[0] ? -10 : 5)) +
      '">' + ARROW[dir] + dist + "</text>";
    board.appendChild(svg);
  }
  function reset() { parts = []; selected = null; runEnd = null; say(""); sync(); mark(); }

  function setPart(verb, part) {
    // one place (or neutral) per turn: clicking again moves it
    var i = parts.findIndex(function (p) { return p.indexOf(verb + " ") === 0; });
    if (i >= 0) { parts[i] = part; return; }
    if (verb === "place") {
      var s = parts.findIndex(function (p) { return p.indexOf("slide ") === 0 || p.indexOf("move ") === 0; });
      if (s >= 0) { parts.splice(s, 0, part); return; }
    }
    parts.push(part);
  }

  function composed(coord) {
    // a square this turn already places a tile on counts as occupied (so the run can include it)
    return parts.some(function (p) { return p === "place " + coord || p === "neutral " + coord; });
  }

  function lance(cell) {
    var coord = cell.dataset.coord;
    if (!cell.dataset.value && !composed(coord)) {
      var neutral = document.getElementById("neutral-toggle");
      if (neutral && neutral.checked) { setPart("neutral", "neutral " + coord); neutral.checked = false; }
      else { setPart("place", "place " + coord); }
      selected = runEnd = null; say("");
    } else if (composed(coord) && (!selected || runEnd)) {
      // clicking a ghost takes the pending placement back
      parts = parts.filter(function (p) { return p !== "place " + coord && p !== "neutral " + coord; });
      selected = runEnd = null; say("removed the pending tile on " + coord);
    } else if (!selected || runEnd) {
      selected = coord; runEnd = null; say("run from " + coord + ": click its other end (or " + coord + " again), then a direction");
    } else {
      var a = split(selected), b = split(coord);
      if (a.col !== b.col && a.row !== b.row) { selected = coord; say("run from " + coord + ": click its other end"); }
      else { runEnd = coord; say("run " + runLabel() + ": pick a direction"); }
    }
    sync(); mark();
  }

  function runLabel() {
    if (!selected) { return ""; }
    var end = runEnd || selected;
    var a = split(selected), b = split(end);
    var first = (a.col < b.col || a.row < b.row) ? selected : end, second = first === selected ? end : selected;
    return first === second ? first : first + "-" + second;
  }

  function slide(dir) {
    if (!selected) { say("click the tiles of a run first"); return; }
    var dist = document.getElementById("slide-distance");
    parts.push("slide " + runLabel() + " " + dir + " " + (dist ? dist.value : "1"));
    selected = runEnd = null; say(""); sync(); mark();
  }

  function gridMaster(cell) {
    var coord = cell.dataset.coord, mine = root().dataset.viewer === "1" ? "X" : "O";
    if (cell.dataset.value === mine) { selected = coord; say("move " + coord + ": click where it goes"); mark(); return; }
    if (!cell.dataset.value && selected) {
      var a = split(selected), b = split(coord), d = null, n = 0;
      if (a.col === b.col && a.row !== b.row) { d = b.row < a.row ? "up" : "down"; n = Math.abs(b.row - a.row); }
      if (a.row === b.row && a.col !== b.col) { d = b.col < a.col ? "left" : "right"; n = Math.abs(b.col - a.col); }
      if (d && n <= 2) {
        parts = parts.filter(function (p) { return p.indexOf("move ") !== 0; });
        parts.push("move " + selected + " " + d + " " + n);
        selected = null; say(""); sync(); mark(); return;
      }
    }
    if (!cell.dataset.value && parts.indexOf("place " + coord) >= 0) {
      parts = parts.filter(function (p) { return p !== "place " + coord; }); say("removed the pending symbol on " + coord);
    } else if (!cell.dataset.value) { setPart("place", "place " + coord); selected = null; say(""); }
    sync(); mark();
  }

  function generic(cell) {
    var t = text();
    if (t) { t.value = (t.value ? t.value + " " : "") + cell.dataset.coord; parts = t.value ? [t.value] : []; }
  }

  var handlers = { "lance-assembly": lance, "grid-master": gridMaster };

  document.addEventListener("click", function (e) {
    if (!document.getElementById("move-form")) { return; }
    var cell = e.target.closest("#board .cell");
    if (cell) { (handlers[root().dataset.game] || generic)(cell); return; }
    var dir = e.target.closest("button.dir");
    if (dir) { slide(dir.dataset.dir); return; }
    if (e.target.closest("#move-clear")) { reset(); var err = document.getElementById("move-error"); if (err) { err.hidden = true; } }
  });
  document.addEventListener("input", function (e) {
    if (e.target && e.target.id === "move-text") {
      parts = e.target.value.split(";").map(function (p) { return p.trim(); }).filter(Boolean);
    }
  });
  // the board changed (a move was played or undone): start composing afresh
  document.addEventListener("dm:board-changed", reset);
  // the board fragment was replaced: re-mark the selection
  document.addEventListener("htmx:afterSettle", mark);
  document.addEventListener("htmx:wsAfterMessage", mark);
  window.addEventListener("resize", function () { if (parts.length) { preview(); } });
})();
