// Keyboard play on every board: arrow keys move the focus between the
// squares/points of one board ([data-board][data-coord], buttons or SVG
// shapes alike) by where they are drawn, so it works for grids and for
// Yinsh's hex lattice without knowing either; Enter or Space clicks the
// focused one (the game's click script then composes the move).  One square
// per board is in the tab order (a roving tabindex), and the focus stays on
// the same square when a live update redraws the board.
(function () {
  "use strict";
  var SEL = "[data-board][data-coord]";
  var remembered = {};   // board name -> coord that holds the tab stop
  var lastFocus = null;  // {board, coord} focused when a redraw came in
  var KEYS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

  function points(board) {
    return Array.prototype.filter.call(document.querySelectorAll(SEL), function (el) {
      return el.dataset.board === board && el.getClientRects().length > 0;
    });
  }
  function centre(el) { var r = el.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; }
  function find(board, coord) {
    return points(board).find(function (el) { return el.dataset.coord === coord; }) || null;
  }

  // the nearest point in the arrow's direction: distance along it, plus a
  // penalty for drifting sideways (so a hex lattice steps to its neighbour)
  function next(from, dx, dy) {
    var here = centre(from), best = null, bestScore = Infinity;
    points(from.dataset.board).forEach(function (el) {
      if (el === from) { return; }
      var c = centre(el), vx = c.x - here.x, vy = c.y - here.y;
      var along = vx * dx + vy * dy, side = Math.abs(vx * dy - vy * dx);
      if (along <= 1 || side > along * 1.8) { return; }
      var score = along + side * 2.5;
      if (score < bestScore) { bestScore = score; best = el; }
    });
    return best;
  }

  function roving() {
    var boards = {};
    document.querySelectorAll(SEL).forEach(function (el) { (boards[el.dataset.board] = boards[el.dataset.board] || []).push(el); });
    Object.keys(boards).forEach(function (name) {
      var list = boards[name];
      var keep = list.find(function (el) { return el.dataset.coord === remembered[name]; }) || list[0];
      list.forEach(function (el) { el.setAttribute("tabindex", el === keep ? "0" : "-1"); });
    });
  }

  function focusOn(el) {
    if (!el) { return; }
    remembered[el.dataset.board] = el.dataset.coord;
    roving();
    el.focus({ preventScroll: false });
  }

  // on window, so it runs after the games' own keydown handlers on document:
  // a key a game already handled (preventDefault) is left alone
  window.addEventListener("keydown", function (e) {
    var el = e.target && e.target.closest ? e.target.closest(SEL) : null;
    if (!el || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var step = KEYS[e.key];
    if (step) {
      e.preventDefault();
      focusOn(next(el, step[0], step[1]));
      return;
    }
    var native = el.tagName === "BUTTON" || el.tagName === "A";
    if ((e.key === "Enter" || e.key === " ") && !native) {
      // buttons click themselves; SVG points and other shapes need the click sent
      e.preventDefault();
      el.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true, view: window }));
    }
  });
  document.addEventListener("focusin", function (e) {
    var el = e.target && e.target.closest ? e.target.closest(SEL) : null;
    if (el) { remembered[el.dataset.board] = el.dataset.coord; lastFocus = { board: el.dataset.board, coord: el.dataset.coord }; roving(); }
    else if (e.target !== document.body) { lastFocus = null; }
  });
  // a live update replaced the board under the focus: put it back on the same square
  function restore() {
    roving();
    var active = document.activeElement;
    if (lastFocus && (!active || active === document.body || !document.contains(active))) {
      var el = find(lastFocus.board, lastFocus.coord);
      if (el) { el.focus({ preventScroll: true }); }
    }
  }
  document.addEventListener("htmx:beforeSwap", function () {
    var a = document.activeElement, el = a && a.closest ? a.closest(SEL) : null;
    if (el) { lastFocus = { board: el.dataset.board, coord: el.dataset.coord }; }
  });
  document.addEventListener("htmx:wsAfterMessage", restore);
  document.addEventListener("htmx:afterSettle", restore);
  document.addEventListener("DOMContentLoaded", roving);
  window.dmKeys = { roving: roving };
})();
