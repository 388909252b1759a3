// Home form: show the options and seat names of the chosen game with its
// one-line description; prefill its default format and clock (the host may
// change them; a form sent back with an error keeps what the host typed).
// Back to the Wall's boards: a size select and a clickable preview per board;
// every change is checked by the game's own rules on the server
// (/new/board/), which also says where the corners are and why a wall is refused.
(function () {
  "use strict";
  function apply(select, prefill) {
    var opt = select.options[select.selectedIndex];
    var seats = parseInt(opt.dataset.seats, 10);
    // the host's game: as many seats as its "seats" option says (2 to 16)
    var countField = opt.dataset.seatsField && document.querySelector('input[name="' + opt.dataset.seatsField + '"]');
    if (countField) {
      var wanted = parseInt(countField.value, 10);
      seats = isNaN(wanted) ? 2 : Math.max(2, Math.min(seats, wanted));
    }
    var namesHint = document.getElementById("seat-names-hint");  // the names typed decide the seats
    if (namesHint) { namesHint.hidden = !countField; }
    document.querySelectorAll(".seat-name").forEach(function (el) {
      var on = parseInt(el.dataset.seat, 10) <= seats;
      el.hidden = !on;
      el.querySelectorAll("input, select").forEach(function (field) { field.disabled = !on; });
    });
    document.querySelectorAll(".game-options").forEach(function (fs) {
      var on = fs.dataset.game === select.value;
      fs.hidden = !on; fs.disabled = !on;
    });
    document.querySelectorAll("#starting-seat option").forEach(function (o) {
      o.hidden = o.disabled = parseInt(o.dataset.seat, 10) > seats;
    });
    var start = document.getElementById("starting-seat");
    if (parseInt(start.value, 10) > seats) { start.value = "1"; }
    document.getElementById("round-label").hidden = opt.dataset.sealed !== "1";
    // a game whose rules fix the first mover (or where every seat acts at once) offers no choice
    document.getElementById("starting-label").hidden = opt.dataset.starts !== "1";
    document.getElementById("game-description").textContent = opt.dataset.description || "";
    var rules = document.getElementById("game-rules");  // the chosen game's How to play page
    rules.href = opt.dataset.rules;
    rules.textContent = "How to play " + opt.textContent.trim();
    if (!prefill) { return; }
    document.getElementById("bouts").value = opt.dataset.bouts || 1;
    clock(opt);
    var variant = document.querySelector('.game-options[data-game="' + select.value + '"] select.clock-choice');
    if (variant) { clock(variant.options[variant.selectedIndex]); }
  }
  function clock(opt) {
    // the clock defaults of a game (or of its variant: Sliding Tic-Tac-Toe keeps no refill)
    document.getElementById("per_move").value = opt.dataset.perMove || "";
    document.getElementById("reserve").value = opt.dataset.reserve || "";
    document.getElementById("round_seconds").value = opt.dataset.round || "";
    document.getElementById("refill").checked = opt.dataset.refill === "1";
  }
  function describe(select) {
    var out = document.getElementById(select.getAttribute("aria-describedby"));
    if (out) { out.textContent = select.options[select.selectedIndex].dataset.description || ""; }
  }

  // -- board editor ------------------------------------------------------------
  function colName(i) { return String.fromCharCode(65 + i); }
  function squares(text) {
    return text.toUpperCase().split(/[\s,;]+/).filter(Boolean);
  }
  function Editor(fs, url) {
    this.fs = fs; this.url = url;
    this.sizeSel = fs.querySelector(".board-size");
    this.wallsIn = fs.querySelector(".board-walls");
    this.preview = fs.querySelector(".wall-preview");
    this.reason = fs.querySelector(".wall-reason");
    this.corners = {};
    var self = this;
    this.sizeSel.addEventListener("change", function () { self.check(null, true); });
    this.wallsIn.addEventListener("change", function () { self.check(squares(self.wallsIn.value), true); });
    this.preview.addEventListener("click", function (e) {
      var cell = e.target.closest("button[data-coord]");
      if (cell) { self.toggle(cell.dataset.coord); }
    });
    this.check(squares(this.wallsIn.value), true);
  }
  Editor.prototype.ask = function (walls) {
    var q = "?game=" + encodeURIComponent(this.fs.dataset.game) + "&board=" + encodeURIComponent(this.fs.dataset.editor) +
      "&size=" + encodeURIComponent(this.sizeSel.value) + (walls === null ? "" : "&walls=" + encodeURIComponent(walls.join(",")));
    return fetch(this.url + q, { headers: { Accept: "application/json" } }).then(function (r) { return r.json(); });
  };
  // walls null: the rules' default walls for the size; `adopt`: take the answer even if refused
  // An answer that arrives after the walls were typed over is stale: the newer text's own check
  // decides (a slow first check put its default walls back over what a quick host had typed).
  Editor.prototype.check = function (walls, adopt) {
    var self = this, asked = this.wallsIn.value;
    return this.ask(walls).then(function (got) {
      if (self.wallsIn.value !== asked) { return got; }
      if (got.corners && Object.keys(got.corners).length) { self.corners = got.corners; }
      if (got.ok || adopt) {
        self.walls = got.ok ? got.walls : (walls || []);
        self.size = got.size || parseInt(self.sizeSel.value, 10);
        if (got.ok) { self.wallsIn.value = got.walls.join(", "); }
      }
      self.say(got.ok ? "" : got.error);
      self.fs.classList.toggle("field-error", !got.ok);
      self.wallsIn.setAttribute("aria-invalid", got.ok ? "false" : "true");
      self.draw();
      return got;
    });
  };
  Editor.prototype.toggle = function (coord) {
    var self = this, had = this.walls.indexOf(coord) >= 0;
    var next = had ? this.walls.filter(function (w) { return w !== coord; }) : this.walls.concat([coord]);
    var asked = this.wallsIn.value;
    this.ask(next).then(function (got) {
      if (self.wallsIn.value !== asked) { return; }
      if (got.ok) {
        self.walls = got.walls; self.wallsIn.value = got.walls.join(", ");
        self.say(had ? "Removed the wall on " + coord + "." : "Wall on " + coord + ".");
        self.fs.classList.remove("field-error"); self.wallsIn.setAttribute("aria-invalid", "false");
      } else {
        self.say("Refused: " + got.error.replace(/^[A-Za-z]+: /, "") + ".");
        var cell = self.preview.querySelector('[data-coord="' + coord + '"]');
        if (cell) { cell.classList.add("refused"); setTimeout(function () { cell.classList.remove("refused"); }, 1500); }
      }
      self.draw(got.ok ? null : coord);
    });
  };
  Editor.prototype.say = function (text) { this.reason.textContent = text; this.reason.classList.toggle("bad", /^Refused|cut|cannot|not|twice|must/.test(text)); };
  Editor.prototype.draw = function (refused) {
    var n = this.size || parseInt(this.sizeSel.value, 10), walls = this.walls || [], corners = this.corners;
    var board = "setup-" + this.fs.dataset.editor, html = "";
    for (var r = 1; r <= n; r++) {
      for (var c = 0; c < n; c++) {
        var coord = colName(c) + r, wall = walls.indexOf(coord) >= 0, corner = corners[coord];
        var label = coord + (wall ? ", wall" : corner ? ", corner of seat " + corner : ", empty");
        html += '<button type="button" class="pcell' + (wall ? " wall" : "") + (corner ? " corner seat-" + corner : "") +
          (coord === refused ? " refused" : "") + '" data-board="' + board + '" data-coord="' + coord + '" aria-label="' + label +
          '" aria-pressed="' + (wall ? "true" : "false") + '">' + (corner ? corner : "") + "</button>";
      }
    }
    this.preview.style.setProperty("--n", n);
    this.preview.innerHTML = html;
    if (window.dmKeys) { window.dmKeys.roving(); }
  };

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("create-form");
    var select = document.getElementById("game-select");
    if (!select || !form) { return; }
    var posted = form.dataset.posted === "1";
    apply(select, !posted);
    select.addEventListener("change", function () { apply(select, true); });
    document.querySelectorAll("#game-select option[data-seats-field]").forEach(function (o) {
      var field = o.dataset.seatsField && form.querySelector('input[name="' + o.dataset.seatsField + '"]');
      if (field) { field.addEventListener("input", function () { apply(select, false); }); }
    });
    document.querySelectorAll("select.clock-choice").forEach(function (v) {
      describe(v);
      v.addEventListener("change", function () { clock(v.options[v.selectedIndex]); describe(v); });
    });
    document.querySelectorAll(".board-editor").forEach(function (fs) { fs.editor = new Editor(fs, form.dataset.boardUrl); });
    var bad = form.dataset.errorField && form.querySelector('[name="' + form.dataset.errorField + '"]');
    if (bad) { bad.focus(); }
  });
})();
