// linkpatrol dashboard: progressive enhancement only. Every page works without this file; with it, forms marked
// data-confirm ask first, times read in the browser's time zone, and a running crawl's numbers and broken-link
// table update live. Text is set with textContent; the only HTML taken in is our own page, re-fetched.
(() => {
  document.addEventListener("submit", (event) => {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });

  // --- Times: the server writes UTC ("2026-11-25 14:31 UTC"); here they become the reader's local time, UTC on hover.
  var two = (n) => (n < 10 ? `0${n}` : String(n));
  var zoneName = (() => {
    try {
      var part = new Intl.DateTimeFormat("en-US", { timeZoneName: "short" }).formatToParts(new Date()).filter((p) => p.type === "timeZoneName")[0];
      return part ? part.value : "local time";
    } catch {
      return "local time";
    }
  })();
  function localText(date, seconds) {
    var text = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
    return `${seconds ? `${text}:${two(date.getSeconds())}` : text} ${zoneName}`;
  }
  function localizeTimes(root) {
    var times = root.querySelectorAll("time[data-local]");
    for (var i = 0; i < times.length; i++) {
      var time = times[i];
      var date = new Date(time.getAttribute("datetime"));
      if (Number.isNaN(date.getTime())) continue;
      var kind = time.getAttribute("data-local");
      var utc = `${date
        .toISOString()
        .slice(0, kind === "abs-s" ? 19 : 16)
        .replace("T", " ")} UTC`;
      var local = localText(date, kind === "abs-s");
      if (kind === "abs" || kind === "abs-s") {
        time.textContent = local;
        time.setAttribute("title", utc);
      } else {
        time.setAttribute("title", `${local} (${utc})`);
      }
    }
  }
  localizeTimes(document);

  // --- Live progress: poll the numbers; when the broken count moved, fetch this page again and swap the panel
  // and the table together, so they always show the same state.
  var live = document.querySelector("[data-progress-url]");
  if (!live) return;
  var url = live.getAttribute("data-progress-url");
  var meta = document.querySelector('meta[http-equiv="refresh"]');
  if (meta) meta.parentNode.removeChild(meta); // polling replaces the no-script page refresh
  var failures = 0;

  function show(progress) {
    var shown = progress.shown || {};
    Object.keys(shown).forEach((name) => {
      var cell = live.querySelector(`[data-field="${name}"]`);
      if (cell) cell.textContent = String(shown[name]);
    });
    var bar = live.querySelector('[data-field-value="percent_done"]');
    if (bar) bar.value = progress.percent_done === null ? 0 : progress.percent_done;
  }

  /** True while the reader works in the table (typing a filter, rows opened): swapping it would undo that. */
  function busy(results) {
    return results.contains(document.activeElement) || results.querySelector("details[open]") !== null;
  }

  function refreshTable(results) {
    return fetch(window.location.href, { credentials: "same-origin", headers: { accept: "text/html" } })
      .then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.text();
      })
      .then((html) => {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var panel = fresh.querySelector("[data-progress-url]");
        var table = fresh.getElementById("live-results");
        if (!panel || !table) return window.location.reload(); // the crawl ended: show its final page
        if (busy(results)) return;
        var newPanel = document.importNode(panel, true);
        var newTable = document.importNode(table, true);
        live.parentNode.replaceChild(newPanel, live);
        results.parentNode.replaceChild(newTable, results);
        live = newPanel;
        localizeTimes(newPanel);
        localizeTimes(newTable);
      });
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } })
      .then((response) => {
        if (response.status === 429) {
          // Over the rate limit: wait as long as the server asks (at least 5 s), without counting a failure.
          var wait = Math.min(300, Math.max(5, Number(response.headers.get("retry-after")) || 5));
          setTimeout(poll, wait * 1000);
          return null;
        }
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.json();
      })
      .then((progress) => {
        if (progress === null) return null;
        failures = 0;
        if (progress.status !== "pending" && progress.status !== "running") return window.location.reload();
        var results = document.getElementById("live-results");
        var stale = results !== null && results.getAttribute("data-broken-links") !== String(progress.broken_links);
        if (stale && !busy(results)) return refreshTable(results).then(next);
        show(progress);
        if (results !== null) {
          var note = results.querySelector("[data-stale]");
          if (note) note.hidden = !stale;
          // Unchanged count: the table is still true now, so its time moves on.
          var asOf = results.querySelector(".as-of time");
          if (asOf && !stale) {
            asOf.setAttribute("datetime", progress.as_of);
            localizeTimes(results);
          }
        }
        next();
      })
      .catch(() => {
        failures += 1;
        if (failures < 30) setTimeout(poll, 5000);
      });
  }
  function next() {
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 1000);
})();
