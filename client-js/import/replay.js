// One imported game replayed: the board after any ply (from the server's FENs), the
// move list to click (the game page's own view), ← → Home End, and "Play from here".
// Nothing here knows a rule: every position and move comes from POST /api/import.
import { Board } from "../board.js";
import { h, replace } from "../dom.js";
import { moveLabel } from "../game/model.js";
import { renderMoves } from "../game/views/moves.js";
import { t } from "../i18n/index.js";
import { PlayFromHere } from "./play.js";
import { readFen } from "./fen.js";

export class ReplayView {
  constructor(root) {
    this.root = root;
    this.game = null;
    this.layout = null;
    this.ply = 0;
    this.el = {
      boardWrap: h("div", { class: "board-wrap" }),
      title: h("div", { class: "replay-title" }),
      position: h("div", { class: "replay-position", "aria-live": "polite" }),
      moves: h("div", { class: "movelist card" }),
      play: h("section", { class: "play-here card" }),
    };
    this.board = new Board(this.el.boardWrap, {});
    this.play = new PlayFromHere(this.el.play, this);
    this.flipButton = h("button", { type: "button", class: "flip", onclick: () => this.board.flip() });
    replace(root, h("div", { class: "game replay" },
      h("div", { class: "board-area" }, this.el.title, this.el.boardWrap,
        h("div", { class: "replay-tools" }, this.flipButton)),
      h("div", { class: "side" }, this.el.position, this.el.moves, this.el.play)));
    document.addEventListener("keydown", (e) => this.onKey(e));
  }

  /** Show `game` (one entry of the import answer) drawn on `layout`, from its start. */
  show(game, layout) {
    const fresh = this.layout !== layout;
    this.game = game;
    this.layout = layout;
    this.ply = 0;
    if (fresh) this.board.setLayout(layout);
    this.root.hidden = false;
    this.render();
  }

  get last() {
    return this.game ? this.game.moves.length : 0;
  }

  get fen() {
    return this.game?.fens[this.ply] ?? null;
  }

  /** The board after ply `n` (0: the start), kept within the game. */
  go(n) {
    if (!this.game) return;
    this.ply = Math.max(0, Math.min(this.last, n));
    this.render();
  }

  onKey(event) {
    if (!this.game || this.root.hidden) return;
    if (event.target.closest?.("input, textarea, select, button")) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const steps = {
      ArrowLeft: () => this.ply - 1,
      ArrowRight: () => this.ply + 1,
      Home: () => 0,
      ArrowUp: () => 0,
      End: () => this.last,
      ArrowDown: () => this.last,
    };
    if (!(event.key in steps)) return;
    event.preventDefault();
    this.go(steps[event.key]());
  }

  render() {
    const game = this.game;
    if (!game) return;
    const { toMove, pieces } = readFen(this.fen);
    const move = this.ply > 0 ? game.moves[this.ply - 1] : null;
    this.board.update({ pieces, moves: [], lastMove: move ? { path: move.path, captured: move.captured } : null });
    this.flipButton.textContent = t("import_page.flip");
    replace(this.el.title, gameTitle(game));
    const passed = (game.draws_passed ?? []).filter((d) => d.ply === this.ply);
    replace(this.el.position,
      h("p", { class: "where" },
        move ? t("import_page.after", { move: moveLabel(this.ply, move.notation, game.starts_second) })
          : t("import_page.start"),
        " · ", t("import_page.to_move", { side: t(`colours.${toMove}`) })),
      passed.map((d) => h("p", { class: "notice hint draw-passed" },
        t("import_page.draw_passed"), " ", t(`reasons.${d.reason}`))),
      this.ply === game.over_at && game.result ? h("p", { class: "notice" }, resultText(game)) : null);
    // The game page's move list and its buttons, fed by this replay.
    const page = {
      model: {
        state: { moves: game.moves.map((m) => m.notation), starts_second: game.starts_second },
        shownPly: this.ply,
        ply: this.last,
        reviewing: this.ply,
      },
      review: (n) => this.go(n),
    };
    renderMoves(this.el.moves, page);
    this.el.moves.dataset.shown = String(this.ply);
    this.play.render();
  }
}

/** "Anna – Bram · Event" from the game's tags, or the rule set's name. */
export function gameTitle(game, withVariant = true) {
  const name = (tag) => {
    const value = (game.tags?.[tag] ?? "").trim();
    return value && value !== "?" ? value : null;
  };
  const players = name("White") || name("Black")
    ? `${name("White") ?? "?"} – ${name("Black") ?? "?"}` : null;
  const parts = [players, name("Event"), name("Date"),
    withVariant && game.variant ? t(`variants.${game.variant}.name`) : null].filter(Boolean);
  return parts.join(" · ");
}

export function resultText(game) {
  if (!game.result) return "";
  const key = { white: "white_wins", black: "black_wins", draw: "draw" }[game.result];
  return t(`result.${key}`);
}
