// linkpatrol dashboard: progressive enhancement only. Every page works without this file; with it, forms marked
// data-confirm ask first and a running crawl's numbers update live. Text is set with textContent, never HTML.
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });

  var live = document.querySelector("[data-progress-url]");
  if (!live) return;
  var url = live.getAttribute("data-progress-url");
  var meta = document.querySelector('meta[http-equiv="refresh"]');
  if (meta) meta.parentNode.removeChild(meta); // polling replaces the no-script page refresh
  var failures = 0;

  function show(progress) {
    Object.keys(progress).forEach(function (name) {
      var cell = live.querySelector('[data-field="' + name + '"]');
      if (cell) cell.textContent = typeof progress[name] === "number" ? progress[name].toLocaleString("en-US") : String(progress[name]);
    });
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } })
      .then(function (response) {
        if (response.status === 429) {
          // Over the rate limit: wait as long as the server asks (at least 5 s), without counting a failure.
          var wait = Math.min(300, Math.max(5, Number(response.headers.get("retry-after")) || 5));
          setTimeout(poll, wait * 1000);
          return null;
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (progress) {
        if (progress === null) return;
        failures = 0;
        show(progress);
        if (progress.status === "pending" || progress.status === "running") setTimeout(poll, 2000);
        else window.location.reload();
      })
      .catch(function () {
        failures += 1;
        if (failures < 30) setTimeout(poll, 5000);
      });
  }
  setTimeout(poll, 1000);
})();
