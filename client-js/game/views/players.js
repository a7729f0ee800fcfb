// The two player bars around the board (opponent above, you below): name, rating,
// presence, the claim countdown and the clock.
import { h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";
import { formatClock, OTHER, ratingText } from "../model.js";

export function playerName(state, side) {
  const p = state.players?.[side];
  if (!p) return t("game.waiting");
  // The computer's name is ours to word, in the page's language.
  if (p.computer) return t("game.computer_level", { n: p.level ?? "?" });
  return p.name || t("lobby.anonymous");
}

export function renderPlayers(bars, page) {
  const s = page.model.state;
  const topSide = OTHER[page.bottom];
  for (const [bar, side] of [[bars.top, topSide], [bars.bottom, page.bottom]]) {
    const p = s.players?.[side];
    const toMove = s.status === "playing" && s.side_to_move === side;
    bar.className = `player-bar ${side}${toMove ? " to-move" : ""}`;
    bar.dataset.side = side;
    const rating = ratingText(p);
    replace(bar,
      h("span", { class: `dot ${side}`, title: t(`colours.${side}`) }),
      h("span", { class: "name" }, playerName(s, side)),
      rating ? h("span", { class: "rating", "data-rating": side, title: t("game.rating") }, rating) : null,
      s.you === side ? h("span", { class: "meta" }, `(${t("game.you")})`) : null,
      p && p.present === false && s.status === "playing"
        ? h("span", { class: "meta away", title: t("game.opponent_gone") }, "⚠") : null,
      s.clocks ? h("span", { class: "clock", "data-clock": side }) : null);
  }
  renderClocks(page);
}

/** Only the clocks' text and classes: called ten times a second while one runs. */
export function renderClocks(page) {
  const model = page.model;
  const s = model.state;
  if (!s?.clocks) return;
  const now = performance.now();
  for (const el of page.root.querySelectorAll("[data-clock]")) {
    const side = el.dataset.clock;
    const left = model.clockLeft(side, now);
    el.textContent = formatClock(left);
    el.classList.toggle("running", s.clocks.running === side && s.status === "playing");
    el.classList.toggle("low", s.status === "playing" && model.lowTime(left));
  }
}
