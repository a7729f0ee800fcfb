// "/": choose a rule set, a time control, a colour and an opponent; one click on
// Play creates the game. The lobby below lists open games and games to watch.
import { api } from "./api.js";
import { h, replace } from "./dom.js";
import { has, t } from "./i18n/index.js";
import { Lobby } from "./lobby.js";
import { nameForm } from "./name.js";
import { rememberSeat } from "./seats.js";
import { DEFAULT_VARIANT, VARIANTS } from "./variants.js";

export const CLOCKS = [
  { id: "1+0", initial_s: 60, increment_s: 0 },
  { id: "3+2", initial_s: 180, increment_s: 2 },
  { id: "5+3", initial_s: 300, increment_s: 3 },
  { id: "10+5", initial_s: 600, increment_s: 5 },
  { id: "15+10", initial_s: 900, increment_s: 10 },
  { id: "none", initial_s: null, increment_s: 0 },
];
const COLOURS = ["random", "white", "black"];
const OPPONENTS = ["friend", "lobby", "computer"];
const CHOICES_KEY = "kondavo.choices";

function loadChoices() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(CHOICES_KEY) || "{}");
  } catch {
    saved = {};
  }
  const wanted = new URLSearchParams(location.search).get("variant");
  return {
    variant: VARIANTS.includes(wanted) ? wanted : VARIANTS.includes(saved.variant) ? saved.variant : DEFAULT_VARIANT,
    clock: CLOCKS.some((c) => c.id === saved.clock) ? saved.clock : "5+3",
    colour: COLOURS.includes(saved.colour) ? saved.colour : "random",
    opponent: OPPONENTS.includes(saved.opponent) ? saved.opponent : "friend",
    level: Number.isInteger(saved.level) && saved.level >= 1 && saved.level <= 8 ? saved.level : 3,
    rated: saved.rated === true,
  };
}

export function mount(root) {
  const choices = loadChoices();
  let busy = false;
  let error = "";
  const lobbyBox = h("section", { class: "lobby card" });
  const lobby = new Lobby(lobbyBox);

  function choose(key, value) {
    choices[key] = value;
    localStorage.setItem(CHOICES_KEY, JSON.stringify(choices));
    render();
  }

  function radio(group, value, checked, content, extra = {}) {
    const input = h("input", { type: "radio", name: group, value, checked, ...extra });
    input.addEventListener("change", () => choose(group, group === "level" ? Number(value) : value));
    return h("label", { class: "choice", "data-choice": `${group}:${value}` }, input, h("span", { class: "box" }, content));
  }

  async function play() {
    if (busy) return;
    busy = true;
    error = "";
    render();
    const clock = CLOCKS.find((c) => c.id === choices.clock);
    try {
      const game = await api.createGame({
        variant: choices.variant,
        clock: clock.initial_s === null ? null : { initial_s: clock.initial_s, increment_s: clock.increment_s },
        color: choices.colour,
        opponent: choices.opponent === "lobby" ? "open" : choices.opponent,
        level: choices.opponent === "computer" ? choices.level : null,
        rated: choices.rated,
      });
      rememberSeat(game.id, { token: game.seat.token, side: game.seat.side, invite_url: game.invite_url ?? null });
      location.assign(`/g/${encodeURIComponent(game.id)}`);
    } catch (err) {
      busy = false;
      const reason = has(`errors.${err.code}`) ? t(`errors.${err.code}`) : err.message || t("errors.unknown", { code: err.code });
      error = t("home.create_failed", { reason });
      render();
    }
  }

  function render() {
    document.title = `${t("site.name")} · ${t("site.tagline")}`;
    const variants = h("div", { class: "choices variants" }, VARIANTS.map((id) => radio("variant", id, choices.variant === id, [
      h("span", { class: "name" }, t(`variants.${id}.name`)),
      h("span", { class: "line" }, t(`variants.${id}.line`), " ",
        h("a", { href: `/rules/${id}` }, t("home.rules_link"))),
    ])));
    const clocks = h("div", { class: "pills clocks" }, CLOCKS.map((c) =>
      radio("clock", c.id, choices.clock === c.id, c.id === "none" ? t("home.no_clock") : c.id)));
    const colours = h("div", { class: "pills colours" }, COLOURS.map((c) =>
      radio("colour", c, choices.colour === c, t(`colours.${c}`))));
    const opponents = h("div", { class: "choices opponents" }, OPPONENTS.map((o) => radio("opponent", o, choices.opponent === o, [
      h("span", { class: "name" }, t(`home.${o}`)),
      h("span", { class: "line" }, t(`home.${o}_hint`)),
    ])));
    const level = choices.opponent === "computer"
      ? h("div", { class: "level pills" }, h("span", {}, `${t("home.level")}:`),
        [1, 2, 3, 4, 5, 6, 7, 8].map((n) => radio("level", String(n), choices.level === n, String(n))))
      : null;
    const ratedBox = h("input", { type: "checkbox", name: "rated", checked: choices.rated });
    ratedBox.addEventListener("change", () => choose("rated", ratedBox.checked));
    const rated = h("label", { class: "rated-choice", "data-choice": "rated" }, ratedBox, " ", t("home.rated"),
      h("span", { class: "line" }, ` — ${t("home.rated_hint")} `, h("a", { href: `/ratings/${choices.variant}` }, t("home.ratings_link"))));
    const playButton = h("button", { type: "button", class: "primary play", disabled: busy, onclick: play },
      busy ? t("home.creating") : t("home.play"));
    replace(root,
      h("p", { class: "tagline" }, t("site.tagline")),
      h("div", { class: "home" },
        h("section", { class: "new-game card" },
          h("h2", {}, t("home.variant")), variants,
          h("h2", {}, t("home.clock")), clocks,
          h("h2", {}, t("home.colour")), colours,
          h("h2", {}, t("home.opponent")), opponents, level, rated,
          h("div", { class: "play-row" }, playButton, error ? h("span", { class: "error" }, error) : null),
          nameForm(),
          h("p", { class: "my-games-link" }, h("a", { href: "/my" }, t("my_games.title")))),
        lobbyBox));
    lobby.render();
  }

  render();
  lobby.start();
  return { render };
}
