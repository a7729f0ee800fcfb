// One WebSocket that keeps itself connected: binary msgpack frames through
// protocol.js, automatic reconnect with backoff, a keep-alive ping, and a status
// callback ("connecting" | "online" | "offline" | "closed") for the page to show.
import { CLOSE_CODES, FINAL_CLOSE_CODES, fromServer, ProtocolError, SUBPROTOCOL, toServer } from "./protocol.js";

const PING_EVERY_MS = 15000;
const SILENCE_LIMIT_MS = 40000;
const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

/** ws(s)://host/path for a path on this site. */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

export class Connection {
  /**
   * onOpen(conn): send the hello. onMessage(msg): each decoded server message.
   * onStatus(status, detail): connection state for the page.
   */
  constructor(path, { onOpen, onMessage, onStatus = () => {} }) {
    this.path = path;
    this.onOpen = onOpen;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.timer = null;
    this.pingTimer = null;
    this.lastHeard = 0;
    this.pingCount = 0;
    // Commands sent with a version `v` and an `ack` whose answer has not come yet, by
    // ack: sent again, unchanged, after a reconnect. The server knows a command by its
    // seat, type, `v` and content, and answers one it already applied with its first
    // ack, so a resend never plays a move twice (protocol/README.md, "Sending again").
    this.unanswered = new Map();
    // The network's round trip, from our pings' answers (the smallest of the last few):
    // sent with each move as `lag`, which the server gives back to our clock within a
    // quota (protocol/README.md, "Clocks and lag").
    this.pingsOut = new Map();
    this.roundTrips = [];
    this.online = () => this.reconnectNow();
    window.addEventListener("online", this.online);
  }

  connect() {
    this.stopped = false;
    clearTimeout(this.timer);
    this.onStatus("connecting");
    const ws = new WebSocket(socketUrl(this.path), SUBPROTOCOL);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.onStatus("online");
      this.startPing();
      this.onOpen(this);
      this.ping(); // a first measure of the round trip, before the first move
      for (const [, { t, fields }] of this.unanswered) this.ws.send(toServer(t, fields));
    };
    ws.onmessage = (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = fromServer(event.data);
      } catch (err) {
        if (err instanceof ProtocolError) {
          console.warn("dropped a frame:", err.message);
          return;
        }
        throw err;
      }
      if ((msg.t === "ack" || msg.t === "error") && msg.ack != null) this.unanswered.delete(msg.ack);
      if (msg.t === "pong" && this.pingsOut.has(msg.n)) {
        this.roundTrips = [...this.roundTrips.slice(-4), performance.now() - this.pingsOut.get(msg.n)];
        this.pingsOut.delete(msg.n);
      }
      this.onMessage(msg);
    };
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.stopPing();
      if (this.stopped) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        this.onStatus("closed", event.code);
        return;
      }
      this.scheduleReconnect();
    };
    ws.onerror = () => {}; // a close event always follows
  }

  scheduleReconnect() {
    this.onStatus("offline");
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), base + Math.random() * base * 0.3);
  }

  /** Drop the current socket (if any) and connect again at once, e.g. to resync after a gap. */
  reconnectNow() {
    if (this.stopped) return;
    const old = this.ws;
    this.ws = null;
    this.stopPing();
    if (old) old.close();
    this.attempt = 0;
    this.connect();
  }

  send(t, fields) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    if (t === "move" && fields && fields.lag == null && this.roundTrips.length) {
      fields = { ...fields, lag: Math.round(Math.min(...this.roundTrips)) };
    }
    const frame = toServer(t, fields);
    if (fields && fields.ack != null && fields.v != null) this.unanswered.set(fields.ack, { t, fields });
    this.ws.send(frame);
    return true;
  }

  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (Date.now() - this.lastHeard > SILENCE_LIMIT_MS) {
        // Nothing heard for too long: the socket is dead even if the browser has not noticed.
        this.reconnectNow();
        return;
      }
      this.ping();
    }, PING_EVERY_MS);
  }

  ping() {
    const n = ++this.pingCount;
    this.pingsOut.clear(); // an unanswered ping is not a round trip
    if (this.send("ping", { n })) this.pingsOut.set(n, performance.now());
  }

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopPing();
    window.removeEventListener("online", this.online);
    const ws = this.ws;
    this.ws = null;
    ws?.close(CLOSE_CODES.NORMAL);
    this.onStatus("closed");
  }
}
