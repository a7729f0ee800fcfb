// /g/{id}: one game, for a player or a spectator. Holds the state the server
// sent, applies its events in version order (a gap or a reconnect resumes from
// the last version seen), and renders board, clocks, moves, offers and chat.
import { api } from "./api.js";
import { Board } from "./board.js";
import { copyText, download, h, replace } from "./dom.js";
import { has, t } from "./i18n/index.js";
import { Connection } from "./net.js";
import { dispatcher, EVENTS } from "./protocol.js";
import { rememberSeat, seatFor } from "./seats.js";
import * as sound from "./sound.js";

const OTHER = { white: "black", black: "white" };

/** Pieces per colour in a PDN FEN ("W:W21,22,K5:B1-12"); ranges allowed. */
export function countFen(fen) {
  const counts = { white: 0, black: 0 };
  for (const part of String(fen).split(":").slice(1)) {
    const colour = part[0] === "W" ? "white" : part[0] === "B" ? "black" : null;
    if (!colour) continue;
    for (const item of part.slice(1).split(",")) {
      const bare = item.trim().replace(/^K/, "").replace(/\..*$/, "");
      if (!bare) continue;
      const range = /^(\d+)-(\d+)$/.exec(bare);
      counts[colour] += range ? Number(range[2]) - Number(range[1]) + 1 : 1;
    }
  }
  return counts;
}

/** m:ss, h:mm:ss, or s.t under ten seconds. */
export function formatClock(ms) {
  const value = Math.max(0, ms);
  if (value < 10000) return (Math.floor(value / 100) / 10).toFixed(1);
  const total = Math.ceil(value / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

export function mount(root, { id }) {
  const page = new GamePage(root, id);
  page.start();
  window.kondavo = page; // for the console and for tests: never holds more than the page shows
  return { render: () => page.render() };
}

class GamePage {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.state = null; // the last full state, kept current by events
    this.v = null;
    // Ack ids start at random: the server spots a resent move by its seat and ack id, so
    // two tabs of one seat must not both count from 1.
    this.ackCounter = Math.floor(Math.random() * 0x40000000);
    this.pending = null; // {ack, path} of a move sent but not yet confirmed
    this.toast = "";
    this.connStatus = "connecting";
    this.notFound = false;
    this.chatChannel = null;
    this.resignArmed = false;
    this.bottom = null; // chosen orientation; null until the state says who we are
    this.clockBase = 0;
    this.build();
    this.handle = dispatcher({
      state: (msg) => this.onState(msg),
      moved: (msg) => this.onMoved(msg),
      joined: (msg) => this.onJoined(msg),
      rated: (msg) => this.onRated(msg),
      presence: (msg) => this.patchPlayer(msg.side, { present: msg.present }),
      claimable: (msg) => this.update({ claimable: msg.by === this.state.you || this.state.claimable }),
      draw_offered: (msg) => { this.update({ draw_offer: msg.by }); sound.play("notify"); },
      draw_declined: (msg) => {
        if (msg.by !== this.state.you) this.flash(t("game.draw_declined"));
        this.update({ draw_offer: null });
      },
      draw_lapsed: () => this.update({ draw_offer: null }),
      rematch_offered: (msg) => { this.update({ rematch_offer: msg.by }); sound.play("notify"); },
      rematch_declined: () => this.update({ rematch_offer: null }),
      rematch: (msg) => this.onRematch(msg),
      over: (msg) => this.onOver(msg),
      chat: (msg) => this.onChat(msg),
      skip: () => {},
      ack: () => {},
      error: (msg) => this.onError(msg),
      spectators: (msg) => this.update({ spectators: msg.n }),
      seat: (msg) => this.onSeat(msg),
      pong: () => {},
      lobby: () => {},
    });
  }

  async start() {
    await this.takeInvitedSeat();
    this.conn = new Connection(`/ws/games/${encodeURIComponent(this.id)}`, {
      onOpen: (conn) => conn.send("hello", {
        proto: 1,
        token: seatFor(this.id)?.token ?? null,
        since: this.wantSnapshot ? null : this.v,
      }),
      onMessage: (msg) => this.receive(msg),
      onStatus: (status, code) => {
        this.connStatus = status;
        if (status === "closed" && code === 4004) this.notFound = true;
        this.render();
      },
    });
    this.conn.connect();
    this.tick();
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  /** Opening an invite link (…#invite=SECRET) takes the free seat once, then forgets the secret. */
  async takeInvitedSeat() {
    const invite = new URLSearchParams(location.hash.slice(1)).get("invite");
    if (!invite) return;
    history.replaceState(null, "", location.pathname);
    if (seatFor(this.id)?.token) return;
    try {
      const answer = await api.join(this.id, invite);
      rememberSeat(this.id, { token: answer.seat.token, side: answer.seat.side });
    } catch (err) {
      this.flash(t("game.refused", { reason: err.message }));
    }
  }

  // --- events in ---

  receive(msg) {
    if (EVENTS.has(msg.t) && msg.t !== "state") {
      if (this.v === null || msg.v <= this.v) return; // before the state, or seen already
      if (msg.v > this.v + 1) {
        // A gap: something was missed. Ask again from the last version we have.
        this.conn.reconnectNow();
        return;
      }
      this.v = msg.v;
    }
    this.handle(msg);
  }

  onState(msg) {
    const first = this.state === null;
    this.wantSnapshot = false;
    this.v = msg.v;
    this.state = { ...msg, lastMove: msg.last ?? this.state?.lastMove ?? null };
    this.pending = null;
    if (msg.you) rememberSeat(this.id, { side: msg.you });
    if (first || this.bottom === null) this.bottom = msg.you ?? "white";
    this.clockBase = performance.now();
    if (first) this.board.setLayout(msg.board);
    this.board.setBottom(this.bottom);
    this.render();
  }

  onMoved(msg) {
    const s = this.state;
    s.moves = [...s.moves.slice(0, msg.ply - 1), msg.notation];
    s.pieces = msg.pieces;
    s.fen = msg.fen;
    s.side_to_move = msg.side_to_move;
    s.legal = s.you && s.you === msg.side_to_move && s.status === "playing" ? msg.legal : [];
    s.lastMove = { path: msg.path, captured: msg.captured };
    s.draw_offer = s.draw_offer && s.draw_offer !== msg.by ? null : s.draw_offer;
    if (msg.clocks) {
      s.clocks = msg.clocks;
      this.clockBase = performance.now();
    }
    if (s.status === "waiting") s.status = "playing";
    this.pending = null;
    sound.play(msg.captured.length ? "capture" : "move");
    this.render();
  }

  onJoined(msg) {
    this.patchPlayer(msg.side, { name: msg.name, present: true, rating: msg.rating, provisional: msg.provisional }, false);
    this.state.status = "playing";
    this.state.side_to_move = msg.side_to_move;
    // The event lists the side to move's moves; only that seat may use them.
    this.state.legal = this.state.you === msg.side_to_move ? msg.legal : [];
    sound.play("notify");
    this.render();
  }

  onRated(msg) {
    // The result reached both ratings: show each side's new rating and its change.
    for (const [side, change] of Object.entries(msg.ratings ?? {})) {
      this.patchPlayer(side, { rating: change.after, provisional: change.provisional, ratingDiff: change.diff }, false);
    }
    this.render();
  }

  ratingText(p) {
    if (!p || p.rating === null || p.rating === undefined) return null;
    const diff = p.ratingDiff;
    const change = diff === undefined ? "" : ` ${diff >= 0 ? "+" : "−"}${Math.abs(diff)}`;
    return `${p.rating}${p.provisional ? "?" : ""}${change}`;
  }

  onOver(msg) {
    const s = this.state;
    s.status = msg.result === null ? "aborted" : "finished";
    s.result = msg.result;
    s.reason = msg.reason;
    s.legal = [];
    s.draw_offer = null;
    s.claimable = false;
    if (msg.clocks) {
      s.clocks = { ...msg.clocks, running: null };
      this.clockBase = performance.now();
    }
    sound.play("end");
    this.render();
  }

  onRematch(msg) {
    this.state.rematch = msg.game;
    this.render();
    const go = () => location.assign(`/g/${encodeURIComponent(msg.game)}`);
    if (!this.state.you) return go();
    // A player waits for its private seat message, which follows the rematch event.
    this.rematchGo = go;
    setTimeout(go, 2000);
  }

  onSeat(msg) {
    rememberSeat(msg.game, { token: msg.token, side: msg.side });
    if (msg.game === this.state?.rematch) this.rematchGo?.();
  }

  onChat(msg) {
    this.state.chat = [...(this.state.chat ?? []), msg].slice(-100);
    this.renderChatLines();
  }

  onError(msg) {
    if (this.pending && msg.ack === this.pending.ack) {
      this.pending = null; // the next render puts the server's position back
    }
    if (msg.code === "room/not_found") {
      this.notFound = true;
      this.conn.close();
    }
    const reason = has(`errors.${msg.code}`) ? t(`errors.${msg.code}`) : msg.message || msg.code;
    this.flash(t("game.refused", { reason }));
    this.render();
  }

  update(patch) {
    if (!this.state) return;
    Object.assign(this.state, patch);
    this.render();
  }

  patchPlayer(side, patch, render = true) {
    const players = { ...this.state.players };
    players[side] = { ...(players[side] ?? {}), ...patch };
    this.state.players = players;
    if (render) this.render();
  }

  // --- commands out ---

  command(tag, fields = {}) {
    const ack = ++this.ackCounter;
    if (!this.conn.send(tag, { ...fields, ack })) {
      this.flash(t("game.connection.offline"));
      return null;
    }
    return ack;
  }

  playMove(path, move) {
    const ack = this.command("move", { path, v: this.v });
    if (ack === null) {
      this.boardKey = null;
      this.render();
      return;
    }
    this.pending = { ack, path };
    // Show the move at once; the server's "moved" event confirms it (with crowning).
    const pieces = new Map(this.state.pieces.map((p) => [p[0], p]));
    const piece = pieces.get(path[0]);
    pieces.delete(path[0]);
    for (const square of move.captured ?? []) pieces.delete(square);
    if (piece) pieces.set(path.at(-1), [path.at(-1), piece[1], piece[2]]);
    this.boardKey = null;
    this.board.update({ pieces: [...pieces.values()], moves: [], lastMove: { path, captured: move.captured ?? [] } });
  }

  flash(text) {
    this.toast = text;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => {
      this.toast = "";
      this.renderToast();
    }, 5000);
    this.renderToast();
  }

  onKey(event) {
    if (event.target.closest?.("input, textarea, select")) return;
    if (event.key === "f" && !event.ctrlKey && !event.metaKey && !event.altKey) this.flip();
  }

  flip() {
    this.bottom = OTHER[this.bottom ?? "white"];
    this.board.setBottom(this.bottom);
    this.render();
  }

  // --- rendering ---

  build() {
    this.el = {
      topBar: h("div", { class: "player-bar top" }),
      bottomBar: h("div", { class: "player-bar bottom" }),
      boardWrap: h("div", { class: "board-wrap" }),
      status: h("div", { class: "status-line" }),
      notice: h("div", { class: "notice-area" }),
      offer: h("div", { class: "offer-area" }),
      moves: h("div", { class: "movelist card", "aria-live": "polite" }),
      counts: h("div", { class: "counts" }),
      buttons: h("div", { class: "buttons" }),
      toast: h("div", { class: "toast", role: "status" }),
      chat: h("section", { class: "chat card" }),
    };
    this.board = new Board(this.el.boardWrap, {
      onMove: (path, move) => this.playMove(path, move),
    });
    this.buildChat();
    replace(this.root, h("div", { class: "game", "data-game": this.id },
      h("div", { class: "board-area" }, this.el.topBar, this.el.boardWrap, this.el.bottomBar),
      h("div", { class: "side" },
        this.el.status, this.el.notice, this.el.offer, this.el.moves, this.el.counts,
        this.el.buttons, this.el.toast, this.el.chat)));
    replace(this.el.notice, h("p", { class: "notice" }, t("game.loading")));
  }

  render() {
    if (this.notFound) {
      replace(this.root, h("p", { class: "notice not-found" }, t("game.not_found"), " ",
        h("a", { href: "/" }, t("game.new_game"))));
      return;
    }
    this.renderStatus();
    const s = this.state;
    if (!s) return;
    document.title = `${t(`variants.${s.variant}.name`)} · ${t("site.name")}`;
    if (!this.pending) {
      // Redraw the board only when what it shows changed (a redraw ends a drag).
      const shown = { pieces: s.pieces, lastMove: s.lastMove, moves: s.status === "playing" ? s.legal ?? [] : [] };
      const key = JSON.stringify(shown);
      if (key !== this.boardKey) {
        this.boardKey = key;
        this.board.update(shown);
      }
    }
    this.renderPlayers();
    this.renderNotice();
    this.renderOffer();
    this.renderMoves();
    this.renderCounts();
    this.renderButtons();
    this.renderToast();
    this.renderChat();
    this.root.querySelector(".game").dataset.status = s.status;
  }

  renderStatus() {
    const s = this.state;
    const soundButton = h("button", {
      type: "button", class: "sound", "aria-pressed": String(!sound.muted()),
      onclick: () => { sound.setMuted(!sound.muted()); this.renderStatus(); },
    }, sound.muted() ? t("game.sound_off") : t("game.sound_on"));
    replace(this.el.status,
      h("span", { class: `conn ${this.connStatus}`, "data-conn": this.connStatus },
        t(`game.connection.${this.connStatus}`)),
      s ? h("span", { class: "spectators", "data-n": s.spectators }, t("game.spectators", { n: s.spectators })) : null,
      soundButton,
      h("button", { type: "button", class: "flip", title: t("game.flip_hint"), onclick: () => this.flip() },
        t("game.flip")));
  }

  playerName(side) {
    const p = this.state.players?.[side];
    if (!p) return t("game.waiting");
    return p.name || (p.computer ? t("game.computer_level", { n: p.level ?? "?" }) : t("lobby.anonymous"));
  }

  clockLeft(side) {
    const c = this.state.clocks;
    if (!c) return null;
    const elapsed = c.running === side ? performance.now() - this.clockBase : 0;
    return c[side] - elapsed;
  }

  lowTime(ms) {
    const initial = this.state.clock?.initial_ms ?? 0;
    return ms < Math.min(30000, Math.max(10000, initial / 10));
  }

  renderPlayers() {
    const s = this.state;
    const topSide = OTHER[this.bottom];
    for (const [bar, side] of [[this.el.topBar, topSide], [this.el.bottomBar, this.bottom]]) {
      const p = s.players?.[side];
      const toMove = s.status === "playing" && s.side_to_move === side;
      bar.className = `player-bar ${side}${toMove ? " to-move" : ""}`;
      bar.dataset.side = side;
      replace(bar,
        h("span", { class: `dot ${side}`, title: t(`colours.${side}`) }),
        h("span", { class: "name" }, this.playerName(side)),
        this.ratingText(p) ? h("span", { class: "rating", "data-rating": side, title: t("game.rating") }, this.ratingText(p)) : null,
        s.you === side ? h("span", { class: "meta" }, `(${t("game.you")})`) : null,
        p && p.present === false && s.status === "playing" ? h("span", { class: "meta away" }, "⚠") : null,
        s.clocks ? h("span", { class: "clock", "data-clock": side }) : null);
    }
    this.renderClocks();
  }

  renderClocks() {
    const s = this.state;
    if (!s?.clocks) return;
    for (const el of this.root.querySelectorAll("[data-clock]")) {
      const side = el.dataset.clock;
      const left = this.clockLeft(side);
      el.textContent = formatClock(left);
      el.classList.toggle("running", s.clocks.running === side && s.status === "playing");
      el.classList.toggle("low", s.status === "playing" && this.lowTime(left));
    }
  }

  tick() {
    // Clocks count down smoothly between server updates; only the text changes.
    const loop = () => {
      if (this.state?.clocks?.running && this.state.status === "playing") this.renderClocks();
      this.frame = setTimeout(loop, 100);
    };
    loop();
  }

  inviteUrl() {
    const seat = seatFor(this.id);
    return seat?.invite_url ? new URL(seat.invite_url, location.origin).href : null;
  }

  renderNotice() {
    const s = this.state;
    const parts = [];
    if (s.status === "finished" || s.status === "aborted") {
      parts.push(this.resultBanner());
    } else if (s.status === "waiting") {
      const invite = this.inviteUrl();
      if (s.you && invite) {
        const input = h("input", { type: "text", readonly: true, value: invite, class: "invite-url", "aria-label": t("game.invite_link") });
        const button = h("button", { type: "button", class: "copy-invite primary" }, t("game.copy"));
        button.addEventListener("click", async () => {
          await copyText(invite, input);
          button.textContent = t("game.copied");
        });
        parts.push(h("div", { class: "invite card" }, h("span", {}, t("game.waiting_opponent")),
          h("div", { class: "row" }, input, button)));
      } else if (s.you) {
        parts.push(h("p", { class: "notice" }, t("game.waiting_lobby")));
      } else {
        parts.push(h("p", { class: "notice" }, t("game.spectating")));
      }
    } else if (s.you) {
      const text = s.side_to_move === s.you ? t("game.your_turn") : t("game.to_move", { colour: t(`colours.${s.side_to_move}`) });
      parts.push(h("p", { class: "notice turn" }, t("game.you_play", { colour: t(`colours.${s.you}`) }), " ", text));
    } else {
      parts.push(h("p", { class: "notice turn" }, t("game.spectating"), " ",
        t("game.to_move", { colour: t(`colours.${s.side_to_move}`) })));
    }
    if (s.rated) parts.push(h("p", { class: "notice rated" }, t("game.rated")));
    replace(this.el.notice, parts);
  }

  resultBanner() {
    const s = this.state;
    let title;
    if (s.status === "aborted" || s.result === null) title = t("result.aborted");
    else if (s.result === "draw") title = t("result.draw");
    else title = t(`result.${s.result}_wins`);
    let sub = "";
    if (s.you && (s.result === "white" || s.result === "black")) {
      sub = s.result === s.you ? t("result.you_win") : t("result.you_lose");
    }
    const loser = s.result === "white" || s.result === "black" ? t(`colours.${OTHER[s.result]}`) : "";
    let reasonKey = `reasons.${s.reason}`;
    if (s.reason === "abandoned" && s.result === "draw") reasonKey = "reasons.abandoned_draw";
    const reason = s.reason
      ? (has(reasonKey) ? t(reasonKey, { loser }) : t("reasons.unknown", { code: s.reason }))
      : "";
    return h("div", { class: "banner result", "data-result": s.result ?? "aborted", "data-reason": s.reason ?? "" },
      h("div", { class: "title" }, title),
      sub ? h("div", { class: "sub" }, sub) : null,
      h("div", { class: "reason" }, reason));
  }

  renderOffer() {
    const s = this.state;
    const parts = [];
    if (s.status === "playing" && s.draw_offer) {
      if (s.you && s.draw_offer !== s.you) {
        parts.push(h("div", { class: "offer draw-offer" },
          h("span", { class: "text" }, t("game.draw_offered_by", { colour: t(`colours.${s.draw_offer}`) })),
          h("button", { type: "button", class: "accept-draw primary", onclick: () => this.command("draw_accept") }, t("game.accept_draw")),
          h("button", { type: "button", class: "decline-draw", onclick: () => this.command("draw_decline") }, t("game.decline_draw"))));
      } else if (s.you) {
        parts.push(h("div", { class: "offer draw-offer" }, h("span", { class: "text" }, t("game.draw_offered_by_you"))));
      } else {
        parts.push(h("div", { class: "offer draw-offer" },
          h("span", { class: "text" }, t("game.draw_offered_by", { colour: t(`colours.${s.draw_offer}`) }))));
      }
    }
    if ((s.status === "finished" || s.status === "aborted") && s.rematch_offer && s.you && !s.rematch) {
      if (s.rematch_offer !== s.you) {
        parts.push(h("div", { class: "offer rematch-offer" },
          h("span", { class: "text" }, t("game.rematch_offered")),
          h("button", { type: "button", class: "accept-rematch primary", onclick: () => this.command("rematch_accept") }, t("game.accept_rematch")),
          h("button", { type: "button", class: "decline-rematch", onclick: () => this.command("rematch_decline") }, t("game.decline_draw"))));
      } else {
        parts.push(h("div", { class: "offer rematch-offer" }, h("span", { class: "text" }, t("game.rematch_offered_by_you"))));
      }
    }
    if (s.status === "playing" && s.claimable && s.you) {
      parts.push(h("div", { class: "offer claim" },
        h("span", { class: "text" }, t("game.opponent_gone_now")),
        h("button", { type: "button", class: "claim-victory primary", onclick: () => this.command("claim_victory") }, t("game.claim_victory")),
        h("button", { type: "button", class: "claim-draw", onclick: () => this.command("claim_draw") }, t("game.claim_draw"))));
    }
    replace(this.el.offer, parts);
  }

  renderMoves() {
    const moves = this.state.moves ?? [];
    if (!moves.length) {
      replace(this.el.moves, h("p", { class: "notice" }, t("game.no_moves_yet")));
      return;
    }
    const rows = [];
    for (let i = 0; i < moves.length; i += 2) {
      rows.push(h("li", {},
        h("span", { class: "no" }, `${i / 2 + 1}.`),
        h("span", { class: `mv${i === moves.length - 1 ? " current" : ""}`, "data-ply": i + 1 }, moves[i]),
        h("span", { class: `mv${i + 1 === moves.length - 1 ? " current" : ""}`, "data-ply": i + 2 }, moves[i + 1] ?? "")));
    }
    replace(this.el.moves, h("ol", {}, rows));
    this.el.moves.scrollTop = this.el.moves.scrollHeight;
  }

  renderCounts() {
    const s = this.state;
    const start = countFen(s.start_fen);
    const now = { white: 0, black: 0 };
    for (const [, colour] of s.pieces) now[colour] += 1;
    // Pieces each side has taken from the other.
    const taken = { white: Math.max(0, start.black - now.black), black: Math.max(0, start.white - now.white) };
    replace(this.el.counts, ["white", "black"].map((side) => h("span", { class: "captured", "data-side": side, "data-n": taken[side] },
      t("game.captured", { colour: t(`colours.${side}`), n: taken[side] }))));
  }

  renderButtons() {
    const s = this.state;
    const buttons = [];
    const playing = s.status === "playing";
    const over = s.status === "finished" || s.status === "aborted";
    if (s.you && (playing || s.status === "waiting")) {
      const early = s.moves.length < 2 || s.status === "waiting";
      if (early) {
        buttons.push(h("button", { type: "button", class: "abort", onclick: () => this.command("abort") }, t("game.abort")));
      }
      if (playing) {
        buttons.push(h("button", {
          type: "button", class: "offer-draw", disabled: !!s.draw_offer,
          onclick: () => this.command("draw_offer"),
        }, t("game.offer_draw")));
        const resign = h("button", { type: "button", class: `resign danger${this.resignArmed ? " armed" : ""}` },
          this.resignArmed ? t("game.confirm_resign") : t("game.resign"));
        resign.addEventListener("click", () => {
          if (this.resignArmed) {
            this.resignArmed = false;
            this.command("resign");
          } else {
            this.resignArmed = true;
            setTimeout(() => { this.resignArmed = false; this.renderButtons(); }, 4000);
          }
          this.renderButtons();
        });
        buttons.push(resign);
      }
    }
    if (s.you && over && s.players?.[OTHER[s.you]] && !s.rematch && s.rematch_offer !== s.you) {
      buttons.push(h("button", { type: "button", class: "rematch primary", onclick: () => this.command("rematch_offer") }, t("game.rematch")));
    }
    if (over) {
      buttons.push(h("a", { class: "button-link new-game", href: `/?variant=${s.variant}` }, t("game.new_game")));
    }
    const invite = this.inviteUrl();
    if (invite && s.you && s.status !== "waiting") {
      buttons.push(h("button", {
        type: "button", class: "copy-invite",
        onclick: async (e) => { await copyText(invite); e.target.textContent = t("game.copied"); },
      }, t("game.copy_invite")));
    }
    buttons.push(h("button", { type: "button", class: "pdn", onclick: () => this.downloadPdn() }, t("game.download_pdn")));
    replace(this.el.buttons, buttons);
  }

  async downloadPdn() {
    try {
      const text = await api.pdn(this.id);
      download(`kondavo-${this.id}.pdn`, text, "application/x-chess-pdn");
    } catch (err) {
      this.flash(t("game.refused", { reason: err.message }));
    }
  }

  renderToast() {
    this.el.toast.textContent = this.toast;
  }

  buildChat() {
    this.chatLines = h("div", { class: "lines", "aria-live": "polite" });
    this.chatInput = h("input", { type: "text", maxlength: 140, autocomplete: "off", class: "chat-input" });
    this.chatTitle = h("h2", {});
    this.chatButton = h("button", { type: "submit" });
    const form = h("form", {}, this.chatInput, this.chatButton);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.chatInput.value.trim();
      if (!text) return;
      if (this.command("chat", { text }) !== null) this.chatInput.value = "";
    });
    replace(this.el.chat, this.chatTitle, this.chatLines, form);
  }

  renderChat() {
    const s = this.state;
    const channel = s.you ? "players" : "spectators";
    this.chatTitle.textContent = `${t("game.chat")} · ${t(channel === "players" ? "game.chat_players" : "game.chat_spectators")}`;
    this.chatInput.placeholder = t("game.chat_placeholder");
    this.chatButton.textContent = t("game.send");
    this.el.chat.dataset.channel = channel;
    this.renderChatLines();
  }

  renderChatLines() {
    const lines = this.state?.chat ?? [];
    const mine = this.state?.you ? "players" : "spectators";
    if (!lines.length) {
      replace(this.chatLines, h("p", { class: "notice" }, t("game.chat_empty")));
      return;
    }
    replace(this.chatLines, lines.map((line) => {
      const who = line.name || (line.by === "spectator" ? t("game.chat_spectators") : t(`colours.${line.by}`));
      return h("p", { class: `line ${line.channel}`, "data-channel": line.channel },
        line.channel !== mine ? h("span", { class: "meta" }, `[${t(line.channel === "players" ? "game.chat_players" : "game.chat_spectators")}] `) : null,
        h("span", { class: "who" }, `${who}:`),
        h("span", { class: "text" }, line.text));
    }));
    this.chatLines.scrollTop = this.chatLines.scrollHeight;
  }
}
