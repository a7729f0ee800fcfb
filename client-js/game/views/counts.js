// Pieces each side has taken, from the start position the server listed.
import { h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";

export function renderCounts(el, page) {
  const taken = page.model.taken();
  if (!taken) {
    replace(el);
    return;
  }
  replace(el, ["white", "black"].map((side) => h("span", { class: "captured", "data-side": side, "data-n": taken[side] },
    t("game.captured", { colour: t(`colours.${side}`), n: taken[side] }))));
}
