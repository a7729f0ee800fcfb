// The app shell: picks the page from the URL, draws the header with the
// language switch, and re-renders the page when the language changes.
import { lang, LANGUAGES, onLangChange, setLang, t } from "./i18n/index.js";
import { h, replace } from "./dom.js";

const ROUTES = [
  [/^\/$/, () => import("./home.js"), () => ({})],
  [/^\/g\/([A-Za-z0-9_-]+)\/?$/, () => import("./game.js"), (m) => ({ id: m[1] })],
  [/^\/rules\/?([a-z]*)\/?$/, () => import("./rules.js"), (m) => ({ variant: m[1] || null })],
  [/^\/import\/?$/, () => import("./import/page.js"), () => ({})],
  [/^\/ratings\/?([a-z]*)\/?$/, () => import("./ratings.js"), (m) => ({ variant: m[1] || null })],
  [/^\/my\/?$/, () => import("./players/mine.js"), () => ({})],
  [/^\/players\/([A-Za-z0-9_-]+)\/?$/, () => import("./players/public.js"), (m) => ({ player: m[1] })],
];

const top = document.getElementById("top");
const app = document.getElementById("app");
let page = null;

function renderHeader() {
  const switcher = h("div", { class: "lang-switch", role: "group", "aria-label": t("site.language") },
    Object.keys(LANGUAGES).map((code) => h("button", {
      type: "button",
      class: "lang",
      "data-lang": code,
      "aria-pressed": String(code === lang()),
      onclick: () => setLang(code),
    }, code.toUpperCase())));
  replace(top,
    h("a", { class: "brand", href: "/" }, h("img", { src: "/static/favicon.svg", alt: "" }), t("site.name")),
    h("nav", {}, h("a", { href: "/rules" }, t("site.rules")), " ", h("a", { href: "/ratings" }, t("site.ratings")),
      " ", h("a", { href: "/import" }, t("site.import")),
      " ", h("a", { href: "/my" }, t("site.my_games"))),
    switcher);
}

async function start() {
  renderHeader();
  const path = location.pathname;
  for (const [pattern, load, params] of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    const module = await load();
    page = module.mount(app, params(match));
    break;
  }
  if (!page) replace(app, h("p", { class: "notice" }, "404"));
  onLangChange(() => {
    renderHeader();
    page?.render?.();
  });
}

start();
