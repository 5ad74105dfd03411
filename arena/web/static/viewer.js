// The game viewer: a replay's steps (one view, as the server built it) or a live table's
// public messages, stepped with the buttons or the arrow keys.  The board is folded from the
// events shown so far: the latest of each kind of event, per-seat lists by seat.  Everything
// is written with textContent (names and log fields are never parsed as HTML).
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
  // fields that hold one value per seat (drawn as a row of the seats' table)
  var PER_SEAT = ["scores", "hand_scores", "won", "imp_pile", "wool", "bids", "paid", "stakes",
                  "flocks", "fleeces", "pens", "totals"];
  function perSeat(key, v) {
    return PER_SEAT.indexOf(key) >= 0 && Array.isArray(v) && v.length === header.names.length;
  }
  // what each game's board shows first, folded from the public events so far: the bottle
  // and its price and the trick (chochlik); the display, the last roll, the wool and the bids
  // (vollewolle); each seat's pens, the last shearing and special card (wypas)
  var HEADLINES = {
    chochlik: function (events) {
      var price = null, owner = null, trick = [], scores = null;
      events.forEach(function (e) {
        var d = e.data || {};
        if (e.kind === "hand_start") { owner = null; trick = []; }
        else if (e.kind === "play_start") { price = d.price; trick = []; }
        else if (e.kind === "card_played") trick.push(seatName(d.seat) + ": " + d.card);
        else if (e.kind === "trick_won") {
          price = d.price;
          if (d.bottle) owner = d.seat;
          trick = [];
        } else if (e.kind === "hand_end") scores = d.scores;
      });
      return [["bottle price", price], ["bottle held by", owner === null ? "-" : seatName(owner)],
              ["trick", trick.join(", ") || "-"], ["scores", scores]];
    },
    vollewolle: function (events) {
      var display = null, roll = null, wool = null, bids = null;
      events.forEach(function (e) {
        var d = e.data || {};
        if (e.kind === "round_start") display = d.display;
        else if (e.kind === "rolled") {
          roll = seatName(d.seat) + ": dice " + value(d.dice) + ", total " + d.total;
        } else if (e.kind === "round_end") wool = d.wool;
        else if (e.kind === "bids_revealed") bids = d.bids;
      });
      return [["display", display], ["last roll", roll], ["bids", bids], ["wool", wool]];
    },
    wypas: function (events) {
      var pens = {}, shorn = null, special = null;
      events.forEach(function (e) {
        var d = e.data || {};
        if (e.kind === "placed") {
          var key = d.seat + "/" + d.pen;
          (pens[key] = pens[key] || []).push(d.card + "(" + d.value + ")");
        } else if (e.kind === "sheared") {
          delete pens[d.seat + "/" + d.pen];
          shorn = seatName(d.seat) + " sheared pen " + d.pen + ": " + d.points + " points, fleece " +
            value(d.fleece);
        } else if (e.kind === "special_played") {
          special = seatName(d.seat) + " played " + d.card + " at " + value(d.target);
        }
      });
      var rows = Object.keys(pens).sort().map(function (key) {
        var parts = key.split("/");
        return [seatName(+parts[0]) + ", pen " + parts[1] + " (placed since its last shearing)",
                pens[key].join(" ")];
      });
      return rows.concat([["last shearing", shorn], ["last special card", special]]);
    }
  };
  function headline(holder, events) {
    var draw = HEADLINES[header.game];
    if (!draw) return;
    var table = el("table", null, "headline");
    draw(events).forEach(function (row) {
      var tr = el("tr");
      tr.appendChild(el("th", row[0]));
      tr.appendChild(el("td", row[1] === null || row[1] === undefined ? "-" : value(row[1])));
      table.appendChild(tr);
    });
    holder.appendChild(table);
  }
  function board() {
    var latest = {}, order = [], observation = null, result = null;
    for (var k = 0; k < index; k++) {
      var s = steps[k];
      if (s.type === "event") {
        if (!(s.kind in latest)) order.push(s.kind);
        latest[s.kind] = s.data;
      } else if (s.type === "request" && s.observation !== undefined) {
        observation = {seat: s.seat, data: s.observation, legal: s.legal};
      } else if (s.type === "result") {
        result = s;
      }
    }
    var holder = document.getElementById("board");
    holder.textContent = "";
    headline(holder, steps.slice(0, index).filter(function (s) { return s.type === "event"; }));
    var seats = el("table", null, "seats");
    var head = el("tr");
    head.appendChild(el("th", "seat"));
    header.names.forEach(function (n, i) { head.appendChild(el("th", seatName(i))); });
    seats.appendChild(head);
    var plain = el("table", null, "latest");
    order.forEach(function (kind) {
      var data = latest[kind] || {};
      Object.keys(data).forEach(function (key) {
        if (perSeat(key, data[key])) {
          var tr = el("tr");
          tr.appendChild(el("th", kind + "." + key));
          data[key].forEach(function (v) { tr.appendChild(el("td", value(v))); });
          seats.appendChild(tr);
        }
      });
      var tr = el("tr", null, "event-kind");
      tr.dataset.kind = kind;
      tr.appendChild(el("th", kind));
      tr.appendChild(el("td", fields(data)));
      plain.appendChild(tr);
    });
    if (result) {
      var tr = el("tr", null, "result");
      tr.appendChild(el("th", "score"));
      (result.scores || []).forEach(function (v) { tr.appendChild(el("td", value(v))); });
      seats.appendChild(tr);
    }
    var wrap = el("div", null, "scroll");
    wrap.appendChild(seats);
    holder.appendChild(wrap);
    holder.appendChild(plain);
    if (observation) {
      holder.appendChild(el("h3", "what " + seatName(observation.seat) + " observed when asked"));
      var obs = el("table", null, "observation");
      Object.keys(observation.data || {}).forEach(function (key) {
        var tr = el("tr");
        tr.appendChild(el("th", key));
        tr.appendChild(el("td", value(observation.data[key])));
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
  function controls() {
    document.getElementById("first").onclick = function () { go(0); };
    document.getElementById("prev").onclick = function () { go(index - 1); };
    document.getElementById("next").onclick = function () { go(index + 1); };
    document.getElementById("last").onclick = function () { go(steps.length); };
    document.addEventListener("keydown", function (e) {
      if (e.key === "ArrowRight") go(index + 1);
      else if (e.key === "ArrowLeft") go(index - 1);
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(steps.length);
      else return;
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
    if (message.type === "event") steps.push({type: "event", kind: message.kind, data: message.data});
    else if (message.type === "game_end") {
      steps.push(message.aborted ? {type: "aborted", reason: message.aborted}
                                 : {type: "result", scores: message.scores, ranks: message.ranks});
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
  return {replay: replay, live: live, describe: describe};
})();
