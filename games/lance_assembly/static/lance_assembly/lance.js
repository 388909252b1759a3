// Lance Assembly's clicks: an empty square places a tile (or the neutral tile,
// with its toggle, also on a square a pending slide empties), two ends of a run
// (or one tile twice; the tile just placed too) and a direction button make a slide.  The composer (composer.js)
// owns the move box; the pending turn is drawn by squares.js.
(function () {
  "use strict";
  var B = window.SquareBoard;
  var selected = null;   // first end of a run
  var runEnd = null;

  function say(msg) { var el = document.getElementById("run-sel"); if (el) { el.textContent = msg; } }
  // a refused click's sentence, brought into view (on a phone it can sit under the Play bar)
  function refuse(msg) { say(msg); var el = document.getElementById("run-sel"); if (el) { el.scrollIntoView({ block: "nearest" }); } }
  function composed(parts, coord) {
    // a square this turn already places a tile on counts as occupied (so the run can include it)
    return parts.some(function (p) { return p === "place " + coord || p === "neutral " + coord; });
  }
  function runLabel() {
    if (!selected) { return ""; }
    var end = runEnd || selected;
    var a = B.split(selected), b = B.split(end);
    var first = (a.col < b.col || a.row < b.row) ? selected : end, second = first === selected ? end : selected;
    return first === second ? first : first + "-" + second;
  }

  // Every legal turn can be clicked: the tile just placed (or the neutral one) can be slid, alone or
  // in a run, so clicking a pending tile selects it like any tile; clicking it once more after
  // choosing it as a one-tile run takes it back.  With "neutral tile" ticked, a click puts the
  // neutral tile there, also on a square a pending slide empties (the server says when it may not).
  // a sentence the server wrote on the controls, for a click the rules rule out
  function refusal(key, coord) {
    var controls = document.getElementById("lance-controls");
    return ((controls && controls.dataset[key]) || "").replace("{at}", coord);
  }
  function slides(parts) { return parts.some(function (p) { return p.indexOf("slide ") === 0; }); }

  function click(coord, cell, pending) {
    var parts = pending.slice();
    var ghost = composed(parts, coord);
    var neutral = document.getElementById("neutral-toggle");
    // the neutral tile on a tile (no pending slide empties it), or a second run to slide: said, not composed
    if (neutral && neutral.checked && cell.dataset.value && !slides(parts)) {
      refuse(refusal("takenNo", coord)); return undefined;
    }
    if ((!neutral || !neutral.checked) && (cell.dataset.value || ghost) && slides(parts) && !selected) {
      refuse(refusal("slidNo", coord)); return undefined;
    }
    if (neutral && neutral.checked) {
      B.setPart(parts, "neutral", "neutral " + coord); neutral.checked = false;
      selected = runEnd = null; say("");
    } else if (!cell.dataset.value && !ghost) {
      B.setPart(parts, "place", "place " + coord);
      selected = runEnd = null; say("");
    } else if (ghost && selected === coord && runEnd === coord) {
      parts = parts.filter(function (p) { return p !== "place " + coord && p !== "neutral " + coord; });
      selected = runEnd = null; say("took back the pending tile on " + coord);
    } else if (!selected || runEnd) {
      selected = coord; runEnd = null;
      say("run from " + coord + ": click its other end (or " + coord + " again), then a direction");
    } else {
      var a = B.split(selected), b = B.split(coord);
      if (a.col !== b.col && a.row !== b.row) { selected = coord; say("run from " + coord + ": click its other end"); }
      else {
        runEnd = coord;
        say("run " + runLabel() + ": pick a direction" +
            (ghost && selected === coord ? " (or click " + coord + " again to take the tile back)" : ""));
      }
    }
    return parts;
  }

  function slide(dir) {
    if (!selected) { say("click the tiles of a run first"); return; }
    var dist = document.getElementById("slide-distance");
    var parts = window.Composer.pending().concat(["slide " + runLabel() + " " + dir + " " + (dist ? dist.value : "1")]);
    selected = runEnd = null; say("");
    window.Composer.set(parts);
  }

  window.Composer.register("lance-assembly", {
    empty: function () { selected = runEnd = null; say(""); return []; },
    clear: function () {
      var neutral = document.getElementById("neutral-toggle");
      if (neutral) { neutral.checked = false; }
      selected = runEnd = null; say(""); return [];
    },
    text: B.text,
    parse: B.parse,
    click: click,
    draw: function (parts) { B.draw(parts, [selected, runEnd]); },
    // an empty square nothing may be placed on now (data-refuse, from the server): said, not composed
    say: function (message) { refuse(message); }
  });
  document.addEventListener("click", function (e) {
    var dir = e.target.closest && e.target.closest("#lance-controls button.dir");
    if (dir) { slide(dir.dataset.dir); }
  });
})();
