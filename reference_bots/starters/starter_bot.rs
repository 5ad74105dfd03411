//! A starter bot for arena in Rust (the standard library only, one file): it plays every game
//! by picking from each request's legal list.  Put your strategy in `choose` below.
//!
//!     rustc -O starter_bot.rs -o starter_bot
//!     ./starter_bot [--host H] [--port P] [--name N] [--token-file F] [--stdio]
//!
//! Each option falls back to ARENA_HOST, ARENA_PORT, ARENA_NAME, ARENA_TOKEN_FILE and
//! ARENA_TRANSPORT=stdio, which `arena match` sets.  The protocol is SPEC.md.  Over stdio,
//! standard output belongs to the protocol: print anything else with `eprintln!`.

use std::env;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

// -----------------------------------------------------------------------------------------
// YOUR STRATEGY GOES HERE.
// `observation` is everything your seat may know now (SPEC.md lists its fields per game):
// read it with `observation.get("phase").and_then(Json::as_str)`,
// `observation.get("hand").and_then(Json::as_array)`, `.as_i64()`, ...  `legal` is the list
// of legal action tokens (never empty).  Return one of them exactly.
// The default: a uniformly random legal action.
fn choose(observation: &Json, legal: &[String]) -> String {
    let _ = observation; // the random default does not look at it
    legal[random_below(legal.len())].clone()
}
// -----------------------------------------------------------------------------------------

/// The protocol's longest line, without its newline.
const MAX_LINE_BYTES: u64 = 64 * 1024;
/// How often to try to connect again while coming back after a lost connection.
const RETRY_EVERY: Duration = Duration::from_millis(200);
/// The longest pause between two tries to reach a restarting server.
const MAX_RESTART_PAUSE: Duration = Duration::from_secs(5);

struct Settings {
    host: String,
    port: u16,
    name: String,
    token_file: Option<String>,
    stdio: bool,
}

impl Settings {
    fn from_command_line() -> Settings {
        let args: Vec<String> = env::args().skip(1).collect();
        let flag = |name: &str| {
            args.iter()
                .position(|a| a == name)
                .and_then(|i| args.get(i + 1))
        };
        let var = |name: &str| env::var(name).ok().filter(|value| !value.is_empty());
        let pick = |name: &str, variable: &str| flag(name).cloned().or_else(|| var(variable));
        Settings {
            host: pick("--host", "ARENA_HOST").unwrap_or_else(|| "127.0.0.1".into()),
            port: pick("--port", "ARENA_PORT")
                .and_then(|p| p.parse().ok())
                .unwrap_or(7777),
            name: pick("--name", "ARENA_NAME").unwrap_or_else(|| "starter-rust".into()),
            token_file: pick("--token-file", "ARENA_TOKEN_FILE"),
            stdio: args.iter().any(|a| a == "--stdio")
                || var("ARENA_TRANSPORT").as_deref() == Some("stdio"),
        }
    }
}

/// How a conversation ended.
enum Ending {
    Bye,
    Restart(Duration), // bye server_restart: the server will be back; try after this long
    Refused,           // a fatal error from the server
    Lost,              // the connection ended without bye
}

/// The request we must answer.
struct OpenRequest {
    id: i64,
    legal: Vec<String>,
}

/// One connection, from welcome to bye.  `grace` is set to how long the server keeps our seat
/// if the connection is lost.  Lines that are not JSON fail with `InvalidData`.
fn converse(
    reader: &mut dyn BufRead,
    writer: &mut dyn Write,
    settings: &Settings,
    token: Option<&str>,
    grace: &mut Duration,
) -> io::Result<Ending> {
    let mut open: Option<OpenRequest> = None;
    let mut line = Vec::new();
    while read_line(reader, &mut line)? {
        let text = std::str::from_utf8(&line).map_err(invalid)?.trim();
        if text.is_empty() {
            continue;
        }
        let message = Json::parse(text).map_err(invalid)?;
        let field = |name: &str| message.get(name).unwrap_or(&Json::Null);
        match field("type").as_str().unwrap_or("") {
            "welcome" => {
                let ms = field("limits")
                    .get("reconnect_grace_ms")
                    .and_then(Json::as_i64);
                *grace = Duration::from_millis(ms.unwrap_or(0).max(0) as u64);
                let token = token
                    .map(|t| format!(",\"token\":{}", quote(t)))
                    .unwrap_or_default();
                let hello = format!(
                    "{{\"type\":\"hello\",\"name\":{},\"protocol\":1{}}}",
                    quote(&settings.name),
                    token
                );
                send(writer, &hello)?;
            }
            "request" => {
                let id = field("id")
                    .as_i64()
                    .ok_or_else(|| invalid("a request without id"))?;
                let legal = strings(field("legal"));
                let action = choose(field("observation"), &legal);
                send(writer, &action_line(id, &action))?;
                open = Some(OpenRequest { id, legal });
            }
            "error" => {
                eprintln!("{}: error {}", settings.name, text);
                if field("fatal").as_bool() == Some(true) {
                    return Ok(Ending::Refused);
                }
                // our answer was refused and the request is still open: answer again from the
                // legal list (otherwise, as for stale_request, there is nothing to answer)
                let retry = field("tries_left").as_i64().unwrap_or(0) > 0;
                let to_answer = |r: &&OpenRequest| retry && Some(r.id) == field("id").as_i64();
                if let Some(request) = open.as_ref().filter(to_answer) {
                    let mut legal = strings(field("legal"));
                    if legal.is_empty() {
                        legal = request.legal.clone(); // not sent again: the request's own
                    }
                    let action = &legal[random_below(legal.len())];
                    send(writer, &action_line(request.id, action))?;
                }
            }
            // timed out, or the game moved on: a new request follows if needed
            "cancel" if open.as_ref().map(|r| r.id) == field("id").as_i64() => open = None,
            "bye" if field("reason").as_str() == Some("server_restart") => {
                let ms = field("retry_ms").as_i64().unwrap_or(1000).max(0) as u64;
                return Ok(Ending::Restart(Duration::from_millis(ms)));
            }
            "bye" => return Ok(Ending::Bye),
            _ => {} // game_start, event, game_end: track them here if your strategy needs to
        }
    }
    Ok(Ending::Lost)
}

/// Reads one line (without the end of line) into `line`; false at the end of the input.
fn read_line(reader: &mut dyn BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    let limit = MAX_LINE_BYTES + 2; // the line, a '\r' and its '\n'
    let read = reader.take(limit).read_until(b'\n', line)? as u64;
    if line.last() != Some(&b'\n') {
        if read == limit {
            return Err(invalid("a line longer than the protocol allows"));
        }
        return Ok(false); // the end (an unfinished last line is dropped)
    }
    Ok(true)
}

fn send(writer: &mut dyn Write, line: &str) -> io::Result<()> {
    writer.write_all(format!("{}\n", line).as_bytes())?;
    writer.flush()
}

fn action_line(id: i64, action: &str) -> String {
    format!(
        "{{\"type\":\"action\",\"id\":{},\"action\":{}}}",
        id,
        quote(action)
    )
}

fn strings(value: &Json) -> Vec<String> {
    let items = value.as_array().unwrap_or(&[]);
    items
        .iter()
        .filter_map(|item| item.as_str().map(String::from))
        .collect()
}

fn invalid(error: impl ToString) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, error.to_string())
}

// ---- JSON: just what the protocol needs -------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn parse(text: &str) -> Result<Json, String> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = parser.value()?;
        parser.skip_space();
        if parser.at != parser.bytes.len() {
            return Err(parser.fail("text after the value"));
        }
        Ok(value)
    }

    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        if let Json::Str(text) = self {
            Some(text)
        } else {
            None
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        if let Json::Bool(value) = self {
            Some(*value)
        } else {
            None
        }
    }

    /// A whole number (ids, seats, cards, scores): JSON numbers up to 2^53 are exact in f64.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 => {
                Some(*n as i64)
            }
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json]> {
        if let Json::Array(items) = self {
            Some(items)
        } else {
            None
        }
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn fail(&self, what: &str) -> String {
        format!("bad JSON at byte {}: {}", self.at, what)
    }

    fn skip_space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// Skips spaces; true (and steps over it) if the next byte is `byte`.
    fn next_is(&mut self, byte: u8) -> bool {
        self.skip_space();
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += found as usize;
        found
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_space();
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Json::Str),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.fail("expected a value")),
        }
    }

    fn object(&mut self) -> Result<Json, String> {
        self.at += 1; // '{'
        let mut fields = Vec::new();
        if self.next_is(b'}') {
            return Ok(Json::Object(fields));
        }
        loop {
            self.skip_space();
            let key = self.string()?;
            if !self.next_is(b':') {
                return Err(self.fail("expected ':'"));
            }
            fields.push((key, self.value()?));
            if self.next_is(b'}') {
                return Ok(Json::Object(fields));
            }
            if !self.next_is(b',') {
                return Err(self.fail("expected ',' or '}'"));
            }
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.at += 1; // '['
        let mut items = Vec::new();
        if self.next_is(b']') {
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value()?);
            if self.next_is(b']') {
                return Ok(Json::Array(items));
            }
            if !self.next_is(b',') {
                return Err(self.fail("expected ',' or ']'"));
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(self.fail("expected a string"));
        }
        self.at += 1;
        let mut out = String::new();
        loop {
            // a run of plain characters: the text is UTF-8 and the run ends at an ASCII byte
            let start = self.at;
            while !matches!(self.bytes.get(self.at), None | Some(b'"' | b'\\')) {
                self.at += 1;
            }
            out.push_str(
                std::str::from_utf8(&self.bytes[start..self.at]).map_err(|e| e.to_string())?,
            );
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(self.fail("unterminated string"));
            };
            self.at += 1;
            if byte == b'"' {
                return Ok(out);
            }
            let escape = self.bytes.get(self.at).copied();
            self.at += 1;
            out.push(match escape {
                Some(b'"') => '"',
                Some(b'\\') => '\\',
                Some(b'/') => '/',
                Some(b'b') => '\u{8}',
                Some(b'f') => '\u{c}',
                Some(b'n') => '\n',
                Some(b'r') => '\r',
                Some(b't') => '\t',
                Some(b'u') => self.unicode_escape()?,
                _ => return Err(self.fail("bad escape")),
            });
        }
    }

    /// The character of `\uXXXX` (after the `\u`), or of a surrogate pair `\uD83D\uDE00`.
    fn unicode_escape(&mut self) -> Result<char, String> {
        let first = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&first) {
            if self.bytes.get(self.at..self.at + 2) != Some(b"\\u") {
                return Err(self.fail("a high surrogate without its low half"));
            }
            self.at += 2;
            let second = self.hex4()?;
            if !(0xDC00..0xE000).contains(&second) {
                return Err(self.fail("a high surrogate without its low half"));
            }
            0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| self.fail("a lone low surrogate"))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        let digits = digits.ok_or_else(|| self.fail("expected 4 hex digits"))?;
        self.at += 4;
        Ok(digits.iter().fold(0, |code, &d| {
            code * 16 + (d as char).to_digit(16).unwrap_or(0)
        }))
    }

    fn number(&mut self) -> Result<Json, String> {
        let start = self.at;
        while matches!(
            self.bytes.get(self.at),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|e| e.to_string())?;
        text.parse()
            .map(Json::Number)
            .map_err(|_| self.fail("bad number"))
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if !self.bytes[self.at..].starts_with(word.as_bytes()) {
            return Err(self.fail("expected true, false or null"));
        }
        self.at += word.len();
        Ok(value)
    }
}

/// `text` as a JSON string.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ---- randomness without a crate: xorshift64, seeded from the clock and the process id -----

static RANDOM_STATE: AtomicU64 = AtomicU64::new(0);

fn random_below(n: usize) -> usize {
    let mut x = RANDOM_STATE.load(Ordering::Relaxed);
    if x == 0 {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        x = nanos ^ ((std::process::id() as u64) << 32) | 1;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    RANDOM_STATE.store(x, Ordering::Relaxed);
    (x % n as u64) as usize
}

// ---- transports --------------------------------------------------------------------------

fn exit_status(name: &str, result: io::Result<Ending>) -> i32 {
    match result {
        Ok(Ending::Bye) | Ok(Ending::Restart(_)) => 0,
        Ok(Ending::Refused) => 1,
        Ok(Ending::Lost) => {
            eprintln!("{}: the connection ended without bye", name);
            1
        }
        Err(error) => {
            eprintln!("{}: {}", name, error);
            1
        }
    }
}

/// Over stdin/stdout, bridged by the arena runner: the pipe is our identity, no token.
fn play_over_stdio(settings: &Settings) -> i32 {
    let mut grace = Duration::ZERO;
    let result = converse(
        &mut io::stdin().lock(),
        &mut io::stdout().lock(),
        settings,
        None,
        &mut grace,
    );
    exit_status(&settings.name, result)
}

/// A pause of about `pause` (a tenth either way: a thousand bots do not knock at once).
fn jittered(pause: Duration) -> Duration {
    pause.mul_f64(0.9 + 0.2 * (random_below(1000) as f64 / 1000.0))
}

/// Over TCP.  A connection lost without bye is opened again, with the same token, for as long
/// as the server keeps our seat (SPEC.md §6 "Reconnecting"): the game and the open request
/// are sent again.  After a bye `server_restart` the bot connects again after its `retry_ms`,
/// then after pauses growing to MAX_RESTART_PAUSE, for as long as it takes.
fn play_over_tcp(settings: &Settings) -> i32 {
    let token = match &settings.token_file {
        None => None,
        Some(path) => match fs::read_to_string(path) {
            Ok(text) => Some(text.trim().to_string()).filter(|t| !t.is_empty()),
            Err(error) => {
                eprintln!(
                    "{}: cannot read the token file {}: {}",
                    settings.name, path, error
                );
                return 1;
            }
        },
    };
    let mut back_by: Option<Instant> = None; // while coming back: the time to give up at
    let mut restart_pause: Option<Duration> = None; // while the server restarts: no limit
    loop {
        let stream = match TcpStream::connect((settings.host.as_str(), settings.port)) {
            Ok(stream) => stream,
            Err(_) if restart_pause.is_some() => {
                let pause = restart_pause.unwrap_or(RETRY_EVERY);
                sleep(jittered(pause));
                restart_pause = Some(pause.mul_f64(1.5).min(MAX_RESTART_PAUSE));
                continue;
            }
            Err(_) if back_by.is_some_and(|t| Instant::now() < t) => {
                sleep(RETRY_EVERY);
                continue;
            }
            Err(error) => {
                eprintln!(
                    "{}: cannot connect to {}:{}: {}",
                    settings.name, settings.host, settings.port, error
                );
                return 1;
            }
        };
        let _ = stream.set_nodelay(true); // an action is one small write: send it at once
        let mut grace = Duration::ZERO;
        let result = match stream.try_clone() {
            Ok(reading) => converse(
                &mut BufReader::new(reading),
                &mut &stream,
                settings,
                token.as_deref(),
                &mut grace,
            ),
            Err(error) => Err(error),
        };
        restart_pause = None;
        if let (Ok(Ending::Restart(pause)), Some(_)) = (&result, &token) {
            eprintln!("{}: the server is restarting; coming back", settings.name);
            sleep(jittered(*pause));
            restart_pause = Some(pause.mul_f64(1.5).min(MAX_RESTART_PAUSE));
            continue;
        }
        let lost = match &result {
            Ok(Ending::Lost) => true,
            Err(error) => error.kind() != io::ErrorKind::InvalidData,
            Ok(_) => false,
        };
        if lost && token.is_some() && !grace.is_zero() {
            eprintln!(
                "{}: connection lost; coming back with the token",
                settings.name
            );
            back_by = Some(Instant::now() + grace);
            continue;
        }
        return exit_status(&settings.name, result);
    }
}

fn main() {
    let settings = Settings::from_command_line();
    let status = if settings.stdio {
        play_over_stdio(&settings)
    } else {
        play_over_tcp(&settings)
    };
    std::process::exit(status);
}
