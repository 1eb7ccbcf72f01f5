// The office page's script (officeview.py): the page is whole without it; this keeps it live.
// It long-polls /api/live?since=VERSION (the server holds the request until a newer snapshot,
// at most 15 s) and swaps in the #live part the server rendered: the page's own autoescaped
// markup, parsed by DOMParser (which runs no script) and moved in as nodes. What the reader
// opened (the folded schedule warnings, the history) stays open.
(function () {
  "use strict";
  var status = document.getElementById("status");
  // The language the page was asked in (?lang=), if any: the live part is asked in it too,
  // so its links keep it exactly as the first rendering did.
  var asked = new URLSearchParams(location.search).get("lang");
  var lang = asked ? "&lang=" + encodeURIComponent(asked) : "";
  function setStatus(state, text) {
    status.setAttribute("data-status", state);
    status.textContent = text;
  }
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function swap(fresh) {
    var current = document.getElementById("live");
    var open = {};
    current.querySelectorAll("details[open][id]").forEach(function (d) { open[d.id] = true; });
    var node = document.adoptNode(fresh);
    node.querySelectorAll("details[id]").forEach(function (d) { if (open[d.id]) d.open = true; });
    current.replaceWith(node);
    var title = node.getAttribute("data-title") || "";
    document.getElementById("tournament-name").textContent = title;
    document.title = title;
    document.body.setAttribute("data-version", node.getAttribute("data-version"));
    document.body.setAttribute("data-updates", String(Number(document.body.getAttribute("data-updates") || 0) + 1));
  }
  async function poll() {
    var version = document.body.getAttribute("data-version") || "0";
    setStatus("ok", status.getAttribute("data-live"));
    for (;;) {
      try {
        // A bound above the server's 15 s hold: a connection that died silently (a LAN
        // cable, a sleeping switch) is given up and asked again instead of waited on forever.
        var opts = { cache: "no-store" };
        if (typeof AbortSignal !== "undefined" && AbortSignal.timeout) opts.signal = AbortSignal.timeout(45000);
        var resp = await fetch("/api/live?since=" + encodeURIComponent(version) + lang, opts);
        if (resp.status !== 200 && resp.status !== 204) throw new Error("HTTP " + resp.status);
        setStatus("ok", status.getAttribute("data-live"));
        if (resp.status === 204) continue;  // nothing newer within the hold: ask again
        var doc = new DOMParser().parseFromString(await resp.text(), "text/html");
        var fresh = doc.getElementById("live");
        if (!fresh) throw new Error("not the page's live part");
        version = fresh.getAttribute("data-version") || "0";
        swap(fresh);
      } catch (err) {
        setStatus("error", status.getAttribute("data-lost"));
        await sleep(1000);
      }
    }
  }
  poll();
})();
