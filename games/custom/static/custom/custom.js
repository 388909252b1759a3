// The Host's game: clicks and small fields write canonical notation (composer.js
// owns the pending move and the box).  Every button the server draws carries the
// exact action it stands for (data-notation, and a readable data-label); this
// script only joins the pieces a click cannot know alone: the seats picked so
// far, a typed number or text, the reason for points, the host's round definition.
//
// A seat's click replaces its answer in the box.  The host's console adds: each
// click puts one action on the list #hg-queue (readable, the notation beside it,
// each removable; points for one seat and reason add up), and Send sends the list
// (one hidden `text` field an action) and then what is typed in the box, all at once.
(function () {
  "use strict";
  var sent = null;   // what was last sent (JSON of the pending move): a board change after it starts afresh

  function $(id) { return document.getElementById(id); }
  function quote(text) { return JSON.stringify(String(text).trim()); }
  function prefix() { var a = $("hg-answer"); return a ? a.dataset.prefix : ""; }
  function pending(text, seats, items) { return { text: text || "", seats: seats || [], items: items || [] }; }
  function hosting() { return !!$("hg-queue"); }

  // -- the host's list: {text, label, points: {seat, amount, reason, name}} each
  function pointsText(q) {
    return (q.amount > 0 ? "give " : "take ") + q.seat + " " + Math.abs(q.amount) + " " + quote(q.reason);
  }
  function pointsLabel(q) {
    return q.name + " " + (q.amount > 0 ? "+" : "\u2212") + Math.abs(q.amount) + " (" + q.reason + ")";
  }
  function add(p, item) {
    return pending(p.text, p.seats, p.items.concat([item]));
  }
  function addPoints(p, seat, delta, reason, name) {
    var items = p.items.slice();
    var at = items.findIndex(function (i) { return i.points && i.points.seat === seat && i.points.reason === reason; });
    if (at < 0) {
      var q = { seat: seat, amount: delta, reason: reason, name: name };
      items.push({ text: pointsText(q), label: pointsLabel(q), points: q });
    } else {
      var sum = Object.assign({}, items[at].points, { amount: items[at].points.amount + delta });
      if (sum.amount === 0) { items.splice(at, 1); }   // +1 then -1: nothing left to send
      else { items[at] = { text: pointsText(sum), label: pointsLabel(sum), points: sum }; }
    }
    return pending(p.text, p.seats, items);
  }
  function without(p, index) {
    var items = p.items.slice();
    items.splice(index, 1);
    return pending(p.text, p.seats, items);
  }
  function drawQueue(p) {
    var list = $("hg-queue-list"), empty = $("hg-queue-empty");
    if (!list) { return; }
    var shown = JSON.stringify(p.items.map(function (i) { return [i.text, i.label]; }));
    if (list.dataset.shown === shown) { return; }
    list.dataset.shown = shown;
    list.textContent = "";
    p.items.forEach(function (item, index) {
      var li = document.createElement("li"), label = document.createElement("span"), code = document.createElement("code");
      var field = document.createElement("input"), remove = document.createElement("button");
      li.className = "hg-queue-item";
      li.dataset.text = item.text;
      label.className = "hg-queue-label";
      label.textContent = item.label;
      code.textContent = item.text;
      field.type = "hidden"; field.name = "text"; field.value = item.text;
      remove.type = "button"; remove.className = "ghost small hg-queue-remove"; remove.dataset.index = index;
      remove.textContent = "\u00d7";
      remove.setAttribute("aria-label", "remove: " + item.label);
      remove.title = "remove";
      li.append(label, " ", code, field, " ", remove);
      list.append(li);
    });
    if (empty) { empty.hidden = p.items.length > 0; }
  }

  // -- a season's main match (issue 52): what the end gives.  The boxes of #hg-awards start at what
  // "End: ranking by points" gives; a change writes `token S candidate S` into the end's notation
  // (the queued end too), and the server says in words what the end in the box or the list gives.
  var chosen = null;          // the host's ticks ({token: [seats], candidate: [seats]}), null: untouched
  var previewed = null, previewWords = "", previewTimer = null;
  function awardsBox() { return $("hg-awards"); }
  function seatList(text) { return text ? text.split(",").map(function (n) { return parseInt(n, 10); }) : []; }
  function ticked(kind) {
    var out = [];
    document.querySelectorAll('#hg-awards .hg-award[data-award="' + kind + '"]:checked').forEach(function (b) {
      out.push(parseInt(b.value, 10));
    });
    return out.sort(function (a, b) { return a - b; });
  }
  function awardsChanged() {
    var box = awardsBox();
    return !!(box && chosen && (chosen.token.join(",") !== seatList(box.dataset.defaultToken).join(",") ||
                                chosen.candidate.join(",") !== seatList(box.dataset.defaultCandidate).join(",")));
  }
  function withAwards(base) {
    if (!awardsChanged()) { return base; }
    return base + (chosen.token.length ? " token " + chosen.token.join(",") : "") +
      (chosen.candidate.length ? " candidate " + chosen.candidate.join(",") : "");
  }
  function seatNames(seats) {
    return seats.map(function (s) {
      var b = document.querySelector('#hg-awards .hg-award[value="' + s + '"]');
      return b ? b.dataset.name : "seat " + s;
    }).join(" and ");
  }
  function awardWords() {
    var box = awardsBox();
    if (!box) { return ""; }
    if (!awardsChanged()) { return box.dataset.words; }
    return "Token of Life: " + (chosen.token.length ? seatNames(chosen.token) : "by the ranking") +
      ". Elimination Candidate: " + (chosen.candidate.length ? seatNames(chosen.candidate) : "by the ranking") + ".";
  }
  function endItem(base, baseLabel) {
    var words = awardWords();
    return { text: withAwards(base), label: baseLabel + (words ? ". " + words : ""), end: base, baseLabel: baseLabel };
  }
  function rewriteEnds(p) {   // the queued end follows the boxes
    return pending(p.text, p.seats, p.items.map(function (i) { return i.end ? endItem(i.end, i.baseLabel) : i; }));
  }
  // the server's words for the end about to be sent (typed in the box, else the queued one)
  function preview(p) {
    var box = awardsBox(), out = $("hg-awards-typed");
    if (!box || !out || !box.dataset.previewUrl) { return; }
    var queued = p.items.filter(function (i) { return /^end\b/i.test(i.text); });
    var text = /^\s*end\b/i.test(p.text) ? p.text.trim() : (queued.length ? queued[queued.length - 1].text : "");
    if (!text) { previewed = null; previewWords = ""; out.hidden = true; out.textContent = ""; return; }
    if (text === previewed) {   // a live update redrew the console: put the words back
      out.textContent = previewWords; out.hidden = !previewWords;
      return;
    }
    previewed = text;
    clearTimeout(previewTimer);
    previewTimer = setTimeout(function () {
      fetch(box.dataset.previewUrl + "?text=" + encodeURIComponent(text), { credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : ""; })
        .then(function (words) {
          if (previewed !== text) { return; }
          previewWords = words ? (/^\s*end\b/i.test(p.text) ? "Typed" : "To send") + " (" + text + "): " + words : "";
          var o = $("hg-awards-typed");
          if (o) { o.textContent = previewWords; o.hidden = !previewWords; }
        })
        .catch(function () { /* offline: no preview, the send still says what it did */ });
    }, 200);
  }
  function drawAwards(p) {
    var box = awardsBox();
    if (!box) { return; }
    if (chosen) {
      box.querySelectorAll(".hg-award").forEach(function (b) {
        b.checked = chosen[b.dataset.award].indexOf(parseInt(b.value, 10)) >= 0;
      });
    }
    var line = $("hg-awards-preview");
    var text = "End: ranking by points gives: " + awardWords();
    if (line && line.textContent !== text) { line.textContent = text; }
    preview(p);
  }
  document.addEventListener("change", function (e) {
    if (!e.target.closest || !e.target.closest("#hg-awards .hg-award")) { return; }
    chosen = { token: ticked("token"), candidate: ticked("candidate") };
    window.Composer.set(rewriteEnds(current()));
  });

  function click(coord, el, p) {
    if (hosting()) {
      if (el.id === "hg-end-ranking" && awardsBox()) {
        return add(p, endItem(el.dataset.notation, el.dataset.baseLabel || el.dataset.label));
      }
      if (el.dataset.notation) {
        return add(p, { text: el.dataset.notation, label: el.dataset.label || el.textContent.trim() });
      }
      if (el.dataset.points) {
        var words = el.dataset.points.split(" ");
        var why = ($("hg-reason") && $("hg-reason").value.trim()) || "points";
        return addPoints(p, parseInt(words[1], 10), (words[0] === "take" ? -1 : 1) * parseInt(words[2], 10), why,
                         el.dataset.name || ("seat " + words[1]));
      }
      return undefined;
    }
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
    var queued = p.items.map(function (i) { return i.text; });
    document.querySelectorAll("#hg [data-notation]").forEach(function (b) {
      b.classList.toggle("picked", (!!p.text && b.dataset.notation === p.text) || queued.indexOf(b.dataset.notation) >= 0);
    });
    drawQueue(p);
    drawAwards(p);
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
  function current() { return window.Composer.pending() || pending(""); }
  document.addEventListener("click", function (e) {
    if (!e.target.closest) { return; }
    var remove = e.target.closest(".hg-queue-remove");
    if (remove) {
      window.Composer.set(without(current(), parseInt(remove.dataset.index, 10)));
    } else if (e.target.closest("#hg-compose-round")) {
      var text = roundText();
      if (text) {
        window.Composer.set(add(current(), { text: text, label: "Open round " + quote($("hg-prompt-in").value) }));
      } else { $("hg-prompt-in").focus(); }
    } else if (e.target.closest("#hg-compose-announce")) {
      var line = $("hg-announce-in").value.trim();
      if (line) { window.Composer.set(add(current(), { text: "announce " + quote(line), label: "Announce " + quote(line) })); }
      else { $("hg-announce-in").focus(); }
    }
  });
  // what was sent: the pending move when the move form goes (the composer keeps the box equal to its text);
  // a refused Send (the host's flash says why) sent nothing, and the list stays as it was
  function sending(p) {
    sent = p && typeof p.text === "string" ? { text: p.text, items: p.items.map(function (i) { return i.text; }) } : null;
  }
  function answered(ok, reply) {
    if (hosting() && (!ok || reply.indexOf('class="flash error"') >= 0)) { sent = null; }
  }
  // after a Send went through: what it sent leaves the box and the list (what was added since stays)
  function afterSent(p) {
    if (sent === null) { return undefined; }
    var n = sent.items.length, head = p.items.slice(0, n).map(function (i) { return i.text; });
    if (JSON.stringify(head) !== JSON.stringify(sent.items)) { return undefined; }
    var text = p.text === sent.text ? "" : p.text;
    sent = null;
    return pending(text, [], p.items.slice(n));
  }
  document.addEventListener("DOMContentLoaded", showKind);

  window.Composer.register("custom", {
    empty: function () { return pending(""); },
    text: function (p) { return p.text; },
    // typing changes the box only: the host's list stays
    parse: function (text, p) { return pending(text, [], p ? p.items : []); },
    click: click,
    draw: draw,
    submitLabel: function (p) {
      if (!hosting()) { return "Send answer"; }
      var count = p.items.length + (p.text.trim() ? 1 : 0);
      return count > 1 ? "Send " + count : "Send";  // short: the phone's bar stays one line
    },
    // a seat's answer must not wipe what the host is writing: start afresh only after sending it
    changed: afterSent,
    sending: sending,
    answered: answered
  });
})();
