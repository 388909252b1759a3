// Home form: show the options and seat names of the chosen game; prefill its
// default format and clock (the host may change them).
(function () {
  "use strict";
  function apply(select, prefill) {
    var opt = select.options[select.selectedIndex];
    var seats = parseInt(opt.dataset.seats, 10);
    document.querySelectorAll(".seat-name").forEach(function (el) {
      var on = parseInt(el.dataset.seat, 10) <= seats;
      el.hidden = !on; el.querySelector("input").disabled = !on;
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
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("game-select");
    if (!select) { return; }
    apply(select, true);
    select.addEventListener("change", function () { apply(select, true); });
    document.querySelectorAll("select.clock-choice").forEach(function (v) {
      v.addEventListener("change", function () { clock(v.options[v.selectedIndex]); });
    });
  });
})();
