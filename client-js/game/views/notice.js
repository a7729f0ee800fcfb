// Under the status line: whose turn it is (loud when it is yours), the invite to
// share while waiting, or the result.
import { copyText, h, replace } from "../../dom.js";
import { has, t } from "../../i18n/index.js";
import { isOver, OTHER } from "../model.js";

export function renderNotice(el, page) {
  const s = page.model.state;
  const parts = [];
  if (isOver(s.status)) {
    parts.push(resultBanner(s));
  } else if (s.status === "waiting") {
    const invite = page.inviteUrl();
    if (s.you && invite) {
      const input = h("input", { type: "text", readonly: true, value: invite, class: "invite-url", "aria-label": t("game.invite_link") });
      const button = h("button", { type: "button", class: "copy-invite primary" }, t("game.copy"));
      button.addEventListener("click", async () => {
        await copyText(invite, input);
        button.textContent = t("game.copied");
      });
      parts.push(h("div", { class: "invite card" }, h("span", {}, t("game.waiting_opponent")),
        h("div", { class: "row" }, input, button)));
    } else if (s.you) {
      parts.push(h("p", { class: "notice" }, t("game.waiting_lobby")));
    } else {
      parts.push(h("p", { class: "notice" }, t("game.spectating")));
    }
  } else if (s.you) {
    const mine = s.side_to_move === s.you;
    parts.push(h("p", { class: `notice turn${mine ? " mine" : ""}`, "data-turn": mine ? "you" : "opponent" },
      mine ? t("game.your_turn") : t("game.to_move", { colour: t(`colours.${s.side_to_move}`) }),
      " ", h("span", { class: "meta" }, t("game.you_play", { colour: t(`colours.${s.you}`) }))));
  } else {
    parts.push(h("p", { class: "notice turn" }, t("game.spectating"), " ",
      t("game.to_move", { colour: t(`colours.${s.side_to_move}`) })));
  }
  const claimIn = page.model.claimIn(Date.now());
  if (claimIn !== null) {
    const seconds = Math.ceil(claimIn / 1000);
    parts.push(h("p", { class: "claim-countdown", "data-seconds": seconds }, t("game.claim_in", { n: seconds })));
  }
  const countdown = abortCountdown(page);
  if (countdown) parts.push(countdown);
  if (page.hint) parts.push(h("p", { class: "notice hint", role: "status" }, page.hint));
  if (s.rated) parts.push(h("p", { class: "notice rated" }, t("game.rated")));
  replace(el, parts);
}

/** "Black must make a first move within 23 s, or the game is aborted." (or null). */
function abortCountdown(page) {
  const left = page.model.abortLeft(Date.now());
  if (left === null) return null;
  const el = h("p", { class: "notice first-move", "data-first-move": page.model.state.side_to_move });
  updateCountdown(el, page);
  return el;
}

/** Only the countdown's text: called ten times a second while it runs. */
export function updateCountdown(el, page) {
  const s = page.model.state;
  const left = page.model.abortLeft(Date.now());
  if (left === null) return;
  const seconds = Math.max(0, Math.ceil(left / 1000));
  el.textContent = s.you === s.side_to_move
    ? t("game.first_move_you", { s: seconds })
    : t("game.first_move", { colour: t(`colours.${s.side_to_move}`), s: seconds });
}

export function resultBanner(s) {
  let title;
  if (s.status === "aborted" || s.result === null) title = t("result.aborted");
  else if (s.result === "draw") title = t("result.draw");
  else title = t(`result.${s.result}_wins`);
  let sub = "";
  if (s.you && (s.result === "white" || s.result === "black")) {
    sub = s.result === s.you ? t("result.you_win") : t("result.you_lose");
  }
  const loser = s.result === "white" || s.result === "black" ? t(`colours.${OTHER[s.result]}`) : "";
  let reasonKey = `reasons.${s.reason}`;
  if (s.reason === "abandoned" && s.result === "draw") reasonKey = "reasons.abandoned_draw";
  const reason = s.reason
    ? (has(reasonKey) ? t(reasonKey, { loser }) : t("reasons.unknown", { code: s.reason }))
    : "";
  return h("div", { class: "banner result", "data-result": s.result ?? "aborted", "data-reason": s.reason ?? "" },
    h("div", { class: "title" }, title),
    sub ? h("div", { class: "sub" }, sub) : null,
    h("div", { class: "reason" }, reason));
}
