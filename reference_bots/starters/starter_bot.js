#!/usr/bin/env node
// A starter bot for arena in JavaScript (Node.js 18 or newer, no npm packages): it plays every
// game by picking from each request's legal list.  Put your strategy in choose() below.
//
//   node starter_bot.js [--host H] [--port P] [--name N] [--token-file F] [--stdio]
//
// Each option falls back to ARENA_HOST, ARENA_PORT, ARENA_NAME, ARENA_TOKEN_FILE and
// ARENA_TRANSPORT=stdio, which `arena match` sets.  The protocol is SPEC.md.  Over stdio,
// standard output belongs to the protocol: print anything else with console.error.
"use strict";

const fs = require("fs");
const net = require("net");

// ------------------------------------------------------------------------------------------
// YOUR STRATEGY GOES HERE.
// `observation` is everything your seat may know now (SPEC.md lists its fields per game, e.g.
// observation.phase, observation.hand); `legal` is the list of legal action tokens (strings,
// never empty).  Return one of them exactly.  The default: a uniformly random legal action.
function choose(observation, legal) {
  return legal[Math.floor(Math.random() * legal.length)];
}
// ------------------------------------------------------------------------------------------

const MAX_LINE_BYTES = 64 * 1024; // the protocol's longest line, without its newline
const RETRY_EVERY_MS = 200; // while coming back after a lost connection
const MAX_RESTART_PAUSE_MS = 5000; // the longest pause between tries to reach a restarting server

function options(argv, env) {
  const flag = (name) => {
    const at = argv.indexOf(name);
    return at >= 0 && at + 1 < argv.length ? argv[at + 1] : undefined;
  };
  return {
    host: flag("--host") || env.ARENA_HOST || "127.0.0.1",
    port: Number(flag("--port") || env.ARENA_PORT || 7777),
    name: flag("--name") || env.ARENA_NAME || "starter-js",
    tokenFile: flag("--token-file") || env.ARENA_TOKEN_FILE || null,
    stdio: argv.includes("--stdio") || env.ARENA_TRANSPORT === "stdio",
  };
}

// Bytes in, whole lines out (UTF-8 decoded only once a line is whole, so a character split
// between two reads is never broken).  Chunks are kept in a list until their newline arrives.
class LineReader {
  constructor(onLine) {
    this.onLine = onLine;
    this.chunks = [];
    this.size = 0;
  }

  feed(data) {
    let start = 0;
    for (let end = data.indexOf(10); end >= 0; end = data.indexOf(10, start)) {
      this.chunks.push(data.subarray(start, end));
      const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
      this.chunks = [];
      this.size = 0;
      start = end + 1;
      if (line.trim() !== "") this.onLine(line);
    }
    if (start < data.length) {
      this.chunks.push(data.subarray(start));
      this.size += data.length - start;
      if (this.size > MAX_LINE_BYTES) throw new Error(`a line over ${MAX_LINE_BYTES} bytes`);
    }
  }
}

// One connection's conversation, from welcome to bye.  `send(message)` writes one line;
// `finish(code)` ends the bot with that exit status.
class Session {
  constructor(settings, token, send, finish) {
    this.settings = settings;
    this.token = token;
    this.send = send;
    this.finish = finish;
    this.open = null; // the request we must answer (id and legal list), if any
    this.graceMs = 0; // how long the server keeps our seat if the connection is lost
    this.restartMs = null; // bye server_restart: come back after this many ms (TCP only)
  }

  handle(message) {
    switch (message.type) {
      case "welcome":
        this.graceMs = (message.limits && message.limits.reconnect_grace_ms) || 0;
        this.send({ type: "hello", name: this.settings.name, token: this.token, protocol: 1 });
        break;
      case "request":
        this.open = { id: message.id, legal: message.legal };
        this.answer(message.id, choose(message.observation, message.legal));
        break;
      case "error":
        this.onError(message);
        break;
      case "cancel": // timed out, or the game moved on: a new request follows if needed
        if (this.open && this.open.id === message.id) this.open = null;
        break;
      case "bye":
        if (message.reason === "server_restart" && this.token !== null) {
          this.restartMs = message.retry_ms || 1000; // the server will be back: so will we
          this.finish(null);
        } else {
          this.finish(0);
        }
        break;
      default: // game_start, event, game_end: track them here if your strategy needs to
        break;
    }
  }

  onError(message) {
    console.error(`${this.settings.name}: error ${message.code}: ${message.message}`);
    if (message.fatal) {
      this.finish(1);
    } else if (message.tries_left > 0 && this.open && this.open.id === message.id) {
      // our answer was refused and the request is still open: answer from the legal list
      const legal = message.legal || this.open.legal;
      this.answer(message.id, legal[Math.floor(Math.random() * legal.length)]);
    } // otherwise (stale_request, bad_hello, ...) there is nothing to answer
  }

  answer(id, action) {
    this.send({ type: "action", id, action });
  }
}

function readToken(tokenFile) {
  return tokenFile ? fs.readFileSync(tokenFile, "utf8").trim() || null : null;
}

function playOverStdio(settings) {
  const finish = (code) => process.exit(code); // writes to a pipe are synchronous on Linux
  const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
  const session = new Session(settings, null, send, finish);
  const reader = new LineReader((line) => session.handle(JSON.parse(line)));
  process.stdin.on("data", (data) => reader.feed(data));
  process.stdin.on("end", () => {
    console.error(`${settings.name}: the server closed the connection without bye`);
    finish(1);
  });
}

// Over TCP.  A connection lost without bye is opened again, with the same token, for as long
// as the server keeps our seat (SPEC.md §6 "Reconnecting"): the game and the open request are
// sent again.  `backBy`: while coming back, the time to give up at.  After a bye
// `server_restart` the bot connects again after its `retry_ms`, then after pauses growing to
// MAX_RESTART_PAUSE_MS, for as long as it takes (`restartPause`: the pause after a failed try).
function playOverTcp(settings, token, backBy = null, restartPause = null) {
  const socket = net.createConnection({ host: settings.host, port: settings.port });
  socket.setNoDelay(true); // an action is one small write: send it at once
  let done = false;
  const finish = (code) => {
    done = code !== null; // null: a restart, we come back
    if (code !== null) process.exitCode = code;
    socket.end();
  };
  const send = (message) => socket.write(JSON.stringify(message) + "\n");
  const session = new Session(settings, token, send, finish);
  const reader = new LineReader((line) => session.handle(JSON.parse(line)));
  socket.on("connect", () => { backBy = null; restartPause = null; });
  socket.on("data", (data) => { if (!done) reader.feed(data); });
  socket.on("error", (error) => {
    if (backBy === null && restartPause === null) console.error(`${settings.name}: ${error.message}`);
  });
  socket.on("close", () => {
    if (done) return;
    const jitter = (ms) => ms * (0.9 + 0.2 * Math.random()); // a thousand bots, not at once
    if (session.restartMs !== null) {
      console.error(`${settings.name}: the server is restarting; coming back`);
      const pause = session.restartMs;
      setTimeout(() => playOverTcp(settings, token, null, Math.min(pause * 1.5, MAX_RESTART_PAUSE_MS)),
                 jitter(pause));
      return;
    }
    if (restartPause !== null) { // the server is not up yet: try again, a little later
      setTimeout(() => playOverTcp(settings, token, null,
                                   Math.min(restartPause * 1.5, MAX_RESTART_PAUSE_MS)),
                 jitter(restartPause));
      return;
    }
    if (backBy === null && token && session.graceMs > 0) {
      console.error(`${settings.name}: connection lost; coming back with the token`);
      backBy = Date.now() + session.graceMs;
    }
    if (backBy !== null && Date.now() < backBy) {
      setTimeout(() => playOverTcp(settings, token, backBy), RETRY_EVERY_MS);
    } else {
      console.error(`${settings.name}: the connection ended without bye`);
      process.exitCode = 1;
    }
  });
}

function main() {
  const settings = options(process.argv.slice(2), process.env);
  if (settings.stdio) {
    playOverStdio(settings); // the runner's pipe is our identity: no token
  } else {
    playOverTcp(settings, readToken(settings.tokenFile));
  }
}

main();
