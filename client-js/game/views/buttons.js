// The seat's buttons (abort, draw, takeback, resign, rematch) and the links anyone may use.
import { copyText, h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";
import { isOver } from "../model.js";

export function renderButtons(el, page) {
  const model = page.model;
  const s = model.state;
  const buttons = [];
  if (model.may("abort")) {
    buttons.push(h("button", { type: "button", class: "abort", onclick: () => page.send("abort") }, t("game.abort")));
  }
  if (s.you && s.status === "playing") {
    buttons.push(h("button", {
      // While the opponent's offer waits, answering it is the offer panel's job.
      type: "button", class: "offer-draw", disabled: !model.may("draw_offer") || model.may("draw_accept"),
      onclick: () => page.send("draw_offer"),
    }, t("game.offer_draw")));
  }
  if (s.you && s.status === "playing" && !s.rated) {
    buttons.push(h("button", {
      type: "button", class: "takeback", disabled: !model.may("takeback_ask"),
      onclick: () => page.send("takeback_ask"),
    }, t("game.takeback")));
  }
  if (model.may("resign")) buttons.push(resignButton(el, page));
  // Whoever was offered a rematch answers it in the offer panel, not with a third button.
  if (model.may("rematch_offer") && !model.may("rematch_accept")) {
    buttons.push(h("button", { type: "button", class: "rematch primary", onclick: () => page.send("rematch_offer") }, t("game.rematch")));
  }
  if (isOver(s.status)) {
    buttons.push(h("a", { class: "button-link new-game", href: `/?variant=${s.variant}` }, t("game.new_game")));
  }
  // The invite only while the seat is free; after that the watch link is what to share.
  const invite = page.inviteUrl();
  if (invite && s.you && s.status === "waiting") {
    buttons.push(copyButton("copy-invite", invite, t("game.copy_invite")));
  }
  if (s.status !== "waiting") {
    buttons.push(copyButton("copy-watch", `${location.origin}/g/${encodeURIComponent(page.id)}`, t("game.copy_watch")));
  }
  buttons.push(h("button", { type: "button", class: "pdn", onclick: () => page.downloadPdn() }, t("game.download_pdn")));
  replace(el, buttons);
}

function copyButton(cls, url, label) {
  return h("button", {
    type: "button", class: cls, "data-url": url,
    onclick: async (e) => { await copyText(url); e.target.textContent = t("game.copied"); },
  }, label);
}

function resignButton(el, page) {
  const resign = h("button", { type: "button", class: `resign danger${page.resignArmed ? " armed" : ""}` },
    page.resignArmed ? t("game.confirm_resign") : t("game.resign"));
  resign.addEventListener("click", () => {
    if (page.resignArmed) {
      page.resignArmed = false;
      page.send("resign");
    } else {
      page.resignArmed = true;
      setTimeout(() => { page.resignArmed = false; renderButtons(el, page); }, 4000);
    }
    renderButtons(el, page);
  });
  return resign;
}
