// What the game page sends: the hello, moves and the seat's commands, each with an
// ack id. Only this module writes to the game's socket.
import { PROTOCOL_VERSION } from "../protocol.js";

export class Commands {
  constructor() {
    this.conn = null;
    // Ack ids start at random: the server spots a resent move by its seat and ack id, so
    // two tabs of one seat must not both count from 1.
    this.ackCounter = Math.floor(Math.random() * 0x40000000);
  }

  attach(conn) {
    this.conn = conn;
  }

  hello(token, since, name = null) {
    return this.conn.send("hello", { proto: PROTOCOL_VERSION, token, since, name: name ?? undefined });
  }

  /** Sends `tag` with a fresh ack id; returns the id, or null when offline. */
  send(tag, fields = {}) {
    const ack = ++this.ackCounter;
    return this.conn?.send(tag, { ...fields, ack }) ? ack : null;
  }

  move(path, v) {
    return this.send("move", { path, v });
  }
}
