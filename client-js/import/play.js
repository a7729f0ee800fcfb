// "Play from here": a new game from the replay's position, against a friend or the
// computer, through POST /api/games with the position's FEN; then the game page, as
// the home page goes there after creating a game.
import { api } from "../api.js";
import { h, replace } from "../dom.js";
import { CLOCKS } from "../home.js";
import { has, t } from "../i18n/index.js";
import { rememberSeat } from "../seats.js";

const OPPONENTS = ["computer", "friend"];
const COLOURS = ["white", "black", "random"];
const LEVELS = [1, 2, 3, 4, 5, 6, 7, 8];

export class PlayFromHere {
  constructor(el, replay) {
    this.el = el;
    this.replay = replay;
    this.choices = { opponent: "computer", level: 3, colour: "white", clock: "none" };
    this.busy = false;
    this.error = "";
  }

  choose(key, value) {
    this.choices[key] = value;
    this.error = "";
    this.render();
  }

  pills(group, values, label) {
    return h("div", { class: `pills ${group}` }, values.map((value) => {
      const input = h("input", {
        type: "radio", name: `play-${group}`, value: String(value), checked: this.choices[group] === value,
      });
      input.addEventListener("change", () => this.choose(group, value));
      return h("label", { class: "choice", "data-choice": `${group}:${value}` }, input,
        h("span", { class: "box" }, label(value)));
    }));
  }

  async start() {
    const replay = this.replay;
    if (this.busy || !replay.game) return;
    this.busy = true;
    this.error = "";
    this.render();
    const { opponent, level, colour } = this.choices;
    const clock = CLOCKS.find((c) => c.id === this.choices.clock);
    try {
      const game = await api.createGame({
        variant: replay.game.variant,
        fen: replay.fen,
        clock: clock.initial_s === null ? null : { initial_s: clock.initial_s, increment_s: clock.increment_s },
        color: colour,
        opponent,
        level: opponent === "computer" ? level : null,
      });
      rememberSeat(game.id, { token: game.seat.token, side: game.seat.side, invite_url: game.invite_url ?? null });
      location.assign(`/g/${encodeURIComponent(game.id)}`);
    } catch (err) {
      this.busy = false;
      const reason = has(`errors.${err.code}`) ? t(`errors.${err.code}`) : err.message || t("errors.unknown", { code: err.code });
      this.error = t("home.create_failed", { reason });
      this.render();
    }
  }

  render() {
    const replay = this.replay;
    if (!replay.game) return;
    // Where the board itself has ended the game, nothing is left to play.
    const over = replay.ply === replay.game.over_at;
    const level = this.choices.opponent === "computer"
      ? h("div", { class: "level" }, h("span", {}, `${t("home.level")}:`), this.pills("level", LEVELS, String))
      : null;
    replace(this.el,
      h("h2", {}, t("import_page.play_title")),
      this.pills("opponent", OPPONENTS, (o) => t(`import_page.play_${o}`)),
      level,
      h("div", { class: "row" }, h("span", {}, `${t("home.colour")}:`),
        this.pills("colour", COLOURS, (c) => t(`colours.${c}`))),
      h("div", { class: "row" }, h("span", {}, `${t("home.clock")}:`),
        this.pills("clock", CLOCKS.map((c) => c.id), (id) => (id === "none" ? t("home.no_clock") : id))),
      h("button", {
        type: "button", class: "primary play-from-here", disabled: this.busy || over,
        onclick: () => this.start(),
      }, this.busy ? t("home.creating") : t("import_page.play")),
      over ? h("p", { class: "notice" }, t("import_page.over_here")) : null,
      this.error ? h("p", { class: "error" }, this.error) : null);
  }
}
