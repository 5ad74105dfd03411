// The play page: the browser speaks the protocol's JSON lines over a WebSocket to a private
// table (arena/web/play.py).  The pages' process adds drawings to what the seat is sent
// (arena/web/play_view.py): the public board's parts (drawn by viewer.js), each step's
// sentence, the seat's view drawn as arena play draws it, and the legal actions' labels.
// Everything is written with textContent (names and cards are never parsed as HTML).
"use strict";
(function () {
  var data = JSON.parse(document.getElementById("play-data").textContent);
  var names = [], seat = null, parts = {}, limits = {}, asked = null, deadline = 0, over = false;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function byId(id) { return document.getElementById(id); }
  function status(text) { byId("status").textContent = text; }
  var proto = location.protocol === "https:" ? "wss:" : "ws:";
  var socket = new WebSocket(proto + "//" + location.host + "/play/" +
    encodeURIComponent(data.game) + "/socket?bots=" + encodeURIComponent(data.bots.join(",")));
  function send(message) { socket.send(JSON.stringify(message)); }

  function step(text) {
    var list = byId("steps"), li = el("li", text, "step");
    list.appendChild(li);
    list.scrollTop = list.scrollHeight;
  }
  function patch(board) {
    if (!board) return;
    Object.keys(board).forEach(function (key) { parts[key] = board[key]; });
    var holder = byId("board");
    holder.textContent = "";
    arenaViewer.drawBoard(holder, parts);
  }
  function players() {
    var holder = byId("players");
    holder.textContent = "";
    names.forEach(function (name, i) {
      holder.appendChild(el("span", "seat " + i + " (" + name + ")" + (i === seat ? ": you" : ""),
                            "player" + (i === seat ? " you" : "")));
    });
  }
  function clearChoices() {
    asked = null;
    var choices = byId("choices");
    choices.textContent = "";
    choices.appendChild(el("span", over ? "the game is over" : "not your turn", "none"));
    byId("turn").className = "turn";
    byId("clock").textContent = "";
  }
  function isReaction(message) {
    var move = limits.move_timeout_ms, react = limits.reaction_timeout_ms;
    return react !== undefined && react < move && message.time_left_ms <= react + (limits.time_bank_ms || 0) &&
      message.time_left_ms < move;
  }
  function ask(message) {
    asked = message;
    deadline = Date.now() + (message.time_left_ms || 0);
    if (message.drawn !== undefined) byId("seat-view").textContent = message.drawn;
    if (message.own !== undefined) {
      var own = {panels: message.own.length}, holder = byId("own");
      message.own.forEach(function (panel, i) { own["panel" + i] = panel; });
      holder.textContent = "";
      arenaViewer.drawBoard(holder, own);
    }
    var reaction = isReaction(message);
    byId("turn").className = "turn asked" + (reaction ? " reaction" : "");
    var choices = byId("choices");
    choices.textContent = "";
    if (reaction) choices.appendChild(el("span", "reaction window:", "none"));
    message.legal.forEach(function (token, i) {
      var button = el("button", (message.labels || message.legal)[i], "choice");
      button.type = "button";
      button.dataset.action = token;
      button.onclick = function () {
        if (asked !== message) return;
        clearChoices();
        send({type: "action", id: message.id, action: token});
      };
      choices.appendChild(button);
    });
    tick();
  }
  function tick() {
    if (!asked) return;
    var left = Math.max(0, deadline - Date.now()), clock = byId("clock");
    clock.textContent = (left / 1000).toFixed(left < 10000 ? 1 : 0) + " s left";
    clock.className = "clock" + (left < 5000 ? " short" : "");
  }
  setInterval(tick, 200);
  function end(message) {
    over = true;
    var holder = byId("end-table");
    holder.textContent = "";
    if (message.aborted) {
      holder.appendChild(el("p", "the game was aborted: " + message.aborted));
    } else {
      var table = el("table", null, "result"), head = el("tr");
      ["player", "score", "rank", ""].forEach(function (c) { head.appendChild(el("th", c)); });
      table.appendChild(head);
      (message.table || []).forEach(function (row, i) {
        var tr = el("tr", null, i === seat ? "you" : "");
        row.forEach(function (v, k) { tr.appendChild(el(k ? "td" : "th", String(v) + (k === 0 && i === seat ? " (you)" : ""))); });
        table.appendChild(tr);
      });
      holder.appendChild(table);
    }
    byId("end").hidden = false;
    clearChoices();
  }
  socket.onmessage = function (e) {
    var m = JSON.parse(e.data);
    switch (m.type) {
      case "welcome":
        limits = m.limits || {};
        send({type: "hello", name: "visitor", protocol: 1, game: m.game});
        status("waiting for the bots");
        break;
      case "game_start":
        names = m.names || [];
        seat = m.seat;
        players();
        if (m.legend) { byId("legend").textContent = m.legend; byId("legend-box").hidden = false; }
        patch(m.board);
        status("playing");
        break;
      case "event":
        if (m.text) step(m.text);
        patch(m.board);
        break;
      case "request":
        ask(m);
        break;
      case "cancel":
        clearChoices();
        step("your request " + m.id + " was cancelled (" + m.reason + ")" +
             (m.played ? ": the server played " + m.played : ""));
        break;
      case "error":
        step("server: " + m.code + ": " + m.message);
        if (m.legal && m.tries_left) ask(m);
        break;
      case "game_end":
        if (m.text) step(m.text);
        patch(m.board);
        end(m);
        status("over");
        break;
      case "closed":
        byId("why").textContent = m.reason;
        status(over ? "over" : "closed");
        document.body.dataset.closed = "1";
        break;
    }
  };
  socket.onclose = function () {
    if (!over) status("closed");
    clearChoices();
    document.body.dataset.closed = "1";
  };
})();
