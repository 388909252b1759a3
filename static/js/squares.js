// Square boards (Lance Assembly, Grid Master): the pending turn drawn on the
// board before it is played, for the games' click scripts (lance.js,
// grid_master.js).  A ghost tile for a placement (and the neutral tile), an
// arrow over a slide's run (or a moved symbol) showing direction and
// distance, and the selected squares outlined.  Drawn from the composed
// notation only, so what is previewed is exactly what will be sent.
window.SquareBoard = (function () {
  "use strict";
  var shown = { parts: [], marked: [] };

  function root() { return document.getElementById("live"); }
  function split(coord) { return { col: coord.charCodeAt(0) - 65, row: parseInt(coord.slice(1), 10) }; }
  function cellAt(coord) { return document.querySelector('#board .cell[data-coord="' + coord + '"]'); }

  // `parts`: the pending turn's parts ("place C3", "slide B2-B3 down 1"); `marked`: squares to outline
  function draw(parts, marked) {
    shown = { parts: parts, marked: marked };
    document.querySelectorAll("#board .cell.sel").forEach(function (c) { c.classList.remove("sel"); });
    marked.forEach(function (coord) {
      var cell = coord && cellAt(coord);
      if (cell) { cell.classList.add("sel"); }
    });
    preview(parts);
  }

  function preview(parts) {
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

  // "place" (or "neutral") once per turn: clicking again moves it; a placement goes before any slide or move
  function setPart(parts, verb, part) {
    var i = parts.findIndex(function (p) { return p.indexOf(verb + " ") === 0; });
    if (i >= 0) { parts[i] = part; return; }
    if (verb === "place") {
      var s = parts.findIndex(function (p) { return p.indexOf("slide ") === 0 || p.indexOf("move ") === 0; });
      if (s >= 0) { parts.splice(s, 0, part); return; }
    }
    parts.push(part);
  }

  // the parts of typed text, and the text of parts ("place C3; slide B2-B3 down 1")
  function parse(text) { return text.split(";").map(function (p) { return p.trim(); }).filter(Boolean); }
  function text(parts) { return parts.join("; "); }

  window.addEventListener("resize", function () { if (shown.parts.length) { preview(shown.parts); } });
  return { split: split, draw: draw, setPart: setPart, parse: parse, text: text, viewer: function () { return root() ? root().dataset.viewer : ""; } };
})();
