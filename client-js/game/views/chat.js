// The chat: players talk among themselves, spectators among themselves; each sees
// the other channel's lines after the game, labelled once by their channel.
import { h, replace } from "../../dom.js";
import { t } from "../../i18n/index.js";
import { CHAT_MAX_CHARS } from "../../protocol.js";

export class ChatView {
  constructor(el, page) {
    this.el = el;
    this.page = page;
    this.lines = h("div", { class: "lines", "aria-live": "polite" });
    this.input = h("input", { type: "text", maxlength: CHAT_MAX_CHARS, autocomplete: "off", class: "chat-input" });
    this.title = h("h2", {});
    this.button = h("button", { type: "submit" });
    const form = h("form", {}, this.input, this.button);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      if (page.send("chat", { text }) !== null) this.input.value = "";
    });
    replace(el, this.title, this.lines, form);
  }

  render() {
    const s = this.page.model.state;
    const channel = s.you ? "players" : "spectators";
    this.title.textContent = `${t("game.chat")} · ${t(channel === "players" ? "game.chat_players" : "game.chat_spectators")}`;
    this.input.placeholder = t("game.chat_placeholder");
    this.button.textContent = t("game.send");
    this.el.dataset.channel = channel;
    this.renderLines();
  }

  renderLines() {
    const s = this.page.model.state;
    const lines = s?.chat ?? [];
    const mine = s?.you ? "players" : "spectators";
    if (!lines.length) {
      replace(this.lines, h("p", { class: "notice" }, t("game.chat_empty")));
      return;
    }
    replace(this.lines, lines.map((line) => {
      const other = line.channel !== mine;
      // A spectator's line in the other channel is labelled by the channel alone.
      const who = line.name || (line.by === "spectator" ? (other ? null : t("game.chat_spectator")) : t(`colours.${line.by}`));
      return h("p", { class: `line ${line.channel}`, "data-channel": line.channel },
        other ? h("span", { class: "meta" }, `[${t(line.channel === "players" ? "game.chat_players" : "game.chat_spectators")}] `) : null,
        who ? h("span", { class: "who" }, `${who}:`) : null,
        h("span", { class: "text" }, line.text));
    }));
    this.lines.scrollTop = this.lines.scrollHeight;
  }
}
