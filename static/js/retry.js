// A move, a host action or a seat's request cut off by a web process going away (a restart: the
// proxy answers 502/503/504, or the connection drops) is sent again as it was sent: the same
// fields, so the same expected version (a move) or host_seq (a host action), after a random delay
// (so the pages of a restarted process do not all come back in the same millisecond), through the
// proxy to a process that is up.  The server applies it once: a stale version or host_seq is
// refused, and a move that had gone through before its answer was lost is recognised as done
// (matches/web/views.py).  A few tries, then the error stands as htmx reports it.
(function () {
  "use strict";
  var RETRIED = /\/(?:move|act|request)\/$/;  // the forms that change a match (their hx-post)
  var GONE = [502, 503, 504];
  var TRIES = 4;  // ~0.4, 0.8, 1.6, 3.2 s at most: a restart takes a few seconds

  function again(e) {
    var d = e.detail, config = d.requestConfig;
    if (!config || config.verb !== "post" || !RETRIED.test(d.pathInfo.requestPath)) { return; }
    if (e.type === "htmx:responseError" && GONE.indexOf(d.xhr.status) < 0) { return; }
    var tried = +(config.headers["X-Retry"] || 0);
    if (tried >= TRIES) { return; }
    var sent = config.formData;  // the fields as they were sent (the page's version may have moved on)
    var source = d.elt.isConnected ? d.elt : (d.elt.id && document.getElementById(d.elt.id)) || document.body;
    var target = d.target && d.target.isConnected ? d.target : (d.target && d.target.id ? "#" + d.target.id : undefined);
    setTimeout(function () {
      htmx.ajax("POST", d.pathInfo.requestPath, { source: source, target: target, values: sent,
                                                  headers: { "X-Retry": String(tried + 1) } });
    }, Math.random() * 400 * Math.pow(2, tried));
  }
  document.addEventListener("htmx:sendError", again);
  document.addEventListener("htmx:responseError", again);
})();
