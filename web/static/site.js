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
    var current = buttons.length ? buttons[0].getAttribute("data-col") : null;
    function fit() {
      switcher.hidden = !narrow.matches;
      table.classList.toggle("one-version", narrow.matches);
      buttons.forEach(function (b) {
        b.setAttribute("aria-pressed", String(b.getAttribute("data-col") === current));
      });
      table.querySelectorAll("[data-col]").forEach(function (cell) {
        cell.classList.toggle("on", narrow.matches && cell.getAttribute("data-col") === current);
      });
    }
    switcher.addEventListener("click", function (ev) {
      var col = ev.target.getAttribute && ev.target.getAttribute("data-col");
      if (col) { current = col; fit(); }
    });
    // Left and right arrows show the previous or next version, as tabs would.
    switcher.addEventListener("keydown", function (ev) {
      if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
      var list = Array.prototype.slice.call(buttons);
      var i = list.findIndex(function (b) { return b.getAttribute("data-col") === current; });
      var next = list[(i + (ev.key === "ArrowRight" ? 1 : list.length - 1)) % list.length];
      if (!next) return;
      ev.preventDefault();
      current = next.getAttribute("data-col");
      fit();
      next.focus();
    });
    fit();
    if (narrow.addEventListener) narrow.addEventListener("change", fit);
  });
  // Citation previews: hovering or focusing a citation link shows the cited provision's
  // title and first lines (fetched from its JSON twin); Escape or leaving hides it.
  var cache = {}, tip = null, owner = null, seq = 0;
  function hideTip() {
    if (tip) { tip.hidden = true; }
    if (owner) { owner.removeAttribute("aria-describedby"); owner = null; }
  }
  function excerpt(node) {
    var text = node.text || "";
    if (!text && node.children && node.children.length) text = node.children[0].text || "";
    return text.length > 220 ? text.slice(0, 217).replace(/\s+\S*$/, "") + "…" : text;
  }
  // The Greek book's labels in its own script (ingest.labels.greek_label).
  var CAPS = ["Α", "Β", "Γ", "Δ", "Ε", "ΣΤ", "Ζ", "Η", "Θ", "Ι", "Κ", "Λ"];
  var ITEMS = ["α", "β", "γ", "δ", "ε", "στ", "ζ", "η", "θ", "ι", "ια", "ιβ", "ιγ", "ιδ"];
  function bookLabel(node) {
    var m = /^(\d+)([A-L])?(\.?\d+)?(?:\(([a-n])\))?((?:\([ivx]+\))*)$/.exec(node.label || "");
    if (!m || node.doc.indexOf("el-") !== 0) return node.label || "";
    return m[1] + (m[2] ? CAPS[m[2].charCodeAt(0) - 65] : "") + (m[3] || "") +
      (m[4] ? "(" + ITEMS[m[4].charCodeAt(0) - 97] + ")" : "") + m[5];
  }
  function showTip(link, node) {
    if (!tip) {
      tip = document.createElement("div");
      tip.id = "cite-preview";
      tip.className = "cite-preview";
      tip.setAttribute("role", "tooltip");
      document.body.appendChild(tip);
    }
    var lang = link.closest("[lang]");
    tip.setAttribute("lang", lang ? lang.getAttribute("lang") : "en");
    tip.textContent = "";
    var head = document.createElement("strong");
    head.textContent = (node.label ? bookLabel(node) + " " : "") + (node.title || "");
    var id = document.createElement("small");
    id.setAttribute("lang", "en");
    id.textContent = " " + node.id;
    var body = document.createElement("p");
    body.textContent = excerpt(node);
    tip.appendChild(head);
    tip.appendChild(id);
    tip.appendChild(body);
    var r = link.getBoundingClientRect();
    tip.hidden = false;
    var left = Math.max(8, Math.min(r.left + window.scrollX,
      window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 8));
    tip.style.left = left + "px";
    tip.style.top = (r.bottom + window.scrollY + 6) + "px";
    owner = link;
    link.setAttribute("aria-describedby", tip.id);
  }
  function preview(ev) {
    var link = ev.target.closest && ev.target.closest("a.cite");
    if (!link) return;
    var target = decodeURIComponent(link.pathname.replace(/^\/doc\//, ""));
    var mine = ++seq;
    if (cache[target]) { showTip(link, cache[target]); return; }
    fetch("/api/nodes/" + link.pathname.replace(/^\/doc\//, ""), { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (node) {
        if (!node) return;
        cache[target] = node;
        if (mine === seq) showTip(link, node);
      })
      .catch(function () {});
  }
  function leave(ev) {
    var link = ev.target.closest && ev.target.closest("a.cite");
    if (link && link === owner) { seq++; hideTip(); }
  }
  document.addEventListener("mouseover", preview);
  document.addEventListener("focusin", preview);
  document.addEventListener("mouseout", leave);
  document.addEventListener("focusout", leave);
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") hideTip(); });
  // A box that scrolls says so while part of its content is hidden beyond an edge: a
  // comparison taller than the window (rows below), a table wider than its box, as a
  // comparison of every book or a report on a phone (columns to the right).
  function scrollHint(selector, className, text, where, hidden) {
    document.querySelectorAll(selector).forEach(function (wrap) {
      var note = document.createElement("p");
      note.className = className;
      note.textContent = text;
      note.hidden = true;
      wrap.insertAdjacentElement(where, note);
      function update() { note.hidden = hidden(wrap); }
      wrap.addEventListener("scroll", update, { passive: true });
      window.addEventListener("resize", update);
      update();
    });
  }
  scrollHint(".compare-wrap", "more-below", "More rows below: scroll inside the table \u2193",
    "afterend", function (w) { return w.scrollTop + w.clientHeight >= w.scrollHeight - 4; });
  scrollHint(".compare-wrap", "more-right",
    "More columns to the right: scroll the table sideways \u2192",
    "beforebegin", function (w) { return w.scrollLeft + w.clientWidth >= w.scrollWidth - 4; });
  scrollHint("div.scroll", "more-right",
    "More columns to the right: scroll the table sideways \u2192",
    "beforebegin", function (w) { return w.scrollLeft + w.clientWidth >= w.scrollWidth - 4; });
})();
