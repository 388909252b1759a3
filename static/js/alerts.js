// Your turn and clock alerts, and polite announcements for screen readers.
// Every alert is optional and saved in this browser: a sound (a short tone
// from the Web Audio API, so no sound file to ship), a flash of the clock and
// a browser notification the player switches on.  The "● " tab title marker
// shows whose turn it is.  Announcements go to the polite #announce region:
// the last move, "your turn" and the end-of-bout banner (errors are role=alert).
(function () {
  "use strict";
  var DEFAULTS = { sound: false, flash: true, notify: false };
  // errors are not repeated here: #move-error and #host-flash are role="alert" already
  var state = { myTurn: null, last: null, banner: null };

  // null: never chosen in this browser (or no storage here)
  function chosen(name) {
    try { return localStorage.getItem("dm-alert-" + name); } catch (e) { return null; /* private mode */ }
  }
  function enabled(name) {
    var v = chosen(name);
    return v === null ? DEFAULTS[name] : v === "1";
  }
  function save(name, on) { try { localStorage.setItem("dm-alert-" + name, on ? "1" : "0"); } catch (e) { /* ignore */ } }

  var audio = null;
  // a browser starts sound only from a click or a key: the first one on the page readies it
  function unlock() {
    if (!enabled("sound")) { return; }
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") { audio.resume(); }
    } catch (e) { /* no audio here */ }
  }
  document.addEventListener("pointerdown", unlock, true);
  document.addEventListener("keydown", unlock, true);

  function beep(high) {
    if (!enabled("sound")) { return; }
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      var osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = high ? 880 : 660;
      gain.gain.setValueAtTime(0.15, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
      osc.connect(gain); gain.connect(audio.destination);
      osc.start(); osc.stop(audio.currentTime + 0.35);
    } catch (e) { /* no audio here */ }
  }

  function announce(text) {
    var region = document.getElementById("announce");
    if (!region || !text) { return; }
    // clear first so the same sentence twice is read twice
    region.textContent = "";
    setTimeout(function () { region.textContent = text; }, 50);
  }
  window.dmAnnounce = announce;

  function notify(text) {
    if (!enabled("notify") || !("Notification" in window) || Notification.permission !== "granted") { return; }
    if (!document.hidden) { return; }
    try { new Notification(document.title.replace(/^● /, ""), { body: text, tag: "dm-turn" }); } catch (e) { /* ignore */ }
  }

  function title(myTurn) {
    var base = document.title.replace(/^● /, "");
    document.title = myTurn ? "● " + base : base;
  }

  function update() {
    var meta = document.getElementById("live-meta");
    if (!meta) { return; }
    var myTurn = meta.dataset.myTurn === "1";
    title(myTurn);
    var parts = [];
    var status = document.getElementById("status");
    var last = status ? (status.dataset.last || "") : "";
    if (state.last !== null && last && last !== state.last) { parts.push("Last move: " + last + "."); }
    var banner = document.getElementById("banner");
    var headline = banner && !banner.hidden ? banner.querySelector(".banner-head") : null;
    var bannerText = headline ? headline.textContent.trim() : "";
    if (bannerText && bannerText !== state.banner) {
      parts.push(bannerText + ".");
      clearStale();
      // a bout just ended: show the banner even if the page was scrolled down to the board (phones)
      if (state.banner !== null && banner.getBoundingClientRect().top < 0) { banner.scrollIntoView({ block: "start" }); }
    }
    if (state.myTurn === false && myTurn) {
      parts.push("Your turn.");
      beep(true);
      notify("Your turn" + (last ? ": last move " + last : ""));
    }
    if (state.myTurn !== null && parts.length) { announce(parts.join(" ")); }
    state.myTurn = myTurn; state.last = last; state.banner = bannerText;
  }

  // (a flash holding the undo toast of an ending stays its 30 seconds: confirm.js)
  function clearStale() {
    var flash = document.getElementById("host-flash");
    if (flash && !flash.querySelector("#undo-toast")) { flash.hidden = true; }
  }

  // a host notice ("match started") is news for a moment, not for the rest of the match
  var flashTimer = null;
  document.addEventListener("htmx:afterSettle", function () {
    var flash = document.getElementById("host-flash");
    if (flash && !flash.hidden && flash.textContent.trim()) {
      clearTimeout(flashTimer);
      flashTimer = setTimeout(function () { if (!flash.querySelector("#undo-toast")) { flash.hidden = true; } }, 6000);
    }
  });

  document.addEventListener("dm:clock-alert", function (e) {
    if (!e.detail.mine) { return; }
    var el = e.detail.clock;
    if (enabled("flash")) {
      el.classList.remove("alerting"); void el.offsetWidth; el.classList.add("alerting");
      setTimeout(function () { el.classList.remove("alerting"); }, 2400);
    }
    beep(e.detail.kind === "reserve");
    announce(e.detail.kind === "reserve" ? "Your move time is up: the reserve is running." : "10 seconds left on your move.");
  });

  function setupSettings() {
    document.querySelectorAll("input[data-alert]").forEach(function (box) {
      var name = box.dataset.alert;
      box.checked = enabled(name);
      box.addEventListener("change", function () {
        save(name, box.checked);
        if (name === "sound") { var offer = document.getElementById("sound-offer"); if (offer) { offer.hidden = true; } }
        if (name === "sound" && box.checked) { beep(false); }
        if (name === "notify" && box.checked) {
          var out = document.getElementById("notify-state");
          if (!("Notification" in window)) { if (out) { out.textContent = "This browser has no notifications."; } return; }
          Notification.requestPermission().then(function (p) {
            if (out) { out.textContent = p === "granted" ? "Notifications on while this tab is in the background." : "Notifications are blocked for this site."; }
          });
        }
      });
    });
  }

  // A seat's first match page in this browser offers the turn sound (partials/sound_offer.html)
  // instead of leaving it folded in Alerts: either answer is saved as the Alerts box's choice, so the
  // offer is made once.  Where nothing can be saved (storage refused) it is not made at all.
  function offerSound() {
    var offer = document.getElementById("sound-offer");
    if (!offer || chosen("sound") !== null) { return; }
    try { localStorage.setItem("dm-alert-probe", "1"); localStorage.removeItem("dm-alert-probe"); } catch (e) { return; }
    offer.hidden = false;
    function answer(on) {
      save("sound", on);
      offer.hidden = true;
      var box = document.querySelector('input[data-alert="sound"]');
      if (box) { box.checked = on; }
      if (on) { beep(false); }
      announce(on ? "Sounds on: a tone when it is your turn. Change it under Alerts."
                  : "No sounds. You can turn them on under Alerts.");
    }
    document.getElementById("sound-offer-on").addEventListener("click", function () { answer(true); });
    document.getElementById("sound-offer-off").addEventListener("click", function () { answer(false); });
  }

  document.addEventListener("htmx:wsAfterMessage", update);
  document.addEventListener("htmx:afterSettle", update);
  document.addEventListener("htmx:afterRequest", function () { setTimeout(update, 0); });
  document.addEventListener("DOMContentLoaded", function () { setupSettings(); offerSound(); update(); });
})();
