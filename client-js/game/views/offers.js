// Offers waiting for an answer: a draw, a takeback, a rematch, a claim against an absent
// opponent.
import { h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";

export function renderOffers(el, page) {
  const model = page.model;
  const s = model.state;
  const send = (tag) => () => page.send(tag);
  const parts = [];
  if (s.status === "playing" && s.draw_offer) {
    const by = t("game.draw_offered_by", { colour: t(`colours.${s.draw_offer}`) });
    if (model.may("draw_accept")) {
      parts.push(h("div", { class: "offer draw-offer" }, h("span", { class: "text" }, by),
        h("button", { type: "button", class: "accept-draw primary", onclick: send("draw_accept") }, t("game.accept_draw")),
        h("button", { type: "button", class: "decline-draw", onclick: send("draw_decline") }, t("game.decline_draw"))));
    } else {
      parts.push(h("div", { class: "offer draw-offer" },
        h("span", { class: "text" }, s.draw_offer === s.you ? t("game.draw_offered_by_you") : by)));
    }
  }
  if (s.status === "playing" && s.takeback_offer && s.you) {
    if (model.may("takeback_accept")) {
      parts.push(h("div", { class: "offer takeback-offer" },
        h("span", { class: "text" }, t("game.takeback_offered")),
        h("button", { type: "button", class: "accept-takeback primary", onclick: send("takeback_accept") }, t("game.accept_takeback")),
        h("button", { type: "button", class: "decline-takeback", onclick: send("takeback_decline") }, t("game.decline_draw"))));
    } else if (s.takeback_offer === s.you) {
      parts.push(h("div", { class: "offer takeback-offer" }, h("span", { class: "text" }, t("game.takeback_offered_by_you"))));
    }
  }
  if (s.rematch_offer && s.you && !s.rematch) {
    if (model.may("rematch_accept")) {
      parts.push(h("div", { class: "offer rematch-offer" },
        h("span", { class: "text" }, t("game.rematch_offered")),
        h("button", { type: "button", class: "accept-rematch primary", onclick: send("rematch_accept") }, t("game.accept_rematch")),
        h("button", { type: "button", class: "decline-rematch", onclick: send("rematch_decline") }, t("game.decline_draw"))));
    } else if (s.rematch_offer === s.you) {
      parts.push(h("div", { class: "offer rematch-offer" }, h("span", { class: "text" }, t("game.rematch_offered_by_you"))));
    }
  }
  if (model.may("claim_victory")) {
    parts.push(h("div", { class: "offer claim" },
      h("span", { class: "text" }, t("game.opponent_gone_now")),
      h("button", { type: "button", class: "claim-victory primary", onclick: send("claim_victory") }, t("game.claim_victory")),
      h("button", { type: "button", class: "claim-draw", onclick: send("claim_draw") }, t("game.claim_draw"))));
  }
  replace(el, parts);
}
