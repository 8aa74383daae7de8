// The page of `splendor serve`: draws a game from the JSON API and turns clicks into moves.
// Plain JavaScript, no build step. The server holds the true game; this page only ever gets the
// view of a human seat (docs/WEB.md).
"use strict";

const LETTERS = "wbgrky";
const NAMES = ["white", "blue", "green", "red", "black", "gold"];

const S = {
  catalog: null,       // cards, nobles, AI presets
  game: null,          // the latest game JSON
  sel: null,           // the move being built by clicks
  hint: null,          // the last hint (for this version of the game)
  analysis: null,      // the last analysis JSON
  replay: null,        // {step, data} while replaying
  fresh: new Set(),    // market cards that appeared with the last change
  freshVersion: -1,
  prevMarket: null,
  pollTimer: null,
  analysisTimer: null,
  busy: false,
  watch: null,         // the spectator id when this page only watches a game
  checkTimer: null,
};

// -- small helpers ------------------------------------------------------------------------------

function $(sel, root = document) { return root.querySelector(sel); }

function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// DOM append() writes null as the text "null": children that may be absent go through these
function kids(c) { return c.flat().filter(x => x !== null && x !== undefined && x !== false); }
function add(el, ...c) { el.append(...kids(c)); return el; }
function fill(el, ...c) { el.replaceChildren(...kids(c)); return el; }

function pct(x) { return x === null || x === undefined ? "n/a" : `${Math.round(100 * x)}%`; }
function playerName(seat) { return `Player ${seat + 1}`; }

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    let msg = data && data.error ? data.error : `${r.status} ${r.statusText}`;
    if (r.status === 503 && r.headers.get("Retry-After")) msg += ` (try again in ${r.headers.get("Retry-After")} s)`;
    const err = new ApiError(msg, r.status);
    err.field = data && data.field;
    throw err;
  }
  return data;
}

let toastTimer = null;
function toast(message, kind = "error") {
  const t = $("#toast");
  t.textContent = message;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, kind === "error" ? 7000 : 3500);
}

function splitMove(move) {
  const parts = move.split("/");
  let returns = "";
  let noble = null;
  for (const p of parts.slice(1)) {
    if (p[0] === "-") returns = p.slice(1);
    else if (p[0] === "n") noble = Number(p.slice(1));
  }
  return { move, action: parts[0], returns, noble };
}

function sortLetters(s) {
  return [...s].sort((a, b) => LETTERS.indexOf(a) - LETTERS.indexOf(b)).join("");
}

// -- drawing pieces -------------------------------------------------------------------------------

function token(colour, count, attrs = {}) {
  const letter = LETTERS[colour];
  return h("span", {
    class: `token t-${letter}${count === 0 ? " zero" : ""} ${attrs.class || ""}`,
    title: `${NAMES[colour]}: ${count}`,
    dataset: { colour: letter, count: String(count), ...(attrs.dataset || {}) },
    ...Object.fromEntries(Object.entries(attrs).filter(([k]) => !["class", "dataset"].includes(k))),
  }, String(count));
}

const ABILITY_LABELS = {
  gold2: "gold card: pays as 2 gold", joker: "joker: joins a colour you have", double_bonus: "double bonus",
  reserve_noble: "reserve a noble", take_l1: "take a level-1 card free", take_l2: "take a level-2 card free",
  sacrifice: "sacrifice",
};
const ABILITY_SHORT = { reserve_noble: "noble", take_l1: "+L1", take_l2: "+L2", double_bonus: "x2" };

// what a card gives, in words: "red bonus", "double red bonus", "gold card", "joker"
function cardKind(c) {
  if (c.abilities.includes("gold2")) return "gold card (pays as 2 gold)";
  if (c.abilities.includes("joker")) return "joker";
  return `${c.bonusCount === 2 ? "double " : ""}${NAMES[c.bonus]} bonus`;
}

function cardEl(id, attrs = {}) {
  const c = S.catalog.cards[id];
  const letter = c.bonusLetter || (c.abilities.includes("gold2") ? "y" : "j");
  const cost = c.sacrifice !== null
    ? [h("span", { class: "sacrifice", title: `price: discard 2 of your ${NAMES[c.sacrifice]} cards` }, "discard 2 ",
        h("span", { class: `cost t-${LETTERS[c.sacrifice]}` }, "2"))]
    : c.cost.map((n, i) => n ? h("span", { class: `cost t-${LETTERS[i]}`, title: `${n} ${NAMES[i]}` }, n) : null);
  const abilities = c.abilities.filter(a => ABILITY_SHORT[a]);
  const price = c.sacrifice !== null ? `discard 2 ${NAMES[c.sacrifice]} cards`
    : `costs ${c.cost.map((n, i) => n ? `${n} ${NAMES[i]}` : null).filter(Boolean).join(", ")}`;
  const joker = attrs.joker !== undefined && attrs.joker !== null ? attrs.joker : null;
  return h("div", {
    class: `card bonus-${letter}${c.orient ? " orient" : ""} ${attrs.class || ""}`,
    title: `Card #${id}: level ${c.level}${c.orient ? " Orient" : ""}, ${cardKind(c)}, ${c.points} point${c.points === 1 ? "" : "s"}; ` +
      price + (c.abilities.length ? `; ${c.abilities.map(a => ABILITY_LABELS[a]).join(", ")}` : "") +
      (joker !== null ? `; the joker joined your ${NAMES[joker]} cards` : ""),
    dataset: { card: String(id), level: String(c.level), ...(c.orient ? { orient: "1" } : {}), ...(attrs.dataset || {}) },
    "data-testid": attrs.testid,
    onclick: attrs.onclick,
  },
    h("div", { class: "card-head" },
      h("span", { class: "pts" }, c.points ? String(c.points) : ""),
      c.bonusCount === 2 && c.bonus !== null ? h("span", { class: `gem t-${letter} double`, title: `double ${NAMES[c.bonus]} bonus` }) : null,
      h("span", { class: `gem t-${joker !== null ? LETTERS[joker] : letter}`, title: cardKind(c) },
        c.abilities.includes("joker") ? h("span", {}, "J") : c.abilities.includes("gold2") ? h("span", {}, "2") : null)),
    h("div", { class: "card-cost" }, cost),
    h("div", { class: "card-foot" },
      h("span", { class: "card-id" }, `#${id}`),
      abilities.length ? h("span", { class: "abilities" }, abilities.map(a => h("span", { class: "ability", title: ABILITY_LABELS[a] }, ABILITY_SHORT[a]))) : null,
      attrs.extra || null));
}

function cityEl(id, attrs = {}) {
  const c = S.catalog.cities[id];
  const req = c.requirement.map((k, i) => k ? `${k} ${NAMES[i]}` : null).filter(Boolean);
  if (c.sameColour) req.push(`${c.sameColour} of one ${req.length ? "other " : ""}colour`);
  return h("div", {
    class: `city ${attrs.class || ""}`, dataset: { city: String(id) }, "data-testid": attrs.testid || "city",
    title: `City ${id}: ${c.prestige} prestige and ${req.join(", ")} bonuses`, onclick: attrs.onclick,
  },
    h("span", { class: "pts" }, String(c.prestige)),
    h("div", { class: "req" }, c.requirement.map((k, i) => k ? h("span", { class: `req-chip t-${LETTERS[i]}` }, k) : null),
      c.sameColour ? h("span", { class: "req-chip same", title: "of one colour" }, `${c.sameColour}=`) : null),
    h("span", { class: "noble-id" }, `c${id}`));
}

function cardBack(level, attrs = {}) {
  return h("div", {
    class: `card back lv${level} ${attrs.class || ""}`, title: attrs.title || `A level-${level} card`,
    dataset: attrs.dataset || {}, "data-testid": attrs.testid, onclick: attrs.onclick,
  }, h("div", { class: "back-inner" }, h("span", { class: "back-level" }, "I".repeat(level)), attrs.label || ""));
}

function nobleEl(id, attrs = {}) {
  const n = S.catalog.nobles[id];
  return h("div", {
    class: `noble ${attrs.class || ""}`, dataset: { noble: String(id) }, "data-testid": attrs.testid,
    title: `Noble ${id}: ${n.points} points for ${n.requirement.map((k, i) => k ? `${k} ${NAMES[i]}` : null).filter(Boolean).join(", ")} bonuses`,
    onclick: attrs.onclick,
  },
    h("span", { class: "pts" }, String(n.points)),
    h("div", { class: "req" }, n.requirement.map((k, i) => k ? h("span", { class: `req-chip t-${LETTERS[i]}` }, k) : null)),
    h("span", { class: "noble-id" }, `n${id}`),
    attrs.progress || null);
}

// how far the viewer's bonuses are from a noble: "4/7", with what is missing in the title
function nobleProgress(id, bonuses) {
  const req = S.catalog.nobles[id].requirement;
  const need = req.reduce((a, b) => a + b, 0);
  const have = req.reduce((a, k, i) => a + Math.min(k, bonuses[i]), 0);
  const missing = req.map((k, i) => k > bonuses[i] ? `${k - bonuses[i]} ${NAMES[i]}` : null).filter(Boolean);
  return h("span", {
    class: `noble-progress${have === need ? " done" : ""}`, "data-testid": "noble-progress",
    dataset: { have: String(have), need: String(need) },
    title: have === need ? "You meet this noble's requirement" : `You need ${missing.join(", ")} more bonus${have + 1 === need ? "" : "es"}`,
  }, have === need ? "ready" : `${have}/${need}`);
}

// -- the board -----------------------------------------------------------------------------------

function board() { return S.replay ? S.replay.data : S.game; }
function interactive() {
  const g = S.game;
  return !S.replay && g && g.yourTurn && !S.busy;
}
function legalActions() {
  if (!interactive()) return new Set();
  return new Set(S.game.legalMoves.map(m => splitMove(m.move).action));
}
function seatLabel(b, seat) {
  const setup = b.seatsSetup[seat];
  const humans = b.seatsSetup.filter(s => s.kind === "human").length;
  if (setup.kind === "human") return humans === 1 ? "you" : "human";
  return `AI · ${setup.spec}`;
}

function render() {
  const b = board();
  document.body.classList.toggle("replaying", !!S.replay);
  document.body.classList.toggle("no-game", !b);
  if (!b) {
    $("#status").textContent = "No game yet: press New game, or upload a record.";
    updateButtons();
    return;
  }
  document.body.classList.toggle("mod-orient", b.module === "orient");   // six cards a level: a wider board
  trackFresh();
  renderStatus(b);
  renderBanner();
  renderNobles(b);
  renderModule(b);
  renderMarket(b);
  renderBank(b);
  renderSeats(b);
  renderActionBar();
  renderLegal();
  renderThinking();
  renderHint();
  renderAnalysis();
  renderLog();
  renderReplayBar();
  renderSummary();
  renderGraph();
  renderReview();
  updateButtons();
}

function trackFresh() {
  const g = S.game;
  if (!g || S.replay) return;
  if (g.version !== S.freshVersion) {
    const now = new Set(g.market.flat().filter(c => c !== null));
    S.fresh = S.prevMarket ? new Set([...now].filter(c => !S.prevMarket.has(c))) : new Set();
    S.prevMarket = now;
    S.freshVersion = g.version;
  }
}

function renderStatus(b) {
  const st = $("#status");
  st.replaceChildren();
  st.dataset.turn = b.turn;
  st.dataset.toMove = b.toMove;
  st.dataset.over = b.over ? "1" : "0";
  st.dataset.yourTurn = (!S.replay && S.game.yourTurn) ? "1" : "0";
  st.dataset.version = S.game ? S.game.version : "";
  st.dataset.turns = b.turn;
  // a round is one turn of every player, counted from 1 as players count them
  const round = Math.floor(b.turn / b.players) + 1;
  const turn = h("span", { class: "turn", "data-testid": "round", dataset: { round: String(round) },
    title: `${b.turn} turn${b.turn === 1 ? "" : "s"} played; a round is one turn of each player` }, `Round ${round}`);
  let text;
  if (b.over) {
    const r = b.result;
    const pts = r.points.map((p, i) => `${playerName(i)}: ${p}`).join(" · ") + " points";
    text = r.winners.length
      ? h("span", { class: "over" }, `Game over: ${r.winners.map(playerName).join(" and ")} ${r.winners.length > 1 ? "win" : "wins"} (${pts})`)
      : h("span", { class: "over" }, `Game over without a winner (${r.reason === "cap" ? "turn cap" : "everyone passed"}): ${pts}`);
  } else if (S.replay || S.watch) {
    text = h("span", {}, `${playerName(b.toMove)} to move`);
  } else if (S.game.yourTurn) {
    text = h("span", { class: "your-turn" }, `Your turn, ${playerName(b.toMove)}`);
  } else {
    text = h("span", {}, `${playerName(b.toMove)} (${seatLabel(b, b.toMove)}) is thinking…`);
  }
  add(st, turn, text);
  if (b.finalRound && !b.over) add(st, h("span", { class: "final" }, "final round"));
  if (S.replay) add(st, h("span", { class: "final" }, "replay"));
  if (S.game && S.game.aiError && !S.replay) add(st, h("span", { class: "error" }, S.game.aiError));
  if (S.watch) add(st, h("span", { class: "watching", "data-testid": "watching" }, "watching: public information only"));
  else add(st, h("span", { class: "game-id", title: "game id" }, `game ${S.game.gameId}`));
  if (S.game && S.game.open) add(st, h("span", { class: "final", title: "an open game shows every card, the seed and the record" }, "open game"));
}

// the AI moves made since the viewer's own last move: shown in a banner and highlighted
function recentAiMoves() {
  const g = S.game;
  if (!g || S.replay) return [];
  const out = [];
  for (let i = g.log.length - 1; i >= 0; i--) {
    const e = g.log[i];
    if (e.by !== "ai") break;
    out.unshift(e);
  }
  return out;
}

function renderBanner() {
  const el = $("#banner");
  const moves = recentAiMoves();
  if (!moves.length) { el.hidden = true; el.replaceChildren(); return; }
  el.hidden = false;
  el.replaceChildren(...moves.map(e => h("div", { class: "banner-line", "data-testid": "ai-move", dataset: { move: e.move } },
    h("span", { class: `seat-dot s${e.seat}` }),
    h("b", {}, `${e.player} (AI) played `), h("code", {}, e.move), h("span", {}, "— " + e.description.replace(/^Player \d+ /, "")),
    e.figures ? h("small", {}, ` [${e.figures}]`) : null)));
}

function highlightFor(b) {
  // which pieces to highlight: the hinted move's, and the last AI move's
  const hl = { bank: new Set(), cards: new Set(), decks: new Set(), seatTokens: {}, seats: new Set(),
    better: { bank: new Set(), cards: new Set(), decks: new Set() } };
  // while replaying a reviewed game: the move the review found better than the one played here
  const rt = reviewTurn();
  if (rt && rt.best !== rt.played) {
    const m = splitMove(rt.best);
    if (m.action[0] === "+") for (const ch of m.action.slice(1)) hl.better.bank.add(ch);
    else if (m.action.startsWith("rL") || m.action.startsWith("rO")) hl.better.decks.add(m.action);
    else if (m.action[0] === "b" || m.action[0] === "r") hl.better.cards.add(Number(m.action.slice(1)));
  }
  if (S.hint && !S.replay && S.hint.version === S.game.version) {
    const m = splitMove(S.hint.move);
    if (m.action[0] === "+") for (const ch of m.action.slice(1)) hl.bank.add(ch);
    else if (m.action.startsWith("rL") || m.action.startsWith("rO")) hl.decks.add(m.action);
    else if (m.action[0] === "b" || m.action[0] === "r") hl.cards.add(Number(m.action.slice(1)));
  }
  for (const e of recentAiMoves()) {
    hl.seats.add(e.seat);
    const m = splitMove(e.move);
    if (m.action[0] === "+") {
      hl.seatTokens[e.seat] = hl.seatTokens[e.seat] || new Set();
      for (const ch of m.action.slice(1)) hl.seatTokens[e.seat].add(ch);
    } else if (m.action[0] === "b" || (m.action[0] === "r" && m.action[1] !== "L" && m.action[1] !== "O")) {
      hl.cards.add(Number(m.action.slice(1)));
    }
  }
  return hl;
}

function renderModule(b) {
  const area = $("#module-area");
  const el = $("#module");
  $("#nobles-area").hidden = b.module === "cities";
  if (!b.module || b.module === "strongholds") { area.hidden = true; el.replaceChildren(); return; }
  area.hidden = false;
  const choose = S.sel && S.sel.phase === "decide" ? S.sel.options : [];
  if (b.module === "cities") {
    $("#module-title").textContent = "Cities";
    const claimed = b.seats.flatMap(s => s.cities.map(c => [c, s.seat]));
    el.replaceChildren(h("div", { class: "nobles" }, b.cities.map(c => cityEl(c, {
        class: choose.includes(`c${c}`) ? "choosable" : "", onclick: () => clickToken(`c${c}`) })),
      b.cities.length ? null : h("span", { class: "muted" }, "No city face up.")),
      claimed.length ? h("div", { class: "claimed" }, "Claimed: ", claimed.map(([c, s]) =>
        h("span", { class: "claim", "data-testid": "claimed-city", dataset: { city: String(c), seat: String(s) } },
          h("span", { class: `seat-dot s${s}` }), `c${c} by ${playerName(s)}`))) : null);
  } else if (b.module === "posts") {
    $("#module-title").textContent = "Trading posts";
    el.replaceChildren(h("div", { class: "posts" }, S.catalog.posts.map(p => {
      const holders = b.seats.filter(s => s.posts.includes(p.id)).map(s => s.seat);
      return h("div", { class: "post", "data-testid": "post", dataset: { post: String(p.id), holders: holders.join(",") }, title: p.effect },
        h("div", { class: "post-label" }, h("b", {}, `p${p.id} `), p.label),
        h("div", { class: "req" }, "needs ", p.requirement.map((k, i) => k ? h("span", { class: `req-chip t-${LETTERS[i]}` }, k) : null),
          p.nobles ? h("span", { class: "muted" }, ` + ${p.nobles} noble`) : null),
        h("div", { class: "holders" }, holders.length ? holders.map(s => h("span", { class: `seat-dot s${s}`, title: playerName(s) })) : h("span", { class: "muted" }, "free")));
    })));
  } else if (b.module === "orient") {
    $("#module-title").textContent = "The Orient: out of the game";
    el.replaceChildren(h("div", { class: "discard", "data-testid": "discard" },
      b.discard.length ? b.discard.map(c => cardEl(c, { class: "mini" })) : h("span", { class: "muted" }, "No card discarded yet.")));
  }
}

function renderNobles(b) {
  const el = $("#nobles");
  const opts = S.sel && S.sel.phase === "decide" ? S.sel.options : [];
  const choosable = new Set(opts.filter(t => t && (t[0] === "n" || t[0] === "h")).map(t => Number(t.slice(1))));
  const me = b.viewer !== null && b.viewer !== undefined ? b.seats[b.viewer] : null;
  el.replaceChildren(...b.nobles.map(n => nobleEl(n, {
    testid: "noble",
    class: choosable.has(n) ? "choosable" : "",
    onclick: () => clickNoble(n),
    progress: me ? nobleProgress(n, me.bonuses) : null,
  })));
  if (!b.nobles.length) el.append(h("span", { class: "muted" }, "No nobles left."));
}

// Whether the viewer can pay for a card now, or after one take of gems from the bank (up to three of
// different colours, or two of one colour from a pile of at least four): "now", "next" or null.
// Bonuses, tokens and gold as the base rules count them; on the viewer's turn "now" comes from
// the legal moves instead.
function affordability(b, id) {
  if (b.viewer === null || b.viewer === undefined) return null;
  const c = S.catalog.cards[id];
  if (c.sacrifice !== null) return null;
  const me = b.seats[b.viewer];
  const short = [0, 1, 2, 3, 4].map(i => Math.max(0, c.cost[i] - me.bonuses[i] - me.tokens[i]));
  const gold = me.tokens[5];
  const fits = take => short.reduce((a, n, i) => a + Math.max(0, n - take[i]), 0) <= gold;
  if (fits([0, 0, 0, 0, 0])) return "now";
  const takes = [];
  for (let m = 1; m < 32; m++) {
    const t = [0, 1, 2, 3, 4].map(i => (m >> i) & 1);
    if (t.reduce((a, x) => a + x, 0) <= 3 && t.every((x, i) => !x || b.bank[i] > 0)) takes.push(t);
  }
  for (let i = 0; i < 5; i++) if (b.bank[i] >= 4) takes.push([0, 1, 2, 3, 4].map(j => (j === i ? 2 : 0)));
  return takes.some(fits) ? "next" : null;
}

function renderMarket(b) {
  const el = $("#market");
  const actions = legalActions();
  const hl = highlightFor(b);
  el.replaceChildren();
  for (const level of [3, 2, 1]) {
    const row = h("div", { class: `market-row lv${level}` });
    const deck = (orient) => {
      const deckCount = b.decks[level - 1 + (orient ? 3 : 0)];
      const act = `r${orient ? "O" : "L"}${level}`;
      const deckCls = ["deck"];
      if (orient) deckCls.push("orient-deck");
      if (actions.has(act)) deckCls.push("actionable");
      if (hl.decks.has(act)) deckCls.push("hinted");
      if (hl.better.decks.has(act)) deckCls.push("better");
      if (S.sel && S.sel.deck === level && !!S.sel.orient === orient) deckCls.push("selected");
      const data = { level: String(level), count: String(deckCount), ...(orient ? { orient: "1" } : {}) };
      return deckCount > 0
        ? cardBack(level, {
          class: deckCls.join(" "), testid: orient ? "orient-deck" : "deck", dataset: data,
          label: h("span", { class: "deck-count" }, `${orient ? "Orient · " : ""}${deckCount} left`),
          title: `${orient ? "Orient level" : "Level"}-${level} deck: ${deckCount} cards. Click to reserve its top card blind.`,
          onclick: () => clickDeck(level, orient),
        })
        : h("div", { class: "card empty deck", "data-testid": orient ? "orient-deck" : "deck", dataset: data }, "empty");
    };
    row.append(deck(false));
    const sh = {};
    for (const e of (b.strongholds || [])) sh[e.card] = e;
    const choose = S.sel && S.sel.phase === "decide" ? S.sel.options : [];
    b.market[level - 1].forEach((id, slot) => {
      if (slot === 4) row.append(deck(true));
      if (id === null) {
        row.append(h("div", { class: "card empty", "data-testid": "market-slot-empty" }, "—"));
        return;
      }
      const cls = [];
      const when = affordability(b, id);
      if (actions.has(`b${id}`) || (!interactive() && when === "now")) cls.push("buyable");
      else if (when === "next") cls.push("soon");
      if (actions.has(`b${id}`) || actions.has(`r${id}`)) cls.push("actionable");
      if (S.sel && S.sel.card && S.sel.card.id === id) cls.push("selected");
      if (hl.cards.has(id)) cls.push("hinted");
      if (hl.better.cards.has(id)) cls.push("better");
      if (S.fresh.has(id)) cls.push("fresh");
      if (choose.some(t => t && /^[ftxdbm:]/.test(t) && Number(t.slice(1)) === id)) cls.push("choosable");
      const e = sh[id];
      row.append(cardEl(id, {
        class: cls.join(" "), testid: "market-card", dataset: { slot: String(slot) },
        onclick: () => clickCard(id, "market"),
        extra: e ? h("span", { class: `sh-badge s${e.seat}`, "data-testid": "stronghold",
          dataset: { seat: String(e.seat), count: String(e.count) },
          title: `${playerName(e.seat)}'s stronghold${e.count > 1 ? "s" : ""} (${e.count}): only they can buy or reserve this card` },
          `\u265C${e.count > 1 ? "\u00D7" + e.count : ""}`) : null,
      }));
    });
    el.append(row);
  }
}

function renderBank(b) {
  const el = $("#bank");
  const hl = highlightFor(b);
  const chosen = S.sel && S.sel.gems ? S.sel.gems : [];
  el.replaceChildren(...b.bank.map((n, c) => {
    const picked = chosen.filter(x => x === c).length;
    const cls = ["bank-token"];
    if (c < 5 && interactive()) cls.push("actionable");
    if (picked) cls.push("picked");
    if (hl.bank.has(LETTERS[c])) cls.push("hinted");
    if (hl.better.bank.has(LETTERS[c])) cls.push("better");
    const t = token(c, n, { class: cls.join(" "), "data-testid": "bank-token" });
    if (c < 5) t.addEventListener("click", () => clickBankGem(c));
    const wrap = h("div", { class: "bank-slot" }, t, h("span", { class: "token-name" }, NAMES[c]),
      picked ? h("span", { class: "picked-badge" }, `+${picked}`) : null);
    return wrap;
  }));
}

function renderSeats(b) {
  const el = $("#seats");
  const hl = highlightFor(b);
  el.replaceChildren(...b.seats.map(s => {
    const isViewer = s.seat === b.viewer;
    const toMove = s.seat === b.toMove && !b.over;
    const cls = ["seat", `s${s.seat}`];
    if (toMove) cls.push("to-move");
    if (isViewer) cls.push("viewer");
    if (hl.seats.has(s.seat)) cls.push("just-moved");
    const winner = b.over && b.result && b.result.winners.includes(s.seat);
    if (winner) cls.push("winner");
    const tokHl = hl.seatTokens[s.seat] || new Set();
    const reserved = s.reserved.map((r, i) => {
      if (r.card === null) {
        return cardBack(r.level, { class: "mini", testid: "reserved-card", dataset: { hidden: "1", level: String(r.level) },
          title: `A level-${r.level} card reserved blind (hidden from you)`, label: h("span", { class: "deck-count" }, "hidden") });
      }
      const actionable = isViewer && legalActions().has(`b${r.card}`);
      const c = [ "mini" ];
      const when = isViewer ? affordability(b, r.card) : null;
      if (actionable) c.push("buyable", "actionable");
      else if (!interactive() && when === "now") c.push("buyable");
      else if (when === "next") c.push("soon");
      if (isViewer && interactive()) c.push("own");
      if (hl.cards.has(r.card)) c.push("hinted");
      if (hl.better.cards.has(r.card)) c.push("better");
      if (S.sel && S.sel.card && S.sel.card.id === r.card) c.push("selected");
      return cardEl(r.card, { class: c.join(" "), testid: "reserved-card", dataset: { blind: r.blind ? "1" : "0" },
        onclick: isViewer ? () => clickCard(r.card, "hand") : null });
    });
    return h("div", { class: cls.join(" "), "data-testid": "seat", dataset: { seat: String(s.seat), points: String(s.points) } },
      h("div", { class: "seat-head" },
        h("span", { class: `seat-dot s${s.seat}` }),
        h("span", { class: "seat-name" }, playerName(s.seat)),
        h("span", { class: "seat-role" }, seatLabel(b, s.seat)),
        toMove ? h("span", { class: "turn-badge" }, "to move") : null,
        winner ? h("span", { class: "turn-badge win" }, "winner") : null,
        h("span", { class: "points", "data-testid": "points", title: "prestige points" }, String(s.points))),
      h("div", { class: "seat-row" },
        h("span", { class: "label" }, "Tokens"),
        h("span", { class: "chips" }, s.tokens.map((n, c) => token(c, n, {
          class: tokHl.has(LETTERS[c]) ? "small hl" : "small", "data-testid": "seat-token" }))),
        h("span", { class: `count${s.tokenCount >= 10 ? " full" : ""}`, title: "tokens held (at most 10)" }, `${s.tokenCount}/10`)),
      h("div", { class: "seat-row" },
        h("span", { class: "label" }, "Bonuses"),
        h("span", { class: "chips" }, s.bonuses.map((n, c) => h("span", {
          class: `bonus t-${LETTERS[c]}${n === 0 ? " zero" : ""}`, "data-testid": "seat-bonus",
          dataset: { colour: LETTERS[c], count: String(n) }, title: `${n} ${NAMES[c]} card${n === 1 ? "" : "s"}`,
        }, String(n)))),
        h("span", { class: "count", title: "cards bought" }, `${s.cards.length} card${s.cards.length === 1 ? "" : "s"}`)),
      h("div", { class: "seat-row", "data-testid": "power-row" },
        h("span", { class: "label", title: "what this player can pay per colour: bonuses + tokens, and gold for any colour" }, "Power"),
        h("span", { class: "chips" }, [0, 1, 2, 3, 4].map(c => h("span", {
          class: `power t-${LETTERS[c]}`, "data-testid": "power", dataset: { colour: LETTERS[c], count: String(s.bonuses[c] + s.tokens[c]) },
          title: `${NAMES[c]}: ${s.bonuses[c]} bonus + ${s.tokens[c]} token${s.tokens[c] === 1 ? "" : "s"}`,
        }, String(s.bonuses[c] + s.tokens[c]))),
          h("span", { class: "power-gold", "data-testid": "power-gold", title: "gold tokens pay for any colour" }, `+${s.tokens[5]} gold`))),
      h("div", { class: "seat-row reserved-row" },
        h("span", { class: "label" }, "Reserved"),
        reserved.length ? h("span", { class: "reserved" }, reserved) : h("span", { class: "muted" }, "none")),
      s.nobles.length ? h("div", { class: "seat-row" },
        h("span", { class: "label" }, "Nobles"),
        h("span", { class: "seat-nobles" }, s.nobles.map(n => nobleEl(n, { class: "mini" })))) : null,
      ...seatModuleRows(b, s));
  }));
}

function seatModuleRows(b, s) {
  const rows = [];
  const row = (label, testid, ...content) => h("div", { class: "seat-row", "data-testid": testid }, h("span", { class: "label" }, label), ...content);
  if (b.module === "cities") {
    rows.push(row("Cities", "seat-cities", s.cities.length
      ? h("span", { class: "seat-cities" }, s.cities.map(c => cityEl(c, { class: "mini", testid: "seat-city" })))
      : h("span", { class: "muted" }, "none")));
  } else if (b.module === "posts") {
    rows.push(row("Posts", "seat-posts", s.posts.length
      ? h("span", { class: "chips" }, s.posts.map(p => h("span", { class: "post-chip", dataset: { post: String(p) }, title: S.catalog.posts[p].effect }, `p${p} ${S.catalog.posts[p].label}`)))
      : h("span", { class: "muted" }, "none")));
  } else if (b.module === "strongholds") {
    rows.push(row("Strongholds", "seat-strongholds", h("span", { class: `sh-hand s${s.seat}`, dataset: { count: String(s.strongholds) } },
      s.strongholds ? "\u265C".repeat(s.strongholds) + ` ${s.strongholds} in hand` : "none in hand")));
  } else if (b.module === "orient") {
    const jokers = {};
    for (const j of s.jokers) jokers[j.card] = j.colour;
    const special = s.cards.filter(c => S.catalog.cards[c].orient);
    if (special.length) rows.push(row("Orient", "seat-orient", h("span", { class: "reserved" },
      special.map(c => cardEl(c, { class: "mini", joker: jokers[c] !== undefined ? jokers[c] : null, dataset: jokers[c] !== undefined ? { joker: LETTERS[jokers[c]] } : {} })))));
    if (s.heldNobles.length) rows.push(row("Held", "seat-held-nobles",
      h("span", { class: "seat-held", "data-testid": "held-nobles" }, s.heldNobles.map(n => nobleEl(n, { class: "mini" })))));
  }
  return rows;
}

// -- building a move by clicking -----------------------------------------------------------------

function clearSel() { S.sel = null; }

function clickBankGem(c) {
  if (!interactive()) return;
  let sel = S.sel && S.sel.phase === "main" && S.sel.gems ? S.sel : { phase: "main", gems: [] };
  let g = sel.gems;
  const count = g.filter(x => x === c).length;
  if (count === 0 && S.game.bank[c] === 0) {
    toast(`The bank has no ${NAMES[c]} gems left.`, "info");
    return;
  }
  if (count === 0) {
    if (g.length >= 3 || (g.length === 2 && g[0] === g[1])) {
      toast("Take up to 3 different gems, or 2 of one colour.", "info");
      return;
    }
    g = [...g, c];
  } else if (count === 1 && g.length === 1) {
    g = [c, c];
  } else {
    g = g.filter(x => x !== c);
  }
  S.sel = g.length ? { phase: "main", gems: g } : null;
  render();
}

// whether a legal take holds the gems picked so far (then the player should pick more)
function canGrow(action, actions) {
  const picked = action.slice(1);
  return [...actions].some(a => a[0] === "+" && a.length > action.length && containsMultiset(a.slice(1), picked));
}

function takeAction(gems) {
  return "+" + [...gems].sort((a, b) => a - b).map(c => LETTERS[c]).join("");
}

function clickCard(id, where) {
  if (!interactive()) return;
  if (S.sel && S.sel.phase === "decide") {
    // a card named by one of the choices offered (a stronghold target, a free card, a card to discard)
    const opts = S.sel.options.filter(t => t && /^[ftxdbm:]/.test(t) && Number(t.slice(1)) === id);
    if (opts.length === 1) { clickToken(opts[0]); return; }
  }
  if (S.sel && S.sel.card && S.sel.card.id === id && S.sel.phase === "main") { clearSel(); render(); return; }
  S.sel = { phase: "main", card: { id, where } };
  render();
}

function clickDeck(level, orient = false) {
  if (!interactive()) return;
  S.sel = { phase: "main", deck: level, orient };
  render();
}

function clickNoble(id) {
  if (!S.sel || S.sel.phase !== "decide") return;
  const tok = S.sel.options.find(t => t === `n${id}` || t === `h${id}`);
  if (!tok) { toast(`Noble ${id} is not a choice after this move.`, "info"); return; }
  clickToken(tok);
}

// The decisions of a turn after its main action, as tokens; a stronghold move m30:31 is two steps
// ("m30" then ":31") so that the page can ask "from which card" and then "to which card".
function decisionTokens(move) {
  const out = [];
  for (const p of move.split("/").slice(1)) {
    if (p[0] === "m") { const [a, b] = p.slice(1).split(":"); out.push(`m${a}`, `:${b}`); }
    else out.push(p);
  }
  return out;
}

// After the main action: the legal whole-turn moves that start with it are the choices left; the
// page asks for one decision at a time (the next tokens of the moves still possible) until one
// move is left, then plays it.
function startAction(action) {
  const cands = S.game.legalMoves.filter(m => splitMove(m.move).action === action)
    .map(m => ({ move: m.move, toks: decisionTokens(m.move) }));
  if (!cands.length) { toast(`${action} is not a legal move here.`); return; }
  S.sel = { phase: "decide", action, chosen: [], cands, options: [], returns: "" };
  advance();
}

function advance() {
  const sel = S.sel;
  if (sel.cands.length === 1) { submitMove(sel.cands[0].move); return; }
  const i = sel.chosen.length;
  sel.options = [...new Set(sel.cands.map(c => i < c.toks.length ? c.toks[i] : null))];
  sel.kind = sel.options.every(t => t && t[0] === "-") ? "returns" : sel.options.every(t => t && t[0] === "n") ? "noble" : "choice";
  sel.returns = "";
  if (sel.kind === "returns") sel.need = sel.options[0].length - 1;
  render();
}

function clickToken(tok) {
  const sel = S.sel;
  if (!sel || sel.phase !== "decide" || !sel.options.includes(tok)) return;
  const i = sel.chosen.length;
  sel.chosen.push(tok);
  sel.cands = sel.cands.filter(c => (i < c.toks.length ? c.toks[i] : null) === tok);
  advance();
}

function clickReturn(letter) {
  const sel = S.sel;
  if (!sel || sel.phase !== "decide" || sel.kind !== "returns") return;
  const next = sortLetters(sel.returns + letter);
  const ok = sel.options.some(t => containsMultiset(t.slice(1), next));
  if (!ok) { toast(`You cannot return that ${NAMES[LETTERS.indexOf(letter)]} token.`, "info"); return; }
  sel.returns = next;
  if (next.length === sel.need) { clickToken(`-${next}`); return; }
  render();
}

// a decision token in words
function tokenLabel(tok, others) {
  const card = t => { const c = S.catalog.cards[Number(t)]; return `card #${t} (${cardKind(c)}${c.points ? `, ${c.points} pt` : ""})`; };
  if (tok === null) return others.some(t => t && t[0] === "b") ? "Do not conquer" : "Nothing more";
  const v = tok.slice(1);
  switch (tok[0]) {
    case "j": return `Joker joins your ${NAMES[LETTERS.indexOf(v)]} cards`;
    case "h": return `Reserve noble ${v} for yourself`;
    case "f": return `Take ${card(v)} free`;
    case "d": return `Discard ${card(v)}`;
    case "t": return `Place a stronghold on ${card(v)}`;
    case "m": return `Move a stronghold from card #${v}…`;
    case ":": return `…to ${card(v)}`;
    case "x": return `Remove the opponent's stronghold from card #${v}`;
    case "b": return `Conquer ${card(v)} (buy it too)`;
    case "+": return `Take an extra ${NAMES[LETTERS.indexOf(v)]} gem`;
    case "c": return `Claim city ${v}`;
    case "n": return `Noble ${v} visits you`;
    case "-": return `Return ${[...v].map(ch => NAMES[LETTERS.indexOf(ch)]).join(", ")}`;
    default: return tok;
  }
}

const DECISION_PROMPTS = {
  j: "The joker joins one of your colours: pick the colour.", h: "Reserve a noble for yourself: pick one.",
  f: "Take a card free: pick it (click it in the market or below).", d: "Pay with two cards of the colour: pick the cards to discard.",
  t: "Your stronghold action: place, move or remove a stronghold (click a card or a choice below).",
  m: "Your stronghold action: place, move or remove a stronghold (click a card or a choice below).",
  x: "Your stronghold action: place, move or remove a stronghold (click a card or a choice below).",
  ":": "Move the stronghold to which card?", b: "All three of your strongholds stand on a card: conquer it?",
  "+": "Trading post: take an extra gem.", c: "Several cities welcome you: pick one.",
};

function containsMultiset(big, small) {
  const count = {};
  for (const ch of big) count[ch] = (count[ch] || 0) + 1;
  for (const ch of small) { if (!count[ch]) return false; count[ch]--; }
  return true;
}

function describeAction(action) {
  const m = S.game.legalMoves.find(x => splitMove(x.move).action === action);
  return m ? m.description.replace(/^Player \d+ /, "").replace(/, then returns.*$/, "").replace(/, and is visited.*$/, "").replace(/\.$/, "") : action;
}

function tokensAfter(action, chosen = []) {
  const b = S.game;
  const t = [...b.seats[b.viewer].tokens];
  if (action[0] === "+") for (const ch of action.slice(1)) t[LETTERS.indexOf(ch)] += 1;
  else if (action[0] === "r" && b.bank[5] > 0) t[5] += 1;
  for (const tok of chosen) if (tok[0] === "+") t[LETTERS.indexOf(tok[1])] += 1;   // trading-post extra gems
  return t;
}

function renderActionBar() {
  const bar = $("#actionbar");
  bar.replaceChildren();
  const g = S.game;
  if (S.replay || !g) { bar.hidden = true; return; }
  bar.hidden = false;
  if (S.watch) { add(bar, h("span", { class: "muted" }, "You are watching this game: it shows what every player can see, never a hidden card.")); return; }
  if (g.over) { add(bar, h("span", { class: "muted" }, "The game is over. Replay it, undo, or start a new game.")); return; }
  if (!g.yourTurn) { add(bar, h("span", { class: "muted" }, "Waiting for the AI…")); return; }
  const actions = legalActions();
  const cancel = h("button", { type: "button", id: "act-cancel", onclick: () => { clearSel(); render(); } }, "Cancel");
  const sel = S.sel;
  if (!sel && g.partialMove) {
    add(bar, h("span", { class: "prompt" }, `${g.partialMove} is played and the new card is face up: finish your turn.`),
      h("button", { type: "button", class: "primary", id: "act-rest", onclick: () => startAction(g.partialMove) }, "Go on"));
    return;
  }
  if (!sel) {
    const only = g.legalMoves.length === 1 && g.legalMoves[0].move === "pass";
    add(bar, h("span", { class: "prompt" }, only
      ? "You have no legal action: you must pass."
      : "Click gems in the bank to take them, a card to buy or reserve it, or a deck to reserve blind."));
    if (only) add(bar, h("button", { type: "button", class: "primary", id: "act-pass", onclick: () => submitMove("pass") }, "Pass"));
    return;
  }
  if (sel.phase === "main" && sel.gems) {
    const action = takeAction(sel.gems);
    const legal = actions.has(action);
    add(bar, h("span", { class: "prompt" }, "Take "),
      h("span", { class: "chips" }, sel.gems.map(c => token(c, "", { class: "small" }))),
      h("button", { type: "button", class: "primary", id: "act-take", "data-testid": "confirm-take", disabled: !legal,
        onclick: () => startAction(action) }, legal ? `Take ${describeAction(action).replace(/^takes /, "")}` : canGrow(action, actions) ? "Pick more gems…" : "Not a legal take"),
      cancel);
    return;
  }
  if (sel.phase === "main" && sel.card) {
    const id = sel.card.id;
    const c = S.catalog.cards[id];
    const buy = actions.has(`b${id}`);
    const reserve = sel.card.where === "market" && actions.has(`r${id}`);
    add(bar, h("span", { class: "prompt" }, `Card #${id} (level ${c.level}${c.orient ? " Orient" : ""}, ${cardKind(c)}, ${c.points} pt${c.points === 1 ? "" : "s"}${sel.card.where === "hand" ? ", in your hand" : ""}):`),
      h("button", { type: "button", class: "primary", id: "act-buy", disabled: !buy, onclick: () => startAction(`b${id}`),
        title: buy ? describeAction(`b${id}`) : "You cannot afford it" }, buy ? "Buy" : "Buy (cannot afford)"),
      sel.card.where === "market" ? h("button", { type: "button", id: "act-reserve", disabled: !reserve,
        onclick: () => startAction(`r${id}`) }, reserve ? "Reserve" : "Reserve (not allowed)") : null,
      cancel);
    return;
  }
  if (sel.phase === "main" && sel.deck) {
    const act = `r${sel.orient ? "O" : "L"}${sel.deck}`;
    const ok = actions.has(act);
    add(bar, h("span", { class: "prompt" }, `The ${sel.orient ? "Orient " : ""}level-${sel.deck} deck:`),
      h("button", { type: "button", class: "primary", id: "act-reserve-deck", disabled: !ok, onclick: () => startAction(act) },
        ok ? "Reserve its top card" : "Reserve (not allowed)"), cancel);
    return;
  }
  const chosenText = sel.phase === "decide" && sel.chosen.length
    ? h("span", { class: "chosen", "data-testid": "chosen" }, h("code", {}, [sel.action, ...sel.chosen].join("/").replace(/\/:/g, ":")), " so far. ") : null;
  if (sel.phase === "decide" && sel.kind === "returns") {
    const after = tokensAfter(sel.action, sel.chosen);
    for (const ch of sel.returns) after[LETTERS.indexOf(ch)] -= 1;
    const left = sel.need - sel.returns.length;
    const what = describeAction(sel.action).replace(/^takes /, "take ").replace(/^reserves /, "reserve ");
    add(bar, chosenText, h("span", { class: "prompt" }, `You ${what}: that makes ${10 + sel.need} tokens, so return ${sel.need}. ` +
        `Click ${left} more token${left === 1 ? "" : "s"}:`),
      h("span", { class: "chips" }, after.map((n, c) => {
        const t = token(c, Math.max(0, n), { class: "return-token actionable", "data-testid": "return-token" });
        const can = sel.options.some(o => containsMultiset(o.slice(1), sortLetters(sel.returns + LETTERS[c])));
        if (can) t.addEventListener("click", () => clickReturn(LETTERS[c]));
        else t.classList.remove("actionable");
        return t;
      })),
      sel.returns ? h("span", { class: "returning" }, "returning ", h("span", { class: "chips" },
        [...sel.returns].map(ch => token(LETTERS.indexOf(ch), "", { class: "small" })))) : null,
      h("button", { type: "button", id: "act-clear", onclick: () => { sel.returns = ""; render(); } }, "Clear"), cancel);
    return;
  }
  if (sel.phase === "decide" && sel.kind === "noble") {
    add(bar, chosenText, h("span", { class: "prompt" }, "Two nobles can visit you: click the one you want (highlighted above)."),
      ...sel.options.map(t => h("button", { type: "button", "data-testid": "choose-noble", dataset: { token: t }, onclick: () => clickToken(t) }, `Noble ${t.slice(1)}`)),
      cancel);
    return;
  }
  if (sel.phase === "decide") {
    const first = sel.options.find(t => t) || "";
    add(bar, chosenText, h("span", { class: "prompt" }, DECISION_PROMPTS[first[0]] || "Choose:"),
      h("span", { class: "choices" }, sel.options.map(t => h("button", {
        type: "button", class: "choice", "data-testid": "decision", dataset: { token: t === null ? "" : t },
        onclick: () => clickToken(t),
      }, tokenLabel(t, sel.options)))),
      cancel);
  }
}

function renderLegal() {
  const box = $("#legal");
  const list = $("#legal-list");
  const g = S.game;
  const moves = !S.replay && g && g.yourTurn ? g.legalMoves : [];
  box.hidden = !moves.length;
  box.querySelector("summary").textContent = `All legal moves (${moves.length})`;
  list.replaceChildren(...moves.map(m => h("button", {
    type: "button", class: "legal-move", "data-testid": "legal-move", dataset: { move: m.move },
    onclick: () => submitMove(m.move), title: m.description,
  }, h("code", {}, m.move), h("span", {}, m.description.replace(/^Player \d+ /, "")))));
}

// -- panels ----------------------------------------------------------------------------------------

function renderThinking() {
  const p = $("#thinking");
  const t = S.game && !S.replay ? S.game.thinking : null;
  if (!t) { p.hidden = true; p.replaceChildren(); return; }
  p.hidden = false;
  const bits = [t.spec];
  if (t.queued) bits.push(t.waiting || "waiting for a free search worker");
  else {
    bits.push(`${t.searched.toFixed(1)} s of search`);
    if (t.iterations) bits.push(`${t.iterations.toLocaleString()} iterations`);
    if (t.winrate !== null && t.winrate !== undefined) bits.push(`its win estimate ${pct(t.winrate)}`);
  }
  fill(p,
    h("h2", {}, h("span", { class: "spinner" }), `${t.player} is thinking`),
    h("div", { class: "muted", "data-testid": "thinking-figures" }, bits.join(" · ")),
    h("div", { class: "progress", "data-testid": "ai-progress" }, h("div", { class: "bar", style: `width:${(100 * (t.progress || 0)).toFixed(0)}%` })),
    h("div", { class: "muted small" }, "Its candidate moves are not shown: their figures would tell what it can do with cards hidden from you."));
}

function renderHint() {
  const p = $("#hint-panel");
  const hnt = S.hint;
  if (!hnt || S.replay || !S.game || hnt.version !== S.game.version) { p.hidden = true; p.replaceChildren(); return; }
  p.hidden = false;
  const r = hnt.runnerUp;
  const legal = S.game.yourTurn && S.game.legalMoves.some(m => m.move === hnt.move);
  fill(p, 
    h("h2", {}, "Hint"),
    h("div", { class: "hint-move", "data-testid": "hint-move", dataset: { move: hnt.move } }, h("code", {}, hnt.move), " ", hnt.description || ""),
    h("div", { class: "muted" }, hnt.reason),
    r ? h("div", { class: "muted" }, "Runner-up: ", h("code", {}, r.move), ` (${pct(r.winrate)}, ${r.visits} visits)`) : null,
    legal ? h("button", { type: "button", class: "primary", id: "play-hint", onclick: () => submitMove(hnt.move) }, "Play this move") : null);
}

function renderAnalysis() {
  const p = $("#analysis-panel");
  const a = S.analysis;
  const here = S.replay ? a && a.step === S.replay.step : a && (a.step === null || a.step === undefined);
  if (!a || !here || a.status === "none") { p.hidden = true; p.replaceChildren(); return; }
  p.hidden = false;
  const head = h("h2", {}, a.status === "running" ? h("span", { class: "spinner" }) : null, "Analysis",
    h("button", { type: "button", class: "close", title: "Close", onclick: () => { S.analysis = null; clearTimeout(S.analysisTimer); render(); } }, "×"));
  const root = a.rootInfo;
  const info = h("div", { class: "muted" },
    a.status === "running" ? "Searching… " : a.status === "error" ? `Stopped: ${a.error}. ` : "",
    root ? `${root.iterations.toLocaleString()} iterations, ${root.seconds.toFixed(1)} s, from ${playerName(a.seat)}'s view` : "",
    root && root.winrate !== null ? ` · ${playerName(root.toMove)} to move: ${pct(root.winrate)}` : "",
    a.step !== null && a.step !== undefined ? ` · the position after move ${a.step}` : "",
    a.stale && !S.replay ? " · (the game has moved on since)" : "");
  const rows = (a.moveInfos || []).map(m => {
    const playable = !S.replay && !a.stale && S.game.yourTurn && S.game.legalMoves.some(x => x.move === m.move);
    const seats = m.seatWinrates.map((w, i) => `${playerName(i)} ${pct(w)}`).join(", ");
    return h("tr", { "data-testid": "analysis-row", dataset: { move: m.move } },
      h("td", { class: "rank" }, String(m.order + 1)),
      h("td", { class: "mv" }, h("code", {}, m.move),
        h("div", { class: "desc" }, m.description ? m.description.replace(/^Player \d+ /, "").replace(/\.$/, "") : "")),
      h("td", { class: "num" }, m.visits.toLocaleString()),
      h("td", { class: "wr", title: `expected result per seat: ${seats}` },
        h("div", { class: "wr-bar" }, h("div", { style: `width:${m.winrate === null ? 0 : (100 * m.winrate).toFixed(0)}%` })),
        h("span", { class: "wr-num" }, pct(m.winrate))),
      h("td", {}, playable ? h("button", { type: "button", class: "small-btn", onclick: () => submitMove(m.move) }, "Play") : null));
  });
  fill(p, head, info,
    rows.length ? h("table", { class: "analysis-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "move"), h("th", { class: "num" }, "visits"),
        h("th", {}, `win rate (${playerName(a.rootInfo ? a.rootInfo.toMove : 0)})`), h("th", {}, ""))),
      h("tbody", {}, rows)) : null);
}

// -- the win-rate graph -----------------------------------------------------------------------------

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of kids(children)) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

// A graph of win rates over the game: `series` = [{seat, points: [{ply, winrate, mark}]}]; a click on
// a point replays the position before that move.
function winrateGraph(series, moves, step) {
  const W = 640, H = 130, L = 38, R = 8, T = 8, B = 18;
  const x = ply => L + (W - L - R) * ply / Math.max(1, moves);
  const y = w => T + (H - T - B) * (1 - w);
  const out = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "wr-graph", "data-testid": "graph", role: "img",
    "aria-label": "win rate over the game" },
    svg("line", { x1: L, x2: W - R, y1: y(0.5), y2: y(0.5), class: "mid" }),
    ...[0, 0.5, 1].map(v => svg("text", { x: L - 4, y: y(v) + 4, class: "axis", "text-anchor": "end" }, `${100 * v}%`)),
    svg("text", { x: W - R, y: H - 4, class: "axis", "text-anchor": "end" }, `move ${moves}`),
    step !== null && step !== undefined ? svg("line", { x1: x(step), x2: x(step), y1: T, y2: H - B, class: "now" }) : null);
  for (const s of series) {
    const pts = s.points.filter(p => p.winrate !== null && p.winrate !== undefined);
    out.append(svg("polyline", { class: `line s${s.seat}`, points: pts.map(p => `${x(p.ply)},${y(p.winrate)}`).join(" ") }));
    for (const p of pts) {
      const cls = p.mark === "?!" ? " mi" : p.mark === "?" ? " mm" : p.mark === "??" ? " mb" : "";
      out.append(svg("circle", {
        cx: x(p.ply), cy: y(p.winrate), r: p.mark ? 5 : 3.5, class: `pt s${s.seat}${cls}`,
        "data-testid": "graph-point", "data-ply": String(p.ply), "data-seat": String(s.seat),
        onclick: () => goReplay(p.ply),
      }, svg("title", {}, `${playerName(s.seat)} before move ${p.ply + 1}: ${pct(p.winrate)}${p.mark ? " " + p.mark : ""}`)));
    }
  }
  return out;
}

function renderGraph() {
  const p = $("#graph-panel");
  const g = S.game;
  const rv = S.review && S.review.report ? S.review : null;
  let series = null, title = "";
  if (rv) {
    series = rv.report.seats.map(s => ({ seat: s.seat, points: rv.report.turns.filter(t => t.seat === s.seat)
      .map(t => ({ ply: t.turn, winrate: t.bestWinrate, mark: t.mark })) }));
    title = "Review: each player's win rate before its moves, from its own view";
  } else if (g && g.graph && g.graph.on) {
    series = [{ seat: g.graph.seat, points: g.graph.points }];
    title = `${playerName(g.graph.seat)}'s win rate, from ${g.graph.seat === g.viewer ? "your" : "their"} own view` + (g.graph.running ? " (searching…)" : "");
  }
  if (!series) { p.hidden = true; p.replaceChildren(); return; }
  p.hidden = false;
  fill(p, h("h2", {}, title), winrateGraph(series, g.moveCount, S.replay ? S.replay.step : null),
    h("div", { class: "muted small" }, "Click a point to replay the position before that move."));
}

// -- the review ------------------------------------------------------------------------------------

// the reviewed turn played at the replayed position (the move from step K to K + 1), if any
function reviewTurn() {
  if (!S.replay || !S.review || !S.review.report) return null;
  return S.review.report.turns.find(t => t.turn === S.replay.step) || null;
}

function reviewMark(turn) {
  const t = S.review && S.review.report ? S.review.report.turns.find(x => x.turn === turn) : null;
  if (!t || !t.mark) return null;
  return h("span", { class: `mark k-${t.class}`, "data-testid": "log-mark", title: `${t.class}: ${pct(t.playedWinrate)} where ${t.best} had ${pct(t.bestWinrate)}` }, t.mark);
}

async function startReview() {
  const g = S.game;
  if (!g) return;
  try {
    S.review = await api("POST", `/api/games/${g.gameId}/review`, { limit: reviewBudget() });
    if (!S.replay) await goReplay(0);
    render();
    pollReview();
  } catch (e) {
    toast(e.message);
  }
}

// a review searches every move: the page's search budget, a tenth of it per move
function reviewBudget() {
  const b = budget();
  return b.iterations ? { iterations: Math.max(200, b.iterations) } : { iterations: Math.round(Math.min(2, b.seconds) * 4000) };
}

function pollReview() {
  clearTimeout(S.reviewTimer);
  if (!S.review || S.review.status !== "running") return;
  S.reviewTimer = setTimeout(async () => {
    try {
      S.review = await api("GET", `/api/games/${S.game.gameId}/review`);
    } catch (e) {
      toast(e.message);
      return;
    }
    render();
    pollReview();
  }, 500);
}

function renderReview() {
  const p = $("#review-panel");
  const rv = S.review;
  if (!rv || !rv.report || S.watch) { p.hidden = true; p.replaceChildren(); return; }
  p.hidden = false;
  const rep = rv.report;
  const marked = rep.turns.filter(t => t.mark);
  fill(p,
    h("h2", {}, rv.status === "running" ? h("span", { class: "spinner" }) : null, "Review",
      h("button", { type: "button", class: "close", title: "Close the review", onclick: () => { S.review = null; clearTimeout(S.reviewTimer); render(); } }, "×")),
    h("div", { class: "muted", "data-testid": "review-progress" },
      rv.status === "running" ? `${rv.reviewed} of ${rv.total} moves rated…` : rv.status === "error" ? `Stopped: ${rv.error}` : `${rv.reviewed} moves rated`,
      ` · each from its mover's own view (${rep.settings.spec}, ${Object.entries(rep.settings.limit || {}).map(([k, v]) => `${v} ${k}`).join(", ")} a move)`),
    h("table", { class: "review-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "player"), h("th", { class: "num" }, "accuracy"), h("th", { class: "num" }, "?!"), h("th", { class: "num" }, "?"), h("th", { class: "num" }, "??"))),
      h("tbody", {}, rep.seats.map(s => h("tr", { "data-testid": "review-seat", dataset: { seat: String(s.seat), accuracy: String(s.accuracy) } },
        h("td", {}, h("span", { class: `seat-dot s${s.seat}` }), ` ${playerName(s.seat)}`),
        h("td", { class: "num" }, s.accuracy === null ? "—" : `${s.accuracy.toFixed(1)}%`),
        h("td", { class: "num" }, String(s.classes.inaccuracy)), h("td", { class: "num" }, String(s.classes.mistake)),
        h("td", { class: "num" }, String(s.classes.blunder)))))),
    marked.length ? h("ol", { class: "review-list" }, marked.map(t => h("li", {
      "data-testid": "review-item", dataset: { turn: String(t.turn) }, onclick: () => goReplay(t.turn),
      class: S.replay && S.replay.step === t.turn ? "current" : "" },
      h("span", { class: `mark k-${t.class}` }, t.mark), ` ${t.turn + 1}. ${playerName(t.seat)} `, h("code", {}, t.played),
      ` (${pct(t.playedWinrate)}); better `, h("code", {}, t.best), ` (${pct(t.bestWinrate)})`))) : null,
    h("div", { class: "muted small" }, "Accuracy after lichess's formula on win-rate loss; ?! inaccuracy (5-10%), ? mistake (10-15%), ?? blunder (15% or more). Click a move to replay it: the better move is outlined on the board."));
}

async function toggleGraph() {
  const g = S.game;
  if (!g) return;
  try {
    await api("POST", `/api/games/${g.gameId}/graph`, { on: !(g.graph && g.graph.on) });
    await refresh();
  } catch (e) {
    toast(e.message);
  }
}

function renderLog() {
  const ol = $("#log");
  const g = S.game;
  if (!g) { ol.replaceChildren(); return; }
  const step = S.replay ? S.replay.step : null;
  ol.replaceChildren(...g.log.map(e => h("li", {
    class: `log-entry${step !== null && e.n === step ? " current" : ""}${step !== null && e.n > step ? " future" : ""}`,
    "data-testid": "log-entry", dataset: { move: e.move, n: String(e.n) },
    onclick: S.replay ? () => goReplay(e.n) : null,
  },
    h("span", { class: `seat-dot s${e.seat}` }),
    h("span", { class: "log-who" }, `${e.player}${e.by === "ai" ? " (AI)" : ""}`), " ",
    h("code", {}, e.move), reviewMark(e.n - 1), " ", h("span", { class: "log-desc" }, e.description.replace(/^Player \d+ /, "")),
    e.figures ? h("small", { class: "muted" }, ` [${e.figures}]`) : null)));
  if (!g.log.length) ol.append(h("li", { class: "muted" }, "No moves yet."));
  // scroll the log itself (never the page) to the current move, or to the end
  const cur = ol.querySelector(".current");
  if (cur) ol.scrollTop = Math.max(0, cur.offsetTop - ol.clientHeight / 2);
  else if (!S.replay) ol.scrollTop = ol.scrollHeight;
}

function renderReplayBar() {
  const bar = $("#replaybar");
  if (!S.replay) { bar.hidden = true; return; }
  bar.hidden = false;
  const d = S.replay.data;
  const range = $("#rp-range");
  range.max = String(d.moveCount);
  range.value = String(d.step);
  let label = `Move ${d.step} of ${d.moveCount}`;
  if (d.previous) label += `: ${d.previous.player} played ${d.previous.move}, ${d.previous.description.replace(/^Player \d+ /, "")}`;
  else label += " (the start)";
  $("#rp-label").textContent = label;
  const rt = reviewTurn();
  const better = $("#rp-review");
  if (rt) {
    better.hidden = false;
    fill(better, h("b", {}, `Review of move ${rt.turn + 1} (${playerName(rt.seat)}): `),
      h("span", { class: `klass k-${rt.class}` }, rt.class + (rt.mark ? ` ${rt.mark}` : "")),
      rt.best !== rt.played
        ? h("span", { "data-testid": "better-move", dataset: { move: rt.best } }, ` · played ${rt.played} (${pct(rt.playedWinrate)}); better `,
            h("code", {}, rt.best), ` (${pct(rt.bestWinrate)}): ${rt.bestDescription ? rt.bestDescription.replace(/^Player \d+ /, "") : ""}`,
            rt.pv.length > 1 ? h("span", { class: "muted" }, ` · then ${rt.pv.slice(1).join(" ")}`) : null)
        : h("span", {}, ` · the search's choice too (${pct(rt.bestWinrate)})`));
  } else { better.hidden = true; better.replaceChildren(); }
  $("#rp-label").dataset.step = String(d.step);
  $("#rp-first").disabled = $("#rp-prev").disabled = d.step === 0;
  $("#rp-last").disabled = $("#rp-next").disabled = d.step === d.moveCount;
}

function updateButtons() {
  const g = S.game;
  $("#btn-undo").disabled = !g || !g.canUndo || !!S.replay || S.busy;
  $("#btn-hint").disabled = !g || !g.yourTurn || !!S.replay || S.busy;
  $("#btn-analyse").disabled = !g || !!S.watch || (S.replay ? S.replay.data.over : g.over);
  $("#btn-graph").disabled = !g || !!S.watch || g.over;
  $("#btn-review").disabled = !g || !!S.watch || !g.moveCount || !(g.over || g.open);
  $("#btn-graph").setAttribute("aria-pressed", g && g.graph && g.graph.on ? "true" : "false");
  $("#btn-replay").disabled = !g || !g.moveCount;
  $("#btn-replay").textContent = S.replay ? "Replaying" : "Replay";
  const dl = $("#btn-download");
  if (g && g.recordAvailable && !S.watch) {
    dl.href = `/api/games/${g.gameId}/record`; dl.classList.remove("disabled");
    dl.title = "Download the game record (JSON Lines): an open game's record holds the whole deal";
  } else {
    dl.removeAttribute("href"); dl.classList.add("disabled");
    dl.title = "A closed game's record holds the decks' order and the cards reserved blind, which stay hidden: start an open game to download its record";
  }
  $("#btn-watch").disabled = !g || !!S.watch;
  $("#btn-cb").setAttribute("aria-pressed", document.body.classList.contains("cb") ? "true" : "false");
}

// -- talking to the server -------------------------------------------------------------------------

function setGame(data) {
  const key = S.watch ? `watch:${S.watch}` : data.gameId;
  const changed = !S.game || S.gameKey !== key;
  if (changed) { S.prevMarket = null; S.freshVersion = -1; S.hint = null; S.analysis = null; S.replay = null; S.summaryClosed = false; S.review = null; }
  if (S.game && S.game.version !== data.version) {
    S.sel = null;
    if (S.analysis && S.analysis.status !== "running") S.analysis = null;   // it was about an older position
  }
  S.game = data;
  S.gameKey = key;
  const hash = S.watch ? `#watch=${S.watch}` : `#game=${data.gameId}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
  // the second step of a two-step turn (docs/RULES.md): its decisions are asked one at a time,
  // as after any main action
  if (interactive() && data.partialMove && !S.sel) startAction(data.partialMove);
  else render();
  schedulePoll();
}

function gamePath() { return S.watch ? `/api/watch/${S.watch}` : `/api/games/${S.game.gameId}`; }

function schedulePoll() {
  clearTimeout(S.pollTimer);
  const g = S.game;
  if (!g || g.over) return;
  // while the human is to move, a slower check notices a move made in another tab
  const graphing = g.graph && g.graph.running;
  S.pollTimer = setTimeout(refresh, g.yourTurn && !graphing ? 3000 : g.thinking || graphing ? 300 : S.watch ? 1000 : 400);
}

async function refresh() {
  if (!S.game) return;
  try {
    const before = S.game.version;
    const data = await api("GET", gamePath());
    if (S.game.yourTurn && data.version !== before && !S.busy) {
      toast("The game changed in another tab: the board shows it as it is now.", "info");
    }
    setGame(data);
  } catch (e) {
    toast(e.message);
    if (e.status !== 404 && e.status !== 410) S.pollTimer = setTimeout(refresh, 2000);
  }
}

async function submitMove(move) {
  if (!S.game || S.busy) return;
  S.busy = true;
  try {
    const data = await api("POST", `/api/games/${S.game.gameId}/move`, { move, version: S.game.version });
    S.sel = null;
    S.busy = false;
    setGame(data);
  } catch (e) {
    S.busy = false;
    S.sel = null;
    if (e.field === "version") toast("This tab was behind: the game had changed (in another tab, or the AI moved). The board is now up to date: look and play again.", "info");
    else toast(e.message);
    await refresh();
  }
}

async function loadGame(gid) {
  S.watch = null;
  document.body.classList.remove("watching");
  try {
    setGame(await api("GET", `/api/games/${gid}`));
    await refreshGameList();
  } catch (e) {
    toast(e.message);
  }
}

async function loadWatch(wid) {
  S.watch = wid;
  document.body.classList.add("watching");
  try {
    setGame(await api("GET", `/api/watch/${wid}`));
  } catch (e) {
    toast(e.message);
  }
}

async function refreshGameList() {
  const sel = $("#game-select");
  if (S.watch) return;
  let games = [];
  try { games = (await api("GET", "/api/games")).games; } catch (e) { return; }
  sel.replaceChildren(h("option", { value: "" }, games.length ? "Switch game…" : "(no game)"),
    ...games.map(g => h("option", { value: g.gameId, selected: S.game && g.gameId === S.game.gameId },
      `${g.gameId.slice(0, 8)}… · ${g.players}p${g.module ? " · " + g.module : ""}${g.open ? " · open" : ""} · round ${Math.floor(g.turn / g.players) + 1}${g.over ? " · over" : ""}`)));
}

function budget() {
  try { return JSON.parse($("#budget").value); } catch (e) { return { seconds: 1 }; }
}

async function askHint() {
  const g = S.game;
  if (!g || !g.yourTurn) return;
  const btn = $("#btn-hint");
  btn.disabled = true;
  btn.textContent = "Thinking…";
  try {
    const data = await api("POST", `/api/games/${g.gameId}/hint`, { limit: budget() });
    S.hint = { ...data, version: g.version };
  } catch (e) {
    toast(e.message);
  } finally {
    btn.textContent = "Hint";
    render();
  }
}

async function startAnalysis() {
  const g = S.game;
  if (!g) return;
  try {
    const body = { limit: budget(), topK: 8 };
    if (S.replay) body.step = S.replay.step;      // the replayed position
    S.analysis = await api("POST", `/api/games/${g.gameId}/analysis`, body);
    render();
    pollAnalysis();
  } catch (e) {
    toast(e.message);
  }
}

function pollAnalysis() {
  clearTimeout(S.analysisTimer);
  if (!S.analysis || S.analysis.status !== "running") return;
  S.analysisTimer = setTimeout(async () => {
    try {
      S.analysis = await api("GET", `/api/games/${S.game.gameId}/analysis`);
    } catch (e) {
      toast(e.message);
      return;
    }
    render();
    pollAnalysis();
  }, 300);
}

async function undo() {
  const g = S.game;
  if (!g) return;
  try {
    S.sel = null;
    setGame(await api("POST", `/api/games/${g.gameId}/undo`, { version: g.version }));
    toast("Took back your last move.", "info");
  } catch (e) {
    if (e.field === "version") toast("This tab was behind: the game had changed. The board is now up to date.", "info");
    else toast(e.message);
    await refresh();
  }
}

// -- replay ------------------------------------------------------------------------------------------

async function goReplay(step) {
  const g = S.game;
  if (!g) return;
  step = Math.max(0, Math.min(step, g.moveCount));
  try {
    const data = await api("GET", `${gamePath()}/replay?step=${step}`);
    S.replay = { step, data };
    S.sel = null;
    render();
  } catch (e) {
    toast(e.message);
  }
}

function exitReplay() { S.replay = null; render(); schedulePoll(); }

// -- the new-game dialog --------------------------------------------------------------------------

function seatRow(i, kind, spec) {
  const presets = S.catalog.aiPresets;
  const known = presets.some(p => p.spec === spec);
  const specSel = h("select", { class: "seat-spec", "data-testid": "seat-spec" },
    ...presets.map(p => h("option", { value: p.spec, selected: p.spec === spec }, p.label)),
    h("option", { value: "custom", selected: !known }, "Custom spec…"));
  const custom = h("input", { class: "seat-custom", type: "text", placeholder: "e.g. mcts(iterations=5000,c=1.2)", value: known ? "" : spec });
  const kindSel = h("select", { class: "seat-kind", "data-testid": "seat-kind" },
    h("option", { value: "human", selected: kind === "human" }, "Human"),
    h("option", { value: "ai", selected: kind === "ai" }, "AI"));
  const row = h("div", { class: "form-row seat-setup", dataset: { seat: String(i) } },
    h("label", {}, h("span", { class: `seat-dot s${i}` }), playerName(i)), kindSel, specSel, custom);
  const sync = () => {
    specSel.hidden = kindSel.value !== "ai";
    custom.hidden = kindSel.value !== "ai" || specSel.value !== "custom";
  };
  kindSel.addEventListener("change", sync);
  specSel.addEventListener("change", sync);
  sync();
  return row;
}

function buildSeatRows() {
  const n = Number($("#ng-players").value);
  const box = $("#ng-seats");
  const old = [...box.querySelectorAll(".seat-setup")].map(r => ({
    kind: r.querySelector(".seat-kind").value,
    spec: r.querySelector(".seat-spec").value === "custom" ? r.querySelector(".seat-custom").value : r.querySelector(".seat-spec").value,
  }));
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const o = old[i] || { kind: i === 0 ? "human" : "ai", spec: S.catalog.defaultAi };
    box.append(seatRow(i, o.kind, o.spec));
  }
  const first = $("#ng-first");
  const keep = Number(first.value || 0);
  first.replaceChildren(...Array.from({ length: n }, (_, i) => h("option", { value: String(i), selected: i === keep }, playerName(i))));
}

function openNewGame() {
  const mod = $("#ng-module");
  if (mod.options.length <= 1) for (const m of S.catalog.modules) mod.append(h("option", { value: m.name }, m.title));
  buildSeatRows();
  $("#new-dialog").showModal();
}

async function startNewGame(ev) {
  ev.preventDefault();
  const rows = [...document.querySelectorAll("#ng-seats .seat-setup")];
  const seats = rows.map(r => {
    if (r.querySelector(".seat-kind").value === "human") return "human";
    const v = r.querySelector(".seat-spec").value;
    return v === "custom" ? r.querySelector(".seat-custom").value.trim() : v;
  });
  const body = { players: rows.length, seats, firstPlayer: Number($("#ng-first").value || 0) };
  const module = $("#ng-module").value;
  if (module) body.module = module;
  const seed = $("#ng-seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  if ($("#ng-open").checked) body.open = true;
  if (await createGame(body)) $("#new-dialog").close();
}

async function createGame(body) {
  try {
    const data = await api("POST", "/api/games", body);
    S.game = null;
    S.watch = null;
    document.body.classList.remove("watching");
    setGame(data);
    refreshGameList();
    return true;
  } catch (e) {
    toast(e.message);
    return false;
  }
}

// the same table again: the same seats (or every seat moved one place on: the second player
// becomes the first), module and kind of game, a new deal
function rematch(swap) {
  const g = S.game;
  let seats = g.seatsSetup.map(s => (s.kind === "human" ? "human" : s.spec));
  if (swap) seats = seats.slice(1).concat(seats.slice(0, 1));
  const body = { players: g.players, seats, firstPlayer: g.firstPlayer || 0 };
  if (g.module) body.module = g.module;
  if (g.open) body.open = true;
  createGame(body);
}

// -- the end of the game ---------------------------------------------------------------------------

// who won and why, in words: the rule that decided (points, then fewest cards; a city in The Cities)
function resultWhy(b) {
  const r = b.result;
  const n = b.players;
  const seats = [...Array(n).keys()];
  if (!r.winners.length) return r.reason === "cap" ? "The game reached the turn cap: no winner." : "Every player passed in turn: the game stalled without a winner.";
  const names = ws => ws.map(playerName).join(" and ");
  if (b.module === "cities") {
    const holders = seats.filter(i => b.seats[i].cities.length);
    if (holders.length === 1) return `${names(r.winners)} claimed a city and is the only player holding one.`;
  }
  const pool = b.module === "cities" ? seats.filter(i => b.seats[i].cities.length) : seats;
  const top = Math.max(...pool.map(i => r.points[i]));
  const tied = pool.filter(i => r.points[i] === top);
  if (tied.length === 1) return `${names(r.winners)} ${b.module === "cities" ? "has the most prestige among the city holders" : "has the most prestige points"} (${top}).`;
  const fewest = Math.min(...tied.map(i => r.cards[i]));
  if (r.winners.length === 1) {
    const others = tied.filter(i => i !== r.winners[0]).map(i => `${playerName(i)} ${r.cards[i]}`).join(", ");
    return `Tie-break: ${names(tied)} tied on ${top} points; ${names(r.winners)} wins with fewer development cards (${fewest} against ${others}).`;
  }
  return `${names(r.winners)} tied on ${top} points and on development cards (${fewest} each): a shared win.`;
}

function renderSummary() {
  const p = $("#summary");
  const g = S.game;
  const b = board();
  if (!g || !g.over || S.replay || S.summaryClosed) { p.hidden = true; p.replaceChildren(); return; }
  p.hidden = false;
  const r = g.result;
  const title = r.winners.length ? `${r.winners.map(playerName).join(" and ")} ${r.winners.length > 1 ? "share the win" : "wins"}` : "No winner";
  const cities = b.module === "cities";
  const rows = b.seats.map(s => h("tr", { "data-testid": "summary-row", dataset: { seat: String(s.seat), rank: String(r.ranks[s.seat]) },
      class: r.winners.includes(s.seat) ? "won" : "" },
    h("td", {}, String(r.ranks[s.seat])),
    h("td", {}, h("span", { class: `seat-dot s${s.seat}` }), ` ${playerName(s.seat)} `, h("small", { class: "muted" }, seatLabel(b, s.seat))),
    h("td", { class: "num" }, String(r.points[s.seat])),
    h("td", { class: "num" }, String(r.cards[s.seat])),
    h("td", { class: "num" }, String(s.nobles.length)),
    cities ? h("td", { class: "num" }, String(s.cities.length)) : null,
    h("td", {}, s.nobles.length ? s.nobles.map(n => `n${n}`).join(" ") : "—")));
  fill(p,
    h("h2", {}, "Game over", h("button", { type: "button", class: "close", title: "Close", onclick: () => { S.summaryClosed = true; render(); } }, "×")),
    h("div", { class: "summary-title", "data-testid": "summary-title" }, title),
    h("div", { class: "summary-why", "data-testid": "summary-why" }, resultWhy(b)),
    h("table", { class: "summary-table" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "player"), h("th", { class: "num" }, "points"), h("th", { class: "num" }, "cards"),
        h("th", { class: "num" }, "nobles"), cities ? h("th", { class: "num" }, "cities") : null, h("th", {}, ""))),
      h("tbody", {}, rows)),
    S.watch ? null : h("div", { class: "summary-buttons" },
      h("button", { type: "button", class: "primary", id: "btn-rematch", onclick: () => rematch(false) }, "Rematch"),
      h("button", { type: "button", id: "btn-swap", title: "The same players, every seat moved one place on", onclick: () => rematch(true) }, "Swap seats"),
      h("button", { type: "button", id: "btn-summary-replay", onclick: () => goReplay(0) }, "Replay the game"),
      h("button", { type: "button", id: "btn-summary-review", onclick: startReview }, "Review the game")));
}

// -- sharing -------------------------------------------------------------------------------------------

function showWatchLink() {
  const g = S.game;
  if (!g || !g.watchId) return;
  const url = `${location.origin}/#watch=${g.watchId}`;
  const box = $("#watch-box");
  fill(box, h("span", {}, "Spectator link (public information only): "),
    h("input", { type: "text", readonly: true, value: url, "data-testid": "watch-link", size: 40, onfocus: e => e.target.select() }),
    h("button", { type: "button", onclick: () => { box.hidden = true; } }, "Close"));
  box.hidden = false;
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(url).then(() => toast("Spectator link copied.", "info"), () => {});
}

// -- colour-blind mode and keys ----------------------------------------------------------------------

function setColourBlind(on) {
  document.body.classList.toggle("cb", on);
  try { localStorage.setItem("splendor.cb", on ? "1" : "0"); } catch (e) { /* private mode */ }
  updateButtons();
}

const KEYS = [
  ["w b g r k", "pick a gem of that colour in the bank (again: two of it, or put it back)"],
  ["Enter", "do the highlighted action (take the gems, buy, reserve)"],
  ["Escape", "cancel what you were building"],
  ["h", "hint"], ["u", "undo"], ["a", "analyse"], ["p", "replay on or off"], ["\u2190 \u2192", "step through a replay"],
  ["n", "new game"], ["c", "colour-blind symbols on or off"], ["?", "this list"],
];

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.closest && e.target.closest("input, select, textarea, dialog")) return;
  const k = e.key;
  if (S.replay && k === "ArrowLeft") goReplay(S.replay.step - 1);
  else if (S.replay && k === "ArrowRight") goReplay(S.replay.step + 1);
  else if (k === "Escape" && S.sel) { clearSel(); render(); }
  else if ("wbgrk".includes(k) && k.length === 1 && interactive()) clickBankGem(LETTERS.indexOf(k));
  else if (k === "Enter" && interactive()) {
    const btn = document.querySelector("#actionbar button.primary:not(:disabled)");
    if (btn) { e.preventDefault(); btn.click(); }
  }
  else if (k === "h" && !$("#btn-hint").disabled) askHint();
  else if (k === "u" && !$("#btn-undo").disabled) undo();
  else if (k === "a" && !$("#btn-analyse").disabled) startAnalysis();
  else if (k === "p" && !$("#btn-replay").disabled) $("#btn-replay").click();
  else if (k === "n" && !S.watch) openNewGame();
  else if (k === "c") setColourBlind(!document.body.classList.contains("cb"));
  else if (k === "?") $("#keys-dialog").showModal();
}

// -- records -------------------------------------------------------------------------------------------

async function uploadRecord(file) {
  const text = await file.text();
  try {
    const data = await api("POST", "/api/games/import", { record: text });
    S.game = null;
    setGame(data);
    refreshGameList();
    toast(`Loaded ${file.name}: ${data.moveCount} moves${data.over ? " (a finished game: replaying it)" : ""}.`, "info");
    if (data.over) goReplay(0);
  } catch (e) {
    toast(e.message);
  }
}

// -- start ------------------------------------------------------------------------------------------

async function init() {
  S.catalog = await api("GET", "/api/catalog");
  $("#btn-new").addEventListener("click", openNewGame);
  $("#ng-players").addEventListener("change", buildSeatRows);
  $("#ng-cancel").addEventListener("click", () => $("#new-dialog").close());
  $("#new-form").addEventListener("submit", startNewGame);
  $("#btn-undo").addEventListener("click", undo);
  $("#btn-hint").addEventListener("click", askHint);
  $("#btn-analyse").addEventListener("click", startAnalysis);
  $("#btn-replay").addEventListener("click", () => S.replay ? exitReplay() : goReplay(S.game.over ? 0 : S.game.moveCount));
  $("#rp-first").addEventListener("click", () => goReplay(0));
  $("#rp-prev").addEventListener("click", () => goReplay(S.replay.step - 1));
  $("#rp-next").addEventListener("click", () => goReplay(S.replay.step + 1));
  $("#rp-last").addEventListener("click", () => goReplay(S.game.moveCount));
  $("#rp-range").addEventListener("input", e => goReplay(Number(e.target.value)));
  $("#rp-exit").addEventListener("click", exitReplay);
  $("#game-select").addEventListener("change", e => { if (e.target.value) loadGame(e.target.value); });
  $("#game-select").addEventListener("focus", refreshGameList);
  $("#upload-input").addEventListener("change", e => {
    const f = e.target.files[0];
    if (f) uploadRecord(f);
    e.target.value = "";
  });
  document.addEventListener("keydown", onKey);
  $("#btn-watch").addEventListener("click", showWatchLink);
  $("#btn-graph").addEventListener("click", toggleGraph);
  $("#btn-review").addEventListener("click", startReview);
  $("#btn-cb").addEventListener("click", () => setColourBlind(!document.body.classList.contains("cb")));
  $("#btn-keys").addEventListener("click", () => $("#keys-dialog").showModal());
  $("#keys-close").addEventListener("click", () => $("#keys-dialog").close());
  fill($("#keys-list"), KEYS.map(([k, what]) => h("tr", {}, h("td", {}, h("kbd", {}, k)), h("td", {}, what))));
  let cb = false;
  try { cb = localStorage.getItem("splendor.cb") === "1"; } catch (e) { /* private mode */ }
  document.body.classList.toggle("cb", cb);
  window.addEventListener("hashchange", () => {
    const w = location.hash.match(/watch=([\w-]+)/), g = location.hash.match(/game=([\w-]+)/);
    if (w && w[1] !== S.watch) loadWatch(w[1]);
    else if (g && (!S.game || g[1] !== S.game.gameId)) loadGame(g[1]);
  });
  const w = location.hash.match(/watch=([\w-]+)/);
  const m = location.hash.match(/game=([\w-]+)/);
  if (w) await loadWatch(w[1]);
  else if (m) await loadGame(m[1]);
  else { render(); await refreshGameList(); openNewGame(); }
  document.body.dataset.ready = "1";
}

init().catch(e => toast(`Could not start: ${e.message}`));
