// The line above the side panel: connection, spectators, sound, coordinates, flip.
import { h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";
import * as sound from "../../sound.js";
import { Attention } from "../attention.js";

export function renderStatus(el, page) {
  const s = page.model.state;
  replace(el,
    h("span", { class: `conn ${page.connStatus}`, "data-conn": page.connStatus },
      t(`game.connection.${page.connStatus}`)),
    s ? h("span", { class: "spectators", "data-n": s.spectators }, t("game.spectators", { n: s.spectators })) : null,
    h("button", {
      type: "button", class: "sound", "aria-pressed": String(!sound.muted()),
      onclick: () => { sound.setMuted(!sound.muted()); renderStatus(el, page); },
    }, sound.muted() ? t("game.sound_off") : t("game.sound_on")),
    s?.you && "Notification" in window && Notification.permission !== "denied" ? h("button", {
      type: "button", class: "notify", "aria-pressed": String(Notification.permission === "granted"),
      disabled: Notification.permission === "granted",
      onclick: async () => { await Attention.ask(); renderStatus(el, page); },
    }, Notification.permission === "granted" ? t("game.notify_on") : t("game.notify")) : null,
    h("button", {
      type: "button", class: "coords-toggle", "aria-pressed": String(page.coordinates),
      onclick: () => page.setCoordinates(!page.coordinates),
    }, page.coordinates ? t("game.coords_on") : t("game.coords_off")),
    h("button", { type: "button", class: "flip", title: t("game.flip_hint"), onclick: () => page.flip() },
      t("game.flip")));
}
