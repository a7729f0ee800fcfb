// /rules/{variant}: the rules of one rule set in the current language, with
// links to the other six. All the words come from i18n/en.js and i18n/de.js.
import { h, replace } from "./dom.js";
import { t } from "./i18n/index.js";
import { VARIANTS } from "./variants.js";

export function mount(root, { variant }) {
  const chosen = VARIANTS.includes(variant) ? variant : null;

  function render() {
    const nav = h("ul", { class: "variants" }, VARIANTS.map((id) => h("li", {},
      h("a", { href: `/rules/${id}`, "aria-current": id === chosen ? "page" : undefined },
        t(`variants.${id}.name`)))));
    const common = [
      h("h2", {}, t("rules_page.common")),
      h("ul", { class: "common" }, t("rules.common").map((line) => h("li", {}, line))),
    ];
    if (!chosen) {
      document.title = `${t("site.rules")} · ${t("site.name")}`;
      replace(root, h("article", { class: "rules" }, h("h1", {}, t("site.rules")), nav, ...common));
      return;
    }
    const name = t(`variants.${chosen}.name`);
    const text = t(`rules.${chosen}`);
    document.title = `${t("rules_page.title", { name })} · ${t("site.name")}`;
    replace(root, h("article", { class: "rules", "data-variant": chosen },
      nav,
      h("h1", {}, t("rules_page.title", { name })),
      h("p", { class: "intro" }, text.intro),
      text.sections.map(([heading, lines]) => [
        h("h2", {}, heading),
        h("ul", {}, lines.map((line) => h("li", {}, line))),
      ]),
      ...common,
      h("p", {}, h("a", { href: `/?variant=${chosen}` }, t("rules_page.play", { name }))),
    ));
  }

  render();
  return { render };
}
