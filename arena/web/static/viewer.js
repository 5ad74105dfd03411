// The game viewer: a replay's steps (one view, as the server built it) or a live table's
// public messages, stepped with the buttons or the arrow keys.  The board is drawn from the
// parts of it each step brings (the server folds the public events: arena/web/boards), and each
// step is listed as the server's sentence.  Everything is written with textContent (names and
// log fields are never parsed as HTML).
"use strict";
var arenaViewer = (function () {
  var header = {names: []}, steps = [], index = 0, following = false;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function seatName(seat) {
    var name = header.names[seat];
    return name === undefined ? "seat " + seat : "seat " + seat + " (" + name + ")";
  }
  function value(v) {
    if (Array.isArray(v)) return "[" + v.map(value).join(", ") + "]";
    if (v !== null && typeof v === "object") return JSON.stringify(v);
    return String(v);
  }
  function fields(data) {
    return Object.keys(data || {}).map(function (k) { return k + "=" + value(data[k]); }).join(" ");
  }
  function describe(step) {
    if (step.text) {  // the server's sentence for an event, the result, an abort
      return step.to ? step.text + "   [seen by " + step.to.map(seatName).join(", ") + "]" : step.text;
    }
    switch (step.type) {
      case "event":
        return step.kind + " " + fields(step.data) +
          (step.to ? "   [seen by " + step.to.map(seatName).join(", ") + "]" : "");
      case "request":
        return seatName(step.seat) + " asked (request " + step.id + "): " +
          (step.legal || []).length + " choice(s)";
      case "action":
        return seatName(step.seat) + ": " + step.action + " (" + step.ms + " ms)" +
          (step.by !== "bot" ? "   [played by the server: " + step.reason + "]" : "");
      case "error": return seatName(step.seat) + ": error " + step.code + ": " + step.detail;
      case "note": return seatName(step.seat) + ": " + step.what;
      case "result": return "result: scores " + value(step.scores) + ", ranks " + value(step.ranks);
      case "aborted": return "aborted: " + step.reason;
      default: return step.type + " " + fields(step);
    }
  }
  // The board: each event and the result bring the parts of the board that changed (a panel,
  // a seat's row, the title: arena/web/boards); the board at a step is those parts folded from
  // the first step.  Cards are drawn as coloured cards with their number and small figure.
  function safeClass(name) {
    return /^[a-z_-]{1,20}$/.test(String(name)) ? String(name) : "plain";
  }
  function cardNode(c) {
    var node = el("span", null, "card c-" + safeClass(c.colour));
    node.title = c.title || c.label;
    if (c.id !== null && c.id !== undefined) node.dataset.card = String(c.id);
    node.appendChild(el("span", c.label, "label"));
    if (c.corner !== null && c.corner !== undefined) node.appendChild(el("span", c.corner, "corner"));
    if (c.caption) node.appendChild(el("span", c.caption, "caption"));
    return node;
  }
  function cardRow(cards, cls) {
    var row = el("div", null, cls || "cards");
    (cards || []).forEach(function (c) { row.appendChild(cardNode(c)); });
    return row;
  }
  function cell(v) {
    var td = el("td");
    if (v !== null && typeof v === "object" && Array.isArray(v.cards)) {
      td.appendChild(cardRow(v.cards, "cards small"));
    } else if (v !== null && typeof v === "object" && Array.isArray(v.pens)) {
      if (!v.pens.length) td.textContent = "-";
      v.pens.forEach(function (pen) {
        var box = el("div", null, "pen");
        box.appendChild(el("span", pen.label, "pen-label"));
        box.appendChild(cardRow(pen.cards, "cards small"));
        td.appendChild(box);
      });
    } else {
      td.textContent = v === null || v === undefined ? "" : String(v);
    }
    return td;
  }
  function boardAt(upto) {
    var parts = {};
    for (var k = 0; k < upto; k++) {
      var patch = steps[k].board;
      if (patch) Object.keys(patch).forEach(function (key) { parts[key] = patch[key]; });
    }
    return parts;
  }
  function drawBoard(holder, parts) {
    if (parts.title) holder.appendChild(el("h3", parts.title, "board-title"));
    if (parts.over) holder.appendChild(el("p", parts.over, "over"));
    var panels = el("div", null, "panels");
    for (var i = 0; i < (parts.panels || 0); i++) {
      var p = parts["panel" + i], box = el("div", null, "panel");
      box.appendChild(el("h4", p.title));
      box.appendChild(cardRow(p.cards));
      (p.lines || []).forEach(function (line) { box.appendChild(el("p", line, "panel-line")); });
      panels.appendChild(box);
    }
    holder.appendChild(panels);
    if (!(parts.columns || []).length) return;
    var table = el("table", null, "seats"), head = el("tr");
    parts.columns.forEach(function (c) { head.appendChild(el("th", c)); });
    table.appendChild(head);
    for (var r = 0; r < (parts.rows || 0); r++) {
      var row = parts["row" + r] || [], tr = el("tr", null, r === parts.current ? "to-play" : "");
      tr.appendChild(el("th", row[0]));
      row.slice(1).forEach(function (v) { tr.appendChild(cell(v)); });
      table.appendChild(tr);
    }
    var wrap = el("div", null, "scroll");
    wrap.appendChild(table);
    holder.appendChild(wrap);
  }
  function board() {
    var observation = null;
    for (var k = 0; k < index; k++) {
      var s = steps[k];
      if (s.type === "request" && s.observation !== undefined) {
        observation = {seat: s.seat, data: s.observation, legal: s.legal, cards: s.cards || {}};
      }
    }
    var holder = document.getElementById("board");
    holder.textContent = "";
    drawBoard(holder, boardAt(index));
    if (observation) {
      holder.appendChild(el("h3", "what " + seatName(observation.seat) + " observed when asked"));
      var obs = el("table", null, "observation");
      var keys = Object.keys(observation.data || {}), drawnFirst = keys.filter(function (k) {
        return observation.cards[k];
      }).concat(keys.filter(function (k) { return !observation.cards[k]; }));
      drawnFirst.forEach(function (key) {
        var tr = el("tr");  // the fields of cards drawn as the board draws them (the server's)
        tr.appendChild(el("th", key));
        var drawn = observation.cards[key];
        tr.appendChild(drawn ? cell(drawn) : el("td", value(observation.data[key])));
        obs.appendChild(tr);
      });
      var legal = el("tr");
      legal.appendChild(el("th", "legal"));
      legal.appendChild(el("td", value(observation.legal)));
      obs.appendChild(legal);
      holder.appendChild(obs);
    }
  }
  function render() {
    var players = document.getElementById("players");
    players.textContent = "";
    header.names.forEach(function (n, i) { players.appendChild(el("span", seatName(i), "player")); });
    var list = document.getElementById("steps");
    list.textContent = "";
    var from = Math.max(0, index - 200);
    for (var k = from; k < index; k++) {
      var li = el("li", describe(steps[k]), "step step-" + steps[k].type);
      li.value = k + 1;
      if (k === index - 1) li.classList.add("current");
      list.appendChild(li);
    }
    list.scrollTop = list.scrollHeight;  // the current step is the last one listed
    document.getElementById("position").textContent = index + " / " + steps.length;
    board();
    // the hash is the log line of the current step: another view opens at the same moment
    var line = index ? steps[index - 1].line : 0;
    if (!following && history.replaceState) history.replaceState(null, "", "#" + line);
    document.querySelectorAll("a.view").forEach(function (a) {
      a.href = a.href.split("#")[0] + "#" + line;
    });
  }
  function go(to) {
    index = Math.max(0, Math.min(steps.length, to));
    render();
  }
  // Autoplay: a step every 1/speed seconds until the last, or a click, stops it.
  var timer = null;
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    var button = document.getElementById("play");
    if (button) { button.textContent = "play"; button.classList.remove("playing"); }
  }
  function play() {
    var button = document.getElementById("play"), speed = document.getElementById("speed");
    stop();
    if (index >= steps.length) go(0);
    button.textContent = "pause";
    button.classList.add("playing");
    timer = setInterval(function () {
      if (index >= steps.length) { stop(); return; }
      go(index + 1);
    }, 1000 / (+speed.value || 2));
  }
  function autoplay() {
    var button = document.getElementById("play"), speed = document.getElementById("speed");
    if (!button) return;
    button.onclick = function () { if (timer === null) play(); else stop(); };
    speed.onchange = function () { if (timer !== null) play(); };
  }
  function controls() {
    autoplay();
    document.getElementById("first").onclick = function () { go(0); };
    document.getElementById("prev").onclick = function () { go(index - 1); };
    document.getElementById("next").onclick = function () { go(index + 1); };
    document.getElementById("last").onclick = function () { go(steps.length); };
    document.addEventListener("keydown", function (e) {
      if (e.key === "ArrowRight") go(index + 1);
      else if (e.key === "ArrowLeft") go(index - 1);
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(steps.length);
      else if (e.key === " " && e.target.tagName !== "BUTTON" && document.getElementById("play")) {
        document.getElementById("play").click();
      } else return;
      e.preventDefault();
    });
  }
  function replay(data) {
    header = data.header;
    steps = data.steps;
    controls();
    var line = parseInt((location.hash || "#").slice(1), 10), at = 0;
    if (!isNaN(line)) while (at < steps.length && steps[at].line <= line) at++;
    go(at);
  }
  function take(message) {
    var atEnd = index === steps.length;
    if (message.type === "game_start") {
      header = {names: message.names, game: message.game};
      return;
    }
    if (message.type === "event") {
      steps.push({type: "event", kind: message.kind, data: message.data, text: message.text,
                  board: message.board});
    } else if (message.type === "game_end") {
      steps.push(message.aborted ? {type: "aborted", reason: message.aborted, text: message.text,
                                    board: message.board}
                                 : {type: "result", scores: message.scores, ranks: message.ranks,
                                    text: message.text, board: message.board});
    }
    if (atEnd) index = steps.length;
  }
  function live(table) {
    following = true;
    controls();
    var status = document.getElementById("status");
    var source = new EventSource("/live/" + encodeURIComponent(table) + "/stream");
    source.onmessage = function (e) { take(JSON.parse(e.data)); render(); };
    source.addEventListener("end", function () {
      status.textContent = "over";
      source.close();
    });
    source.onerror = function () { status.textContent = "disconnected"; source.close(); };
    render();
  }
  return {replay: replay, live: live, describe: describe, drawBoard: drawBoard};
})();
