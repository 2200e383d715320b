// Zoom and pan for the server-drawn citation graph (wheel, drag, keyboard, buttons).
// Dots and labels keep their size on screen: --k is the user units per screen pixel.
(function () {
  "use strict";
  var svg = document.getElementById("graph");
  if (!svg) return;
  var base = svg.viewBox.baseVal;
  var home = { x: base.x, y: base.y, w: base.width, h: base.height };
  var view = { x: home.x, y: home.y, w: home.w, h: home.h };
  function apply() {
    svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
    var px = svg.getBoundingClientRect().width || home.w;
    svg.style.setProperty("--k", String(view.w / px));
  }
  function zoom(factor, cx, cy) {
    var w = Math.min(Math.max(view.w * factor, home.w / 8), home.w * 4);
    var f = w / view.w;
    if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
    view.x = cx - (cx - view.x) * f;
    view.y = cy - (cy - view.y) * f;
    view.w *= f;
    view.h *= f;
    apply();
  }
  function pan(dx, dy) { view.x += dx * view.w; view.y += dy * view.h; apply(); }
  function reset() { view = { x: home.x, y: home.y, w: home.w, h: home.h }; apply(); }
  function toSvg(ev) {
    var r = svg.getBoundingClientRect();
    return { x: view.x + (ev.clientX - r.left) / r.width * view.w,
             y: view.y + (ev.clientY - r.top) / r.height * view.h };
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var p = toSvg(ev);
    zoom(ev.deltaY < 0 ? 0.85 : 1 / 0.85, p.x, p.y);
  }, { passive: false });
  var drag = null, moved = false;
  svg.addEventListener("pointerdown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y };
    moved = false;
  });
  window.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var r = svg.getBoundingClientRect();
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) moved = true;
    if (!moved) return;
    view.x = drag.vx - dx / r.width * view.w;
    view.y = drag.vy - dy / r.height * view.h;
    apply();
  });
  window.addEventListener("pointerup", function () { drag = null; });
  // A drag that ends on a node must not open it.
  svg.addEventListener("click", function (ev) {
    if (moved) { ev.preventDefault(); moved = false; }
  }, true);
  svg.addEventListener("keydown", function (ev) {
    var keys = { "+": function () { zoom(0.8); }, "=": function () { zoom(0.8); },
      "-": function () { zoom(1.25); }, "0": reset,
      ArrowLeft: function () { pan(-0.1, 0); }, ArrowRight: function () { pan(0.1, 0); },
      ArrowUp: function () { pan(0, -0.1); }, ArrowDown: function () { pan(0, 0.1); } };
    if (ev.target !== svg || !keys[ev.key]) return;
    ev.preventDefault();
    keys[ev.key]();
  });
  apply();
  window.addEventListener("resize", apply);
  // Open with the centre provision in view when the drawing is larger than its box.
  var box = svg.parentNode, centre = svg.querySelector("a.gnode.center");
  if (centre && box.scrollWidth > box.clientWidth) {
    var c = centre.getBoundingClientRect(), b = box.getBoundingClientRect();
    box.scrollLeft += c.left - b.left - box.clientWidth / 2;
    box.scrollTop += c.top - b.top - box.clientHeight / 2;
  }
  var controls = document.querySelector(".graph-controls");
  if (controls) {
    controls.hidden = false;
    controls.addEventListener("click", function (ev) {
      var what = ev.target.getAttribute("data-zoom");
      if (what === "in") zoom(0.8);
      else if (what === "out") zoom(1.25);
      else if (what === "reset") reset();
    });
  }
})();
