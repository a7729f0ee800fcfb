// "Your turn" outside the page: the tab title and the favicon get a mark, and a
// browser notification appears when the tab is hidden (only if the player allowed it).
import { t } from "../i18n/index.js";
import * as sound from "../sound.js";
import { turnTitle } from "./model.js";

const ICON = "/static/favicon.svg";


export class Attention {
  constructor() {
    this.myTurn = null;
    this.dotIcon = null;
  }

  set(myTurn, base) {
    document.title = turnTitle(myTurn, base, t("game.your_turn_short"));
    if (myTurn === this.myTurn) return;
    const started = this.myTurn === false && myTurn;
    this.myTurn = myTurn;
    this.setIcon(myTurn);
    // In view, the opponent's move sound says it; in a hidden tab, a sound of its own.
    if (started && document.hidden) sound.play("turn");
    if (started && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        new Notification(t("game.your_turn_short"), { body: base, icon: ICON, tag: "kondavo-turn" });
      } catch {
        // Some browsers only notify from a service worker: the title and icon still say it.
      }
    }
  }

  setIcon(dot) {
    const link = document.querySelector('link[rel="icon"]');
    if (!link) return;
    link.href = dot ? this.iconWithDot() : ICON;
  }

  /** The site icon with a red dot in its corner, as a data URL (made once). */
  iconWithDot() {
    if (this.dotIcon) return this.dotIcon;
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">'
      + '<rect width="64" height="64" rx="10" fill="#b58863"/><circle cx="32" cy="33" r="22" fill="#222"/>'
      + '<circle cx="32" cy="31" r="22" fill="#f4efe4"/>'
      + '<circle cx="48" cy="16" r="14" fill="#d03a2f" stroke="#fff" stroke-width="3"/></svg>';
    this.dotIcon = `data:image/svg+xml,${encodeURIComponent(svg)}`;
    return this.dotIcon;
  }

  /** Ask for notifications (must follow a click). */
  static async ask() {
    if (!("Notification" in window)) return "unsupported";
    return Notification.requestPermission();
  }
}
