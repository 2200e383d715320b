// Small enhancements; every page reads and works without this file.
(function () {
  "use strict";
  // "[" and "]" go to the previous and next provision (the rel=prev/next links).
  document.addEventListener("keydown", function (ev) {
    var t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var rel = ev.key === "[" ? "prev" : ev.key === "]" ? "next" : null;
    if (ev.key === "/") {
      var box = document.getElementById("nav-go");
      if (box) { ev.preventDefault(); box.focus(); }
      return;
    }
    if (!rel) return;
    var link = document.querySelector('a[rel="' + rel + '"]');
    if (link) { window.location.href = link.href; }
  });
  // Sortable tables: a header with data-sort becomes a button that sorts its column.
  document.querySelectorAll("table[data-sortable]").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      if (!th.hasAttribute("data-sort")) return;
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", function () {
        var asc = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { if (h.hasAttribute("aria-sort")) h.setAttribute("aria-sort", "none"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var numeric = th.getAttribute("data-sort") === "number";
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute("data-value") || a.cells[col].textContent.trim();
          var y = b.cells[col].getAttribute("data-value") || b.cells[col].textContent.trim();
          var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y, undefined, { numeric: true });
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  // Compare page on a narrow screen: one version at a time, chosen with the switcher.
  var narrow = window.matchMedia("(max-width: 40rem)");
  document.querySelectorAll(".switcher").forEach(function (switcher) {
    var wrap = switcher.nextElementSibling;
    var table = wrap && wrap.querySelector("table.compare");
    if (!table) return;
    var buttons = switcher.querySelectorAll("button[data-col]");
    function show(col) {
      buttons.forEach(function (b) { b.setAttribute("aria-pressed", String(b.getAttribute("data-col") === col)); });
      table.querySelectorAll("[data-col]").forEach(function (cell) {
        cell.classList.toggle("on", cell.getAttribute("data-col") === col);
      });
    }
    function fit() {
      switcher.hidden = !narrow.matches;
      table.classList.toggle("one-version", narrow.matches);
    }
    switcher.addEventListener("click", function (ev) {
      var col = ev.target.getAttribute && ev.target.getAttribute("data-col");
      if (col) show(col);
    });
    if (buttons.length) show(buttons[0].getAttribute("data-col"));
    fit();
    if (narrow.addEventListener) narrow.addEventListener("change", fit);
  });
})();
