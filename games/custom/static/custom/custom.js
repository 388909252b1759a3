// The Host's game: clicks and small fields write canonical notation in the
// move box (composer.js owns it).  Every button the server draws carries the
// exact action it stands for (data-notation); this script only joins the
// pieces a click cannot know alone: the seats picked so far, a typed number
// or text, the reason for points, the host's round definition.
(function () {
  "use strict";
  var sent = null;   // the text last sent: a board change after it starts afresh

  function $(id) { return document.getElementById(id); }
  function quote(text) { return JSON.stringify(String(text).trim()); }
  function prefix() { var a = $("hg-answer"); return a ? a.dataset.prefix : ""; }
  function pending(text, seats) { return { text: text || "", seats: seats || [] }; }

  function click(coord, el, p) {
    if (el.dataset.notation) { return pending(el.dataset.notation); }
    if (el.dataset.points) {
      var reason = ($("hg-reason") && $("hg-reason").value.trim()) || "points";
      return pending(el.dataset.points + " " + quote(reason));
    }
    if (el.dataset.seat) {
      var seat = parseInt(el.dataset.seat, 10), seats = p.seats.slice();
      if (!seats.length && p.text.indexOf(prefix()) !== 0) {   // start from the answer already in
        document.querySelectorAll("#hg-answer .hg-pick.chosen").forEach(function (b) { seats.push(parseInt(b.dataset.seat, 10)); });
      }
      var at = seats.indexOf(seat);
      if (at >= 0) { seats.splice(at, 1); } else { seats.push(seat); }
      seats.sort(function (a, b) { return a - b; });
      return pending(seats.length ? prefix() + seats.join(",") : "", seats);
    }
    return undefined;
  }

  function draw(p) {
    document.querySelectorAll("#hg-answer .hg-pick").forEach(function (b) {
      var on = p.seats.length ? p.seats.indexOf(parseInt(b.dataset.seat, 10)) >= 0 : b.classList.contains("chosen");
      b.setAttribute("aria-pressed", on ? "true" : "false");
      b.classList.toggle("picked", on);
    });
    document.querySelectorAll("#hg [data-notation]").forEach(function (b) {
      b.classList.toggle("picked", !!p.text && b.dataset.notation === p.text);
    });
    // a live update redrew the answer field: put back what the seat was typing (the box kept it)
    var free = $("hg-free"), start = prefix();
    if (free && !free.value && start && p.text.indexOf(start) === 0) {
      var rest = p.text.slice(start.length);
      try { free.value = free.dataset.kind === "number" ? rest : JSON.parse(rest); } catch (err) { free.value = ""; }
    }
  }

  function roundText() {
    var kind = $("hg-kind").value, prompt = $("hg-prompt-in").value.trim();
    if (!prompt) { return null; }
    var text = "round " + quote(prompt) + " " + kind;
    if (kind === "number") { text += " " + ($("hg-low").value || "1") + "-" + ($("hg-high").value || "10"); }
    if (kind === "choice") {
      text += " " + $("hg-choices").value.split(",").map(function (c) { return c.trim(); })
        .filter(Boolean).map(quote).join(", ");
    }
    if (kind === "square") { text += " " + ($("hg-rows").value || "3") + "x" + ($("hg-cols").value || "3"); }
    var seats = [];
    document.querySelectorAll(".hg-seat-pick:checked").forEach(function (c) { seats.push(c.value); });
    if (seats.length) { text += " seats " + seats.join(","); }
    if ($("hg-reveal").value !== "everyone") { text += " reveal " + $("hg-reveal").value; }
    if ($("hg-time").value) { text += " time " + $("hg-time").value; }
    return text;
  }

  function showKind() {
    var kind = $("hg-kind") && $("hg-kind").value;
    document.querySelectorAll(".hg-kind-fields").forEach(function (el) { el.hidden = el.dataset.kind !== kind; });
  }

  document.addEventListener("input", function (e) {
    var free = e.target.closest && e.target.closest("#hg-free");
    if (!free) { return; }
    var value = free.value.trim();
    if (!value) { window.Composer.set(pending("")); return; }
    window.Composer.set(pending(prefix() + (free.dataset.kind === "number" ? value : quote(value))));
  });
  document.addEventListener("change", function (e) { if (e.target.id === "hg-kind") { showKind(); } });
  document.addEventListener("click", function (e) {
    if (!e.target.closest) { return; }
    if (e.target.closest("#hg-compose-round")) {
      var text = roundText();
      if (text) { window.Composer.set(pending(text)); } else { $("hg-prompt-in").focus(); }
    } else if (e.target.closest("#hg-compose-announce")) {
      var line = $("hg-announce-in").value.trim();
      if (line) { window.Composer.set(pending("announce " + quote(line))); } else { $("hg-announce-in").focus(); }
    }
  });
  // what was sent: the pending move when the move form goes (the composer keeps the box equal to it)
  document.addEventListener("submit", function () {
    var p = window.Composer.pending();
    sent = p && typeof p.text === "string" ? p.text : null;
  }, true);
  document.addEventListener("DOMContentLoaded", showKind);

  window.Composer.register("custom", {
    empty: function () { return pending(""); },
    text: function (p) { return p.text; },
    parse: function (text) { return pending(text); },
    click: click,
    draw: draw,
    submitLabel: function () { return document.body.classList.contains("audience-host") ? "Send" : "Send answer"; },
    // a seat's answer must not wipe what the host is writing: start afresh only after sending it
    changed: function (p) { return sent !== null && p.text === sent ? pending("") : undefined; }
  });
})();
