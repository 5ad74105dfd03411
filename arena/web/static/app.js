// arena's pages: sortable tables, the leaderboard refreshed while the event runs, the list of
// live tables.  Plain JavaScript, no library; text goes in through textContent only.
"use strict";
var arena = (function () {
  function sortable(root) {
    root.querySelectorAll("table.sortable").forEach(function (table) {
      table.querySelectorAll("th").forEach(function (th, column) {
        if (th.classList.contains("nosort")) return;
        th.classList.add("sorter");
        th.addEventListener("click", function () { sortBy(table, column, th); });
      });
    });
  }
  function sortBy(table, column, th) {
    var numeric = th.dataset.type === "number";
    var down = th.dataset.dir !== "down";
    table.querySelectorAll("th").forEach(function (h) { delete h.dataset.dir; });
    th.dataset.dir = down ? "down" : "up";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[column].dataset.value, y = b.cells[column].dataset.value;
      var order = numeric ? parseFloat(x) - parseFloat(y) : String(x).localeCompare(String(y));
      return down ? (numeric ? -order : order) : (numeric ? order : -order);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    table.dataset.sorted = column + ":" + th.dataset.dir;
  }
  function leaderboard() {
    var holder = document.getElementById("leaderboard");
    sortable(holder);
    setInterval(function () {
      fetch("/leaderboard.json").then(function (r) { return r.json(); }).then(function (data) {
        var pending = data.provisional ? "1" : "";  // provisional: the fit comes at this count
        if (String(data.version) === holder.dataset.version &&
            pending === (holder.dataset.provisional || "")) return;
        return fetch("/?fragment=1").then(function (r) { return r.text(); }).then(function (html) {
          var sorted = Array.prototype.map.call(holder.querySelectorAll("table"),
                                                function (t) { return t.dataset.sorted; });
          holder.innerHTML = html;  // the server's page, escaped there
          scrollHints(holder);
          holder.dataset.version = data.version;
          holder.dataset.provisional = pending;
          sortable(holder);
          holder.querySelectorAll("table").forEach(function (t, k) {
            if (!sorted[k]) return;
            var parts = sorted[k].split(":"), th = t.querySelectorAll("th")[+parts[0]];
            th.dataset.dir = parts[1] === "down" ? "up" : "down";
            sortBy(t, +parts[0], th);
          });
        });
      }).catch(function () {});
    }, +holder.dataset.refresh || 5000);
  }
  function liveList() {
    var list = document.getElementById("tables");
    setInterval(function () {
      fetch("/live.json").then(function (r) { return r.json(); }).then(function (data) {
        list.textContent = "";
        if (!data.tables.length) {
          var none = document.createElement("li");
          none.className = "none";
          none.textContent = "No table is running now.";
          list.appendChild(none);
        }
        data.tables.forEach(function (t) {
          var li = document.createElement("li"), a = document.createElement("a");
          a.href = "/live/" + encodeURIComponent(t.table);
          a.textContent = "table " + t.table;
          li.appendChild(a);
          li.appendChild(document.createTextNode(": " + t.names.join(", ")));
          list.appendChild(li);
        });
      }).catch(function () {});
    }, 2000);
  }
  // A table wider than the screen (a phone) scrolls sideways: a hint says so until it is
  // scrolled to its end.
  function scrollHints(root) {
    root.querySelectorAll(".scroll").forEach(function (box) {
      var hint = box.previousElementSibling;
      if (!hint || !hint.classList.contains("scroll-hint")) {
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = "scroll \u2192";
        box.parentNode.insertBefore(hint, box);
      }
      var update = function () {
        var more = box.scrollWidth - box.clientWidth - box.scrollLeft > 4;
        hint.hidden = !more;
      };
      box.onscroll = update;
      update();
    });
  }
  window.addEventListener("resize", function () { scrollHints(document); });
  document.addEventListener("DOMContentLoaded", function () {
    if (!document.getElementById("leaderboard")) sortable(document);
    scrollHints(document);
  });
  return {leaderboard: leaderboard, liveList: liveList, sortable: sortable,
          scrollHints: scrollHints};
})();
