// /g/{id}: one game, for a player or a spectator. The page joins the parts:
// game/model.js folds the server's messages into state, game/commands.js sends,
// game/views/* draw one panel each, game/attention.js says "your turn" outside
// the page. Nothing here knows a rule of draughts.
import { analysisPanel } from "./analysis.js";
import { api } from "./api.js";
import { Board } from "./board.js";
import { download, h, replace } from "./dom.js";
import { has, lang, t } from "./i18n/index.js";
import { Connection } from "./net.js";
import { CLOSE_CODES, EVENTS } from "./protocol.js";
import { myName, nameForm } from "./name.js";
import { rememberSeat, seatFor } from "./seats.js";
import * as sound from "./sound.js";
import { Attention } from "./game/attention.js";
import { Commands } from "./game/commands.js";
import { forcedHint } from "./game/hint.js";
import { GameModel, isOver, ordering, OTHER } from "./game/model.js";
import { nextPremove, resolvePremove } from "./game/premove.js";
import { renderButtons } from "./game/views/buttons.js";
import { ChatView } from "./game/views/chat.js";
import { renderCounts } from "./game/views/counts.js";
import { renderMoves, renderReviewBar } from "./game/views/moves.js";
import { renderNotice, updateCountdown } from "./game/views/notice.js";
import { renderOffers } from "./game/views/offers.js";
import { renderClocks, renderPlayers } from "./game/views/players.js";
import { renderStatus } from "./game/views/status.js";

export { formatClock } from "./game/model.js";

const COORDS_KEY = "kondavo.coords";

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
    this.model = new GameModel();
    this.commands = new Commands();
    this.attention = new Attention();
    this.toast = "";
    this.hint = "";
    this.connStatus = "connecting";
    this.notFound = false;
    this.resignArmed = false;
    this.bottom = null; // chosen orientation; null until the state says who we are
    this.coordinates = localStorage.getItem(COORDS_KEY) !== "0";
    this.build();
  }

  // For tests and the console: what the page holds.
  get state() { return this.model.state; }
  get pending() { return this.model.pending; }
  get v() { return this.model.v; }

  async start() {
    await this.takeInvitedSeat();
    this.conn = new Connection(`/ws/games/${encodeURIComponent(this.id)}`, {
      onOpen: () => this.commands.hello(seatFor(this.id)?.token ?? null, this.wantSnapshot ? null : this.model.v, myName()),
      onMessage: (msg) => this.receive(msg),
      onStatus: (status, code) => {
        this.connStatus = status;
        if (status === "closed" && code === CLOSE_CODES.ROOM_NOT_FOUND) this.notFound = true;
        this.render();
      },
    });
    this.commands.attach(this.conn);
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
    const order = ordering(this.model.v, msg, EVENTS);
    if (order === "ignore") return;
    if (order === "gap") {
      this.conn.reconnectNow(); // something was missed: ask again from the last version we have
      return;
    }
    if (EVENTS.has(msg.t) && msg.t !== "state") this.model.v = msg.v;
    if (msg.t === "seat") return this.onSeat(msg);
    if (msg.t === "error") this.showError(msg);
    const first = this.model.state === null;
    const effects = this.model.fold(msg, performance.now());
    if (msg.t === "state") this.onState(first);
    if (msg.t === "moved") this.afterMove();
    for (const effect of effects) this.apply(effect);
    if (msg.t === "chat") this.chat.renderLines();
    else this.render();
  }

  onState(first) {
    const s = this.model.state;
    this.wantSnapshot = false;
    if (s.you) rememberSeat(this.id, { side: s.you });
    if (first || this.bottom === null) this.bottom = s.you ?? "white";
    if (first) this.board.setLayout(s.board);
    this.board.setBottom(this.bottom);
    this.boardKey = null;
    this.loadPositions();
  }

  afterMove() {
    this.hint = "";
    this.board.clearPremove?.();
    // A premove waits for our turn: play it if it is one of the moves now listed.
    const premove = this.premove;
    this.premove = null;
    if (premove && this.model.myTurn) {
      const move = resolvePremove(this.model.state.legal, premove);
      if (move) this.playMove(move.path, move);
    }
  }

  apply(effect) {
    if (effect.sound) sound.play(effect.sound);
    if (effect.flash) this.flash(t(effect.flash));
    if (effect.notFound) {
      this.notFound = true;
      this.conn.close();
    }
    if (effect.rematch) this.goToRematch(effect.rematch);
    if ("turn" in effect) this.attention.set(effect.turn, this.titleText());
  }

  /** Past positions come from the server; fetched once, then each move adds its own. */
  async loadPositions() {
    if (this.model.pliesComplete) return;
    try {
      const answer = await api.positions(this.id, 0);
      this.model.addPlies(answer.plies);
      this.render();
    } catch {
      // Reviewing waits for the next state; the live game goes on regardless.
    }
  }

  goToRematch(game) {
    const go = () => location.assign(`/g/${encodeURIComponent(game)}`);
    if (!this.model.you) return go();
    // A player waits for its private seat message, which follows the rematch event.
    this.rematchGo = go;
    setTimeout(go, 2000);
  }

  onSeat(msg) {
    rememberSeat(msg.game, { token: msg.token, side: msg.side });
    if (msg.game === this.model.state?.rematch) this.rematchGo?.();
  }

  showError(msg) {
    if (this.model.pending && msg.ack === this.model.pending.ack) this.boardKey = null;
    const reason = has(`errors.${msg.code}`) ? t(`errors.${msg.code}`) : msg.message || msg.code;
    this.flash(t("game.refused", { reason }));
  }

  // --- commands out ---

  send(tag, fields = {}) {
    const ack = this.commands.send(tag, fields);
    if (ack === null) this.flash(t("game.connection.offline"));
    return ack;
  }

  playMove(path, move) {
    const ack = this.send("move", { path, v: this.model.v });
    this.boardKey = null;
    if (ack === null) {
      this.render();
      return;
    }
    this.model.pending = { ack, path };
    this.hint = "";
    // Show the move at once; the server's "moved" event confirms it (with crowning).
    const pieces = new Map(this.model.state.pieces.map((p) => [p[0], p]));
    const piece = pieces.get(path[0]);
    pieces.delete(path[0]);
    for (const square of move.captured ?? []) pieces.delete(square);
    if (piece) pieces.set(path.at(-1), [path.at(-1), piece[1], piece[2]]);
    this.board.update({ pieces: [...pieces.values()], moves: [], lastMove: { path, captured: move.captured ?? [] } });
    this.renderNoticeOnly();
  }

  /** A click on a square the board could not use as a move: maybe explain why. */
  async onIdleClick(label) {
    const model = this.model;
    const s = model.state;
    if (model.reviewing !== null || !s) return;
    if (s.status === "playing" && s.you && !model.myTurn) {
      this.premoveClick(label);
      return;
    }
    const mine = s.pieces.find((p) => p[0] === label && p[1] === s.you);
    if (!model.myTurn || !mine || !s.legal.length) {
      if (this.hint) { this.hint = ""; this.renderNoticeOnly(); }
      return;
    }
    const entry = await this.forcedAt(model.ply);
    const hint = forcedHint(entry?.forced, s.legal, label, t);
    this.hint = hint ?? "";
    this.board.mark(hint ? [...new Set(s.legal.map((m) => m.path[0]))] : []);
    this.renderNoticeOnly();
  }

  /** The position's `forced` reason, fetched from the server the first time it is asked. */
  async forcedAt(ply) {
    const entry = this.model.plies[ply];
    if (entry && entry.forced !== undefined) return entry;
    try {
      const answer = await api.positions(this.id, ply);
      this.model.addPlies(answer.plies);
    } catch {
      return null;
    }
    return this.model.plies[ply] ?? null;
  }

  // --- premove: a move chosen during the opponent's turn, sent when ours comes ---

  premoveClick(label) {
    const s = this.model.state;
    this.premove = nextPremove(this.premove, label, (sq) => s.pieces.some((p) => p[0] === sq && p[1] === s.you));
    this.board.setPremove(this.premove);
  }

  cancelPremove() {
    if (!this.premove) return;
    this.premove = null;
    this.board.setPremove(null);
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
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const model = this.model;
    const steps = {
      ArrowLeft: () => model.shownPly - 1,
      ArrowRight: () => model.shownPly + 1,
      ArrowUp: () => 0,
      Home: () => 0,
      ArrowDown: () => model.ply,
      End: () => model.ply,
    };
    if (event.key in steps && model.state) {
      event.preventDefault();
      this.review(steps[event.key]());
    } else if (event.key === "Escape") {
      this.cancelPremove();
    } else if (event.key === "f") {
      this.flip();
    }
  }

  /** Show the board after ply `n` (the latest: back to the game). */
  review(n) {
    if (!this.model.state) return;
    if (n < this.model.ply && !this.model.pliesComplete) this.loadPositions();
    this.model.review(n);
    this.board.clearSelection();
    this.hint = "";
    this.render();
  }

  flip() {
    this.bottom = OTHER[this.bottom ?? "white"];
    this.board.setBottom(this.bottom);
    this.render();
  }

  setCoordinates(on) {
    this.coordinates = on;
    localStorage.setItem(COORDS_KEY, on ? "1" : "0");
    this.board.setCoordinates(on);
    this.render();
  }

  inviteUrl() {
    const seat = seatFor(this.id);
    return seat?.invite_url ? new URL(seat.invite_url, location.origin).href : null;
  }

  async downloadPdn() {
    try {
      const text = await api.pdn(this.id);
      download(`kondavo-${this.id}.pdn`, text, "application/x-chess-pdn");
    } catch (err) {
      this.flash(t("game.refused", { reason: err.message }));
    }
  }

  titleText() {
    const s = this.model.state;
    if (!s) return t("site.name");
    const name = t(`variants.${s.variant}.name`);
    return `${name} · ${t("site.name")}`;
  }

  // --- rendering ---

  build() {
    this.el = {
      topBar: h("div", { class: "player-bar top" }),
      bottomBar: h("div", { class: "player-bar bottom" }),
      boardWrap: h("div", { class: "board-wrap" }),
      review: h("div", { class: "review-bar", hidden: true }),
      status: h("div", { class: "status-line" }),
      notice: h("div", { class: "notice-area" }),
      offer: h("div", { class: "offer-area" }),
      moves: h("div", { class: "movelist card", "aria-live": "polite" }),
      counts: h("div", { class: "counts" }),
      buttons: h("div", { class: "buttons" }),
      toast: h("div", { class: "toast", role: "status" }),
      chat: h("section", { class: "chat card" }),
      analysis: h("div", { class: "analysis-area" }),
      name: h("div", { class: "name-area" }),
    };
    this.board = new Board(this.el.boardWrap, {
      onMove: (path, move) => this.playMove(path, move),
      onIdle: (label) => this.onIdleClick(label),
      onCancel: () => this.cancelPremove(),
    });
    this.board.setCoordinates(this.coordinates);
    this.chat = new ChatView(this.el.chat, this);
    replace(this.root, h("div", { class: "game", "data-game": this.id },
      h("div", { class: "board-area" }, this.el.topBar, this.el.boardWrap, this.el.bottomBar),
      h("div", { class: "side" },
        this.el.status, this.el.review, this.el.notice, this.el.offer, this.el.moves, this.el.counts,
        this.el.buttons, this.el.toast, this.el.name, this.el.analysis, this.el.chat)));
    replace(this.el.notice, h("p", { class: "notice" }, t("game.loading")));
  }

  render() {
    if (this.notFound) {
      replace(this.root, h("p", { class: "notice not-found" }, t("game.not_found"), " ",
        h("a", { href: "/" }, t("game.new_game"))));
      return;
    }
    renderStatus(this.el.status, this);
    const s = this.model.state;
    if (!s) return;
    this.attention.set(this.model.myTurn, this.titleText());
    this.renderBoard();
    renderPlayers({ top: this.el.topBar, bottom: this.el.bottomBar }, this);
    renderReviewBar(this.el.review, this);
    this.renderNoticeOnly();
    renderOffers(this.el.offer, this);
    renderMoves(this.el.moves, this);
    renderCounts(this.el.counts, this);
    renderButtons(this.el.buttons, this);
    this.renderNameForm();
    this.renderToast();
    this.chat.render();
    this.renderAnalysis();
    const game = this.root.querySelector(".game");
    game.dataset.status = s.status;
    game.dataset.reviewing = this.model.reviewing === null ? "" : String(this.model.reviewing);
  }

  /** The analyst's panel once the game is finished: its graph and lines follow the ply
   * reviewed, and a click in it reviews that ply. */
  renderAnalysis() {
    const s = this.model.state;
    if (s.status !== "finished" || !s.moves.length) return;
    if (!this.analysis) {
      this.analysis = analysisPanel({ game: this.id }, { onSelect: (ply) => this.review(ply) });
      this.analysis.element.classList.add("card");
      replace(this.el.analysis, this.analysis.element);
    }
    if (this.analysisPly !== this.model.shownPly) {
      this.analysisPly = this.model.shownPly;
      this.analysis.select(this.analysisPly);
    }
  }

  renderBoard() {
    if (this.model.pending) return; // the move sent is shown until the server answers
    // Redraw the board only when what it shows changed (a redraw ends a drag).
    const shown = this.model.boardView();
    const key = JSON.stringify(shown);
    if (key === this.boardKey) return;
    this.boardKey = key;
    this.board.update({ pieces: shown.pieces, lastMove: shown.lastMove, moves: shown.moves });
    this.board.setPast(shown.past);
    if (!this.model.myTurn) this.board.mark([]);
  }

  /** A seated player may set its name here too: the reconnect's hello carries it. */
  renderNameForm() {
    const s = this.model.state;
    if (!s.you || isOver(s.status)) {
      replace(this.el.name);
      return;
    }
    if (this.el.name.firstChild && this.el.name.dataset.lang === lang()) return; // keep what is typed
    this.el.name.dataset.lang = lang();
    replace(this.el.name, nameForm(() => this.conn.reconnectNow()));
  }

  renderNoticeOnly() {
    renderNotice(this.el.notice, this);
  }

  renderToast() {
    this.el.toast.textContent = this.toast;
  }

  tick() {
    // Clocks count down smoothly between server updates; only the text changes.
    const loop = () => {
      const s = this.model.state;
      if (s?.clocks?.running && s.status === "playing" && !isOver(s.status)) renderClocks(this);
      if (s && this.model.claimIn(Date.now()) !== null) this.renderNoticeOnly();
      const countdown = this.root.querySelector("[data-first-move]");
      if (countdown) updateCountdown(countdown, this);
      this.frame = setTimeout(loop, 100);
    };
    loop();
  }
}
