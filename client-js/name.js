// The display name this browser plays under: kept in the browser, sent when a game is
// created or joined and in every game socket's hello. The server cleans it (one rule
// for every path, server/core/names.py) and may refuse it; this module only trims.
import { h } from "./dom.js";
import { t } from "./i18n/index.js";

const NAME_KEY = "kondavo.name";
export const NAME_MAX_CHARS = 30;

/** The name set in this browser, or null (shown as "Anonymous"). */
export function myName() {
  const name = (localStorage.getItem(NAME_KEY) || "").trim();
  return name || null;
}

export function setMyName(name) {
  const trimmed = (name || "").trim();
  if (trimmed) localStorage.setItem(NAME_KEY, trimmed);
  else localStorage.removeItem(NAME_KEY);
  return myName();
}

/** "Your name: [____] [Save]": calls onSaved(name) after storing it (null: cleared). */
export function nameForm(onSaved) {
  const input = h("input", {
    type: "text", class: "my-name", maxlength: String(NAME_MAX_CHARS * 2), autocomplete: "nickname",
    placeholder: t("name.placeholder"), "aria-label": t("name.label"), value: myName() ?? "",
  });
  const save = h("button", { type: "submit", class: "save-name" }, t("name.save"));
  const form = h("form", { class: "name-form" }, h("label", {}, `${t("name.label")}: `, input), " ", save);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = setMyName(input.value);
    save.textContent = t("name.saved");
    onSaved?.(name);
  });
  return form;
}
