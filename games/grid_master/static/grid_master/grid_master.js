// Grid Master's clicks: an empty square places a symbol (clicking the ghost
// again takes it back); one of your symbols, then an empty square 1 or 2 steps
// straight away, moves it.  The composer (composer.js) owns the move box; the
// pending turn is drawn by squares.js.  A square no click may choose now (not a corner on the
// first move, the other player's symbol) is refused by the composer with the server's sentence.
(function () {
  "use strict";
  var B = window.SquareBoard;
  var selected = null;   // the symbol to move

  function say(msg) { var el = document.getElementById("run-sel"); if (el) { el.textContent = msg; } }
  // a refused click's sentence, brought into view (on a phone it can sit under the Play bar)
  function refuse(msg) { say(msg); var el = document.getElementById("run-sel"); if (el) { el.scrollIntoView({ block: "nearest" }); } }

  function click(coord, cell, pending) {
    var parts = pending.slice(), mine = B.viewer() === "1" ? "X" : "O";
    if (cell.dataset.value === mine) { selected = coord; say("move " + coord + ": click where it goes"); return undefined; }
    if (!cell.dataset.value && selected) {
      var a = B.split(selected), b = B.split(coord), d = null, n = 0;
      if (a.col === b.col && a.row !== b.row) { d = b.row < a.row ? "up" : "down"; n = Math.abs(b.row - a.row); }
      if (a.row === b.row && a.col !== b.col) { d = b.col < a.col ? "left" : "right"; n = Math.abs(b.col - a.col); }
      if (d && n <= 2) {
        parts = parts.filter(function (p) { return p.indexOf("move ") !== 0; });
        parts.push("move " + selected + " " + d + " " + n);
        selected = null; say("");
        return parts;
      }
    }
    if (!cell.dataset.value && parts.indexOf("place " + coord) >= 0) {
      parts = parts.filter(function (p) { return p !== "place " + coord; }); say("removed the pending symbol on " + coord);
    } else if (!cell.dataset.value) { B.setPart(parts, "place", "place " + coord); selected = null; say(""); }
    return parts;
  }

  window.Composer.register("grid-master", {
    empty: function () { selected = null; say(""); return []; },
    text: B.text,
    parse: B.parse,
    click: click,
    draw: function (parts) { B.draw(parts, [selected]); },
    // a square the rules rule out (data-refuse, from the server): said here, nothing composed
    say: function (message) { selected = null; refuse(message); B.draw(window.Composer.pending() || [], []); }
  });
})();
