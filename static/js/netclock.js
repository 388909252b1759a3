// Clock sync and think time on the match socket (issue 26; server side: matches/web/consumers.py).
//
// The page's own clock may be wrong by any amount, and drifts: the offset to the server's clock
// is measured NTP-style.  The page sends {"type": "ping", "n": n}; the server answers at once
// with {"type": "pong", "n": n, "now": <its time in ms>}; the sample's offset is
// now + rtt/2 - (the page's time at the answer), and the sample with the shortest round trip of
// the last few is the best (the least time for the two legs to differ).  Pings go on connect
// (three, a moment apart), every minute, when the page becomes visible again (after a sleep)
// and when the page's clock jumps.  Until the first pong, clocks.js keeps the estimate from the
// server time written into the page.  The page acknowledges every pong at once: the server
// times pong -> ack itself, the seat's network lag that caps its lag compensation.
//
// Think time: from the moment the position this seat must move in was shown to the moment its
// move is sent, measured on performance.now() (which no clock change moves), and sent with the
// move as "think" (seconds) on the form post (composer.js adds it, from window.dmThinkTime).
(function () {
  "use strict";
  var KEEP = 5;             // samples kept; the best of them is used
  var EVERY = 60000;        // ms between two pings while the socket is open
  var JUMP = 1000;          // ms the page's clock may move against performance.now() before we resync
  var socket = null, n = 0, sent = {}, samples = [], timer = null;
  var base = Date.now() - performance.now();
  var shownAt = null;       // performance.now() when the position to move in was shown

  window.dmServerOffset = null;  // server clock minus the page's clock (ms), once measured

  function ping() {
    if (!socket) { return; }
    n += 1;
    sent[n] = performance.now();
    try { socket.send(JSON.stringify({ type: "ping", n: n })); } catch (err) { delete sent[n]; }
  }

  function choose() {
    var best = null;
    samples.forEach(function (s) { if (!best || s.rtt < best.rtt) { best = s; } });
    window.dmServerOffset = best ? best.offset : null;
    window.dmRoundTrip = best ? best.rtt : null;
    document.dispatchEvent(new CustomEvent("dm:clock-sync"));
  }

  document.addEventListener("htmx:wsOpen", function (e) {
    socket = e.detail.socketWrapper;
    sent = {};
    ping();
    setTimeout(ping, 500);
    setTimeout(ping, 1500);
    if (timer === null) { timer = setInterval(ping, EVERY); }
  });
  document.addEventListener("htmx:wsClose", function () { socket = null; });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) { ping(); } });

  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    var text = e.detail.message;
    if (typeof text !== "string" || text.charAt(0) !== "{") { return; }
    e.preventDefault();  // not HTML: nothing to swap
    var msg;
    try { msg = JSON.parse(text); } catch (err) { return; }
    if (msg.type !== "pong" || typeof msg.n !== "number") { return; }
    var t0 = sent[msg.n];
    if (t0 === undefined) { return; }
    delete sent[msg.n];
    if (socket) { socket.send(JSON.stringify({ type: "ack", n: msg.n })); }  // first: the server times it
    var rtt = performance.now() - t0;
    samples.push({ rtt: rtt, offset: msg.now + rtt / 2 - Date.now() });
    if (samples.length > KEEP) { samples.shift(); }
    choose();
  });

  // the page's clock jumped (set by hand, or a sleep the monotonic clock did not count): the
  // samples measured against the old clock are wrong now
  setInterval(function () {
    var now = Date.now() - performance.now();
    if (Math.abs(now - base) > JUMP) { samples = []; choose(); ping(); }
    base = now;
  }, 1000);

  // -- think time --------------------------------------------------------------------
  function myTurn() {
    var meta = document.getElementById("live-meta");
    return !!meta && meta.dataset.myTurn === "1";
  }
  // from when the position arrived (the words), not from when the page had drawn it: drawing
  // a big board is the page's time, which the server would otherwise count as lag beyond its cap
  var arrivedAt = null;
  function noteTurn() {
    var at = arrivedAt !== null ? arrivedAt : performance.now();
    arrivedAt = null;
    if (!myTurn()) { shownAt = null; return; }
    if (shownAt === null) { shownAt = at; }
  }
  document.addEventListener("htmx:wsBeforeMessage", function () { arrivedAt = performance.now(); });
  document.addEventListener("htmx:wsAfterMessage", noteTurn);
  document.addEventListener("htmx:afterSettle", noteTurn);
  document.addEventListener("DOMContentLoaded", function () {
    if (!myTurn()) { return; }
    // the position came with the page itself: shown from when its first byte arrived
    var nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
    shownAt = nav && nav.responseStart ? nav.responseStart : performance.now();
  });
  // composer.js (the move box's owner) sends it with the move
  window.dmThinkTime = function () { return shownAt === null ? null : (performance.now() - shownAt) / 1000; };
})();
