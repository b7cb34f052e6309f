// The virtual board's page: draws the board from the rules geometry (GET /api/board),
// follows the board through server-sent events (GET /api/events) and acts like a hand
// through the control API (POST /api/lift, /api/place, ...). See docs/simulator.md.
"use strict";
(() => {
  const SVGNS = "http://www.w3.org/2000/svg";
  // Disk colours per side: bone, clay, slate, ochre. Not the LED team colours (yellow,
  // cyan), so a disk is never mistaken for a light.
  const DISK = {
    south: { face: "#f1e7d0", rim: "#7d6a4c", mark: "#8a7553" },
    north: { face: "#a63b2c", rim: "#3e100a", mark: "#f2c2b2" },
    west: { face: "#2f6388", rim: "#0e2536", mark: "#cfe6ff" },
    east: { face: "#d29433", rim: "#563608", mark: "#3b2608" },
    unknown: { face: "#8a8a8a", rim: "#333", mark: "#f4f4f4" },
  };
  const SIDE_ORDER = ["south", "west", "north", "east", "unknown"];
  const $ = (id) => document.getElementById(id);
  const svg = $("board");

  let board = null; // GET /api/board
  let state = null; // the latest state event
  let rotated = false;
  let pos = {}; // point name -> {x, y} in SVG units
  let unit = { disk: 0.3, glow: 0.46 };
  const glows = {};
  const hits = {};
  const disks = new Map(); // disk id -> <g>
  let diskLayer = null;
  let markLayer = null; // the last move's marks: rings on its start and end, crosses where it took
  let defs = null;
  const gradients = new Set(); // "rrggbb" of the glow gradients made so far
  let drawnPanels = ""; // the hand and tray last drawn (JSON), to redraw only on change
  let selected = null; // id of the disk in the hand that a click on a point puts down
  let drag = null;
  let queue = Promise.resolve();

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVGNS, name);
    for (const k in attrs) node.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(node);
    return node;
  }

  // -- talking to the server ----------------------------------------------------------
  let toastTimer = null;
  function toast(text) {
    const t = $("toast");
    t.textContent = text;
    t.hidden = false;
    speak(text, false, "said"); // (a screen reader reads it: the toast is an alert)
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (t.hidden = true), 4000);
  }

  // Actions run one after another, in the order the person made them.
  let inflight = 0;
  let liftedAt = 0; // when the board last answered a lift (Date.now())
  const LIFT_HEARD_MS = 5000;
  function api(path, body) {
    inflight++;
    const run = () =>
      fetch("/api/" + path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
      }).then(async (r) => {
        const j = await r.json().catch(() => ({ ok: false, error: r.status + " " + r.statusText }));
        if (!r.ok || !j.ok) {
          toast(j.error || "refused");
          throw new Error(j.error);
        }
        return j;
      });
    const p = queue.then(run).finally(() => inflight--);
    queue = p.catch(() => {});
    return p;
  }

  // -- drawing the board ----------------------------------------------------------------
  function bounds() {
    const xs = board.coords.map((c) => c[0]);
    const ys = board.coords.map((c) => c[1]);
    return { minX: Math.min(...xs), maxX: Math.max(...xs), minY: Math.min(...ys), maxY: Math.max(...ys) };
  }

  function tooLongForPhone(b) {
    const wide = b.maxX - b.minX > 2 * (b.maxY - b.minY);
    return wide && b.maxX - b.minX > 12 && window.innerWidth < 700 && window.innerHeight > window.innerWidth;
  }

  function draw() {
    const b = bounds();
    const squares = board.shape === "squares";
    const wide = b.maxX - b.minX > 2 * (b.maxY - b.minY);
    // South stays at the bottom, as the person sits at the board: a phone held upright
    // shows Mosona's board across (its points still big enough to touch; issue 26). Only
    // Kolowis' 17-point rows, too small across a phone, are turned a quarter (North right).
    rotated = tooLongForPhone(b);
    document.body.classList.toggle("wide", wide && !rotated);
    document.body.classList.toggle("rotated", rotated);
    const pad = squares ? 0.62 : 0.7;
    unit = squares ? { disk: 0.34, glow: 0.64 } : { disk: 0.3, glow: 0.52 };
    const w = (rotated ? b.maxY - b.minY : b.maxX - b.minX) + 2 * pad;
    const h = (rotated ? b.maxX - b.minX : b.maxY - b.minY) + 2 * pad;
    const map = (x, y) =>
      rotated ? { x: y - b.minY + pad, y: x - b.minX + pad } : { x: x - b.minX + pad, y: b.maxY - y + pad };
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("data-rotated", rotated ? "1" : "0");
    svg.classList.toggle("squares", squares);
    svg.textContent = "";
    pos = {};
    board.names.forEach((n, i) => (pos[n] = map(board.coords[i][0], board.coords[i][1])));

    defs = el("defs", {}, svg);
    if (!cursor || !board.names.includes(cursor)) cursor = board.names[0];
    neighbours = linked();
    gradients.clear();

    el("rect", { "aria-hidden": "true", class: "board-bg", x: 0.03, y: 0.03, width: w - 0.06, height: h - 0.06, rx: 0.25 }, svg);
    const under = el("g", { class: "under", "aria-hidden": "true" }, svg);
    if (squares) drawSquares(under);
    else drawLines(under);

    const glowLayer = el("g", { class: "glows", "aria-hidden": "true" }, svg);
    board.names.forEach((n) => {
      const p = pos[n];
      glows[n] = el("circle", { class: "glow", cx: p.x, cy: p.y, r: unit.glow, opacity: 0, "data-point": n, "data-led": "#000000" }, glowLayer);
    });
    markLayer = el("g", { class: "marks", "aria-hidden": "true" }, svg);
    drawnMarks = "";
    diskLayer = el("g", { class: "disks", "aria-hidden": "true" }, svg);
    disks.clear();
    // Point names above the disks, beside them (below right of a line point, clear of its
    // disk; a square's top left corner): never hidden under a piece.
    const labels = el("g", { class: "labels", "aria-hidden": "true" }, svg);
    board.names.forEach((n) => {
      const p = pos[n];
      const t = el("text", squares ? { class: "label", x: p.x - 0.47, y: p.y - 0.33 } : { class: "label", x: p.x + 0.3, y: p.y + 0.47 }, labels);
      t.textContent = n;
    });
    if (rotated) {
      // Turned a quarter, South sits on the left and North on the right: say so along
      // the edges, so nobody reads the board's rows as the players' sides (issue 26).
      const sides = el("g", { class: "side-names", "aria-hidden": "true" }, svg);
      const at = [["South", 0.2, -90], ["North", w - 0.2, 90]];
      at.forEach(([name, x, turn]) => {
        const t = el("text", { class: "side-name", x: x, y: h / 2, transform: "rotate(" + turn + " " + x + " " + h / 2 + ")" }, sides);
        t.setAttribute("data-side", String(name).toLowerCase());
        t.textContent = name;
      });
    }
    const hitLayer = el("g", { class: "hits" }, svg);
    board.names.forEach((n) => {
      const p = pos[n];
      const h = squares
        ? el("rect", { class: "hit", x: p.x - 0.5, y: p.y - 0.5, width: 1, height: 1 }, hitLayer)
        : el("circle", { class: "hit", cx: p.x, cy: p.y, r: 0.45 }, hitLayer);
      h.setAttribute("data-point", n);
      h.setAttribute("tabindex", n === cursor ? "0" : "-1");
      h.setAttribute("role", "button");
      h.setAttribute("aria-label", "point " + n);
      h.addEventListener("pointerdown", (e) => pointDown(e, n));
      h.addEventListener("focus", () => {
        setCursor(n, false);
        speakCursor(pointLabel(n)); // what a screen reader would say of it, for the page's own speech
      });
      hits[n] = h;
    });
    const focus = el("circle", { class: "cursor", r: unit.glow * 0.92, cx: pos[cursor].x, cy: pos[cursor].y, "aria-hidden": "true" }, svg);
    cursorRing = focus;
    if (state) render(state);
  }

  // -- the keyboard: a cursor that walks along the board's lines ---------------------------
  // One point of the board is in the page's Tab order (the cursor); the arrow keys move
  // it to the next point along a line of the board in that direction on the screen.
  let cursor = null;
  let cursorRing = null;
  let neighbours = {}; // point -> the points one step away along a line (or a square's side)

  function linked() {
    const out = {};
    for (const n of board.names) out[n] = new Set();
    if (board.shape === "squares") {
      board.names.forEach((a, i) => {
        board.names.forEach((b, j) => {
          const dx = Math.abs(board.coords[i][0] - board.coords[j][0]);
          const dy = Math.abs(board.coords[i][1] - board.coords[j][1]);
          if (i !== j && dx <= 1.01 && dy <= 1.01) out[a].add(b);
        });
      });
    } else {
      for (const line of board.lines) {
        for (let i = 0; i + 1 < line.length; i++) {
          out[line[i]].add(line[i + 1]);
          out[line[i + 1]].add(line[i]);
        }
      }
    }
    return out;
  }

  const ARROWS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

  // The point the arrow key ``dir`` leads to from ``n``: the neighbour along a line most
  // in that direction (within 67 degrees of it); with none, the nearest point that way.
  function stepFrom(n, dir) {
    const p = pos[n];
    let best = null;
    let bestScore = -1;
    const consider = (m, along) => {
      const dx = pos[m].x - p.x;
      const dy = pos[m].y - p.y;
      const len = Math.hypot(dx, dy);
      if (!len) return;
      const cos = (dx * dir[0] + dy * dir[1]) / len;
      if (cos < 0.38) return;
      const score = (along ? 10 : 0) + cos * 2 - len * 0.01;
      if (score > bestScore) {
        bestScore = score;
        best = m;
      }
    };
    for (const m of neighbours[n] || []) consider(m, true);
    if (best === null) {
      for (const m of board.names) {
        const dx = pos[m].x - p.x;
        const dy = pos[m].y - p.y;
        const len = Math.hypot(dx, dy);
        if (!len || (dx * dir[0] + dy * dir[1]) / len < 0.7) continue;
        const score = 5 - len;
        if (score > bestScore) {
          bestScore = score;
          best = m;
        }
      }
    }
    return best;
  }

  function setCursor(n, focus) {
    if (!n || !hits[n]) return;
    if (cursor && hits[cursor] && cursor !== n) hits[cursor].setAttribute("tabindex", "-1");
    cursor = n;
    hits[n].setAttribute("tabindex", "0");
    if (cursorRing) {
      cursorRing.setAttribute("cx", pos[n].x);
      cursorRing.setAttribute("cy", pos[n].y);
    }
    if (focus) hits[n].focus();
  }

  svg.addEventListener("keydown", (e) => {
    const n = e.target && e.target.getAttribute && e.target.getAttribute("data-point");
    if (!n || !board) return;
    if (ARROWS[e.key]) {
      e.preventDefault();
      // (pos is in screen units, the board turned or not: the keys follow the screen)
      const next = stepFrom(n, ARROWS[e.key]);
      if (next) setCursor(next, true);
      else announce("no point further that way from " + n, false, true);
    } else if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      keyAct(n);
    } else if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      layAside();
    } else if (e.key === "Escape") {
      e.preventDefault();
      putBack();
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      setCursor(e.key === "Home" ? board.names[0] : board.names[board.names.length - 1], true);
    }
  });

  let liftedFrom = null; // the point the disk in the hand was lifted from by the keyboard

  function keyAct(n) {
    const piece = state && state.pieces[n];
    if (piece) {
      if (state.hand.length) {
        announce(n + " is taken: put the disk in your hand on an empty point, or Escape puts it back", false, true);
        return;
      }
      liftedFrom = n;
      const turn = (state.play && state.play.turn) || "";
      // A piece of the side not to move is lifted to take it off (a capture), not to move it.
      const taking = turn && piece.side !== "unknown" && sideWord(piece.side) !== turn;
      api("lift", { point: n })
        .then(() =>
          announce("lifted " + pieceWords(piece) + " from " + n + (taking ? ": Delete lays it beside the board" : movesFrom(n)), false, true)
        )
        .catch(() => {});
    } else if ((state && state.hand.length) || inflight) {
      const from = liftedFrom;
      api("place", { point: n, piece: selected })
        .then(() => {
          announce("put on " + n + capturesOf(from, n), false, true);
          liftedFrom = null;
        })
        .catch(() => {});
    } else {
      announce(n + " is empty and your hand is empty: go to a disk to lift it", false, true);
    }
  }

  function layAside() {
    if (!state || !state.hand.length) {
      announce("your hand is empty: nothing to lay beside the board", false, true);
      return;
    }
    const piece = state.hand.find((p) => p.id === selected) || state.hand[state.hand.length - 1];
    // Said at once: the move it completes is announced as soon as the board has it.
    announce("laid " + pieceWords(piece) + " beside the board", false, true);
    liftedFrom = null;
    api("discard", { piece: piece.id }).catch(() => {});
  }

  function putBack() {
    if (!state || !state.hand.length || !liftedFrom) return;
    const n = liftedFrom;
    api("place", { point: n, piece: selected })
      .then(() => {
        announce("put back on " + n, false, true);
        liftedFrom = null;
        setCursor(n, true);
      })
      .catch(() => {});
  }

  function sideWord(side) {
    return side ? side[0].toUpperCase() + side.slice(1) : "";
  }

  // "South piece", "North bow priest": a disk's name wherever it is.
  function pieceName(piece) {
    if (!piece || piece.side === "unknown") return "a disk";
    return sideWord(piece.side) + (piece.kind === "priest" ? " bow priest" : " piece");
  }

  function pieceWords(piece) {
    if (!piece || piece.side === "unknown") return "a disk";
    return "the " + sideWord(piece.side) + (piece.kind === "priest" ? " bow priest" : " piece");
  }

  // A move's text in words, as the host says it (zuniboard.play.speech.move_spoken).
  function moveSpoken(text) {
    if (text.startsWith("@")) return "a piece down on " + text.slice(1);
    const parts = text.split(/([-x])/);
    let out = parts[0];
    for (let i = 1; i + 1 < parts.length; i += 2) {
      out += parts[i] === "x" ? (i > 1 ? ", takes " : " takes ") + parts[i + 1] : " to " + parts[i + 1];
    }
    return out;
  }

  function legalFrom(n) {
    const legal = (state && state.play && state.play.legal) || [];
    return legal.filter((m) => m.startsWith(n + "-") || m.startsWith(n + "x"));
  }

  function movesFrom(n) {
    const mine = legalFrom(n);
    if (!state || !state.play || !state.play.legal) return "";
    if (!mine.length) return "; it has no legal move now";
    return "; it can play " + mine.map(moveSpoken).join(", or ");
  }

  // After a disk is put on ``to``, lifted from ``from``: the pieces the move takes, to lift
  // and lay beside the board (the move counts once they are gone).
  function capturesOf(from, to) {
    if (!from) return "";
    const mine = legalFrom(from).filter((m) => m.endsWith("-" + to));
    if (!mine.length) return "";
    const taken = new Set();
    for (const m of mine) {
      const parts = m.split(/[-x]/);
      const kinds = m.match(/[-x]/g) || [];
      kinds.forEach((k, i) => k === "x" && taken.add(parts[i + 1]));
    }
    if (!taken.size) return "";
    return "; take " + [...taken].join(" ") + " off: Enter on it lifts it, Delete lays it beside the board";
  }

  function pointLabel(n) {
    const piece = state && state.pieces[n];
    let label = n + ", " + (piece ? pieceName(piece) : "empty");
    const now = state && state.leds[n] && state.leds[n] !== "#000000" ? state.leds[n] : "";
    const seen = now || (pointSeen[n] && pointSeen[n][0]);
    if (seen) {
      const name = (board.palette && board.palette[seen]) || "";
      if (MEANING[name]) label += "; light: " + MEANING[name];
    }
    return label;
  }

  // -- what the game says: a live region, and the browser's speech when asked for -----------
  const announced = new Set(); // keys of the host's announcements said already
  let announcedOnce = false;
  window.zuniSaid = []; // everything announced, in order (what a screen reader hears)
  window.zuniSpoken = []; // what was handed to the browser's speech
  const SAID_KEPT = 12;

  function announce(text, cuts, local) {
    if (!text) return;
    window.zuniSaid.push(text);
    const list = $("announce");
    const li = document.createElement("li");
    li.textContent = text;
    if (local) li.className = "local";
    list.appendChild(li);
    while (list.children.length > SAID_KEPT) list.removeChild(list.firstChild);
    speak(text, cuts, "said");
  }

  let lastSpoken = "";
  function speak(text, cuts, kind) {
    if (!$("speak").checked) return;
    window.zuniSpoken.push(text);
    const synth = window.speechSynthesis;
    if (!synth) return;
    // A move cuts short what is still queued: speech never lags behind the board.
    if (cuts || (kind === "cursor" && lastSpoken === "cursor")) synth.cancel();
    lastSpoken = kind;
    const u = new SpeechSynthesisUtterance(text);
    u.lang = "en";
    synth.speak(u);
  }

  // Any other control reached by the keyboard says its name too, when the page speaks.
  document.addEventListener("focusin", (e) => {
    const t = e.target;
    if (!t || !t.closest || t.closest("#board")) return;
    let name = t.getAttribute("aria-label") || "";
    if (!name && t.labels && t.labels.length) name = t.labels[0].textContent.trim();
    if (!name) name = (t.textContent || "").trim();
    const what = t.tagName === "BUTTON" ? "button" : t.type === "checkbox" ? (t.checked ? "checkbox, checked" : "checkbox") : t.tagName === "INPUT" ? "text box" : "";
    const title = t.getAttribute("title") || "";
    // (a button's title starts with its name: "OK: end a chain here, ...")
    const more = title.startsWith(name + ":") ? title.slice(name.length + 1).trim() : title;
    if (name) speakCursor(name + (what ? ", " + what : "") + (more ? ": " + more : ""));
  });

  function speakCursor(text) {
    speak(text, false, "cursor");
  }

  function renderAnnouncements(s) {
    const list = (s.play && s.play.announce) || [];
    if (!announcedOnce) {
      // What was said before the page opened is not said again, but for the latest:
      // where the game stands (whose turn, the result).
      announcedOnce = true;
      for (const [key] of list) announced.add(key);
      if (list.length) announce(list[list.length - 1][1], false, false);
      return;
    }
    for (const [key, text, cuts] of list) {
      if (announced.has(key)) continue;
      announced.add(key);
      announce(text, cuts, false);
    }
  }

  function drawLines(g) {
    for (const line of board.lines) {
      const pts = line.map((n) => pos[n].x + "," + pos[n].y).join(" ");
      el("polyline", { class: "board-line", points: pts }, g);
    }
    for (const n of board.names) el("circle", { class: "board-dot", cx: pos[n].x, cy: pos[n].y, r: 0.075 }, g);
  }

  function drawSquares(g) {
    const homeOf = {};
    for (const side in board.homes) for (const n of board.homes[side]) homeOf[n] = side;
    board.names.forEach((n, i) => {
      const p = pos[n];
      const [c, r] = board.coords[i];
      const side = homeOf[n];
      const attrs = { x: p.x - 0.5, y: p.y - 0.5, width: 1, height: 1 };
      if (side) {
        attrs.class = "sq home";
        attrs.fill = DISK[side].face;
        attrs["fill-opacity"] = 0.28;
        el("rect", { x: attrs.x, y: attrs.y, width: 1, height: 1, fill: "#2b2017" }, g);
      } else {
        attrs.class = "sq " + ((c + r) % 2 === 0 ? "dark" : "light");
      }
      el("rect", attrs, g);
    });
  }

  // A light as a radial gradient (one per colour, made on first use): a soft glow that
  // costs far less to paint than a blur filter, which matters on phones and while blinking.
  function glowPaint(r, g, b) {
    const key = [r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("");
    if (!gradients.has(key)) {
      gradients.add(key);
      const grad = el("radialGradient", { id: "glow-" + key }, defs);
      const c = "#" + key;
      el("stop", { offset: "0%", "stop-color": c, "stop-opacity": 1 }, grad);
      el("stop", { offset: "55%", "stop-color": c, "stop-opacity": 0.95 }, grad);
      el("stop", { offset: "78%", "stop-color": c, "stop-opacity": 0.5 }, grad);
      el("stop", { offset: "100%", "stop-color": c, "stop-opacity": 0 }, grad);
    }
    return "url(#glow-" + key + ")";
  }

  // A disk as SVG (on the board, in the hand, in the tray, under the pointer).
  function diskShape(parent, piece, r) {
    const c = DISK[piece.side] || DISK.unknown;
    const g = el("g", { class: "disk", "data-id": piece.id, "data-side": piece.side, "data-kind": piece.kind }, parent);
    el("circle", { class: "face", r: r, fill: c.face, stroke: c.rim, "stroke-width": r * 0.12 }, g);
    el("circle", { class: "mark", r: r * 0.62, stroke: c.mark, "stroke-width": r * 0.09 }, g);
    if (piece.kind === "priest") {
      // The bow priest: a bow and its string.
      const s = r * 0.42;
      el("path", { d: "M " + -s * 0.5 + " " + -s + " Q " + s * 1.1 + " 0 " + -s * 0.5 + " " + s + " Z", fill: c.mark, stroke: c.mark, "stroke-width": r * 0.06 }, g);
    } else if (piece.side === "unknown") {
      const t = el("text", { "text-anchor": "middle", y: r * 0.3, "font-size": r * 0.9, fill: c.mark }, g);
      t.textContent = "?";
    }
    return g;
  }

  function chip(piece, source) {
    const s = document.createElementNS(SVGNS, "svg");
    s.setAttribute("viewBox", "-0.5 -0.5 1 1");
    s.setAttribute("class", "chip");
    s.setAttribute("data-id", piece.id);
    s.setAttribute("data-source", source);
    s.setAttribute("aria-label", pieceName(piece) + (source === "tray" ? ", beside the board: Enter takes it in your hand" : ", in your hand"));
    s.setAttribute("role", "button");
    s.setAttribute("tabindex", "0");
    diskShape(s, piece, 0.44);
    s.addEventListener("pointerdown", (e) => chipDown(e, piece, source));
    // Keyboard: Enter or Space picks a disk up from beside the board (a bow priest to
    // bring in) or chooses which disk in the hand goes down next.
    s.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      e.preventDefault();
      click({ source: source, piece: piece });
      if (source === "tray") announce("took " + pieceWords(piece) + " in your hand: go to a point on the board and press Enter", false, true);
    });
    return s;
  }

  // The page's high-contrast palette (GET /api/board's "contrast": colour name -> "#rrggbb").
  function contrastHex(hex) {
    if (!document.body.classList.contains("contrast") || !board.contrast || !board.palette) return "";
    return board.contrast[board.palette[hex]] || "";
  }

  // -- rendering a state ---------------------------------------------------------------
  function render(s) {
    if (board && (s.layout !== board.layout || s.ruleset !== board.ruleset)) {
      // Other rules, or another board behind the same address: draw it anew.
      state = s;
      loadBoard();
      return;
    }
    state = s;
    document.body.dataset.seq = s.seq;
    const pill = $("link-state");
    pill.dataset.state = s.connected ? "live" : "lost";
    pill.textContent = s.connected ? "board running" : "board stopped";

    for (const n of board.names) {
      const hex = s.leds[n] || "#000000";
      const g = glows[n];
      if (!g) continue;
      if (g.getAttribute("data-led") === hex) continue;
      g.setAttribute("data-led", hex);
      const r = parseInt(hex.slice(1, 3), 16);
      const gg = parseInt(hex.slice(3, 5), 16);
      const b = parseInt(hex.slice(5, 7), 16);
      const m = Math.max(r, gg, b);
      if (m === 0) {
        g.setAttribute("opacity", 0);
        continue;
      }
      // A screen cannot shine: show the hue at full strength and the LED's level as
      // the glow's opacity and size, so a dim light still reads as that colour.
      const k = Math.sqrt(m / 255);
      const full = (v) => Math.round((v * 255) / m);
      const strong = contrastHex(hex);
      if (strong) {
        // The high-contrast palette: each colour of the LED language as one that stays
        // apart from the others under red-green colour blindness (docs/leds.md).
        const [cr, cg, cb] = [1, 3, 5].map((i) => parseInt(strong.slice(i, i + 2), 16));
        g.setAttribute("fill", glowPaint(cr, cg, cb));
        g.setAttribute("opacity", 1);
        g.setAttribute("r", unit.glow.toFixed(3));
        continue;
      }
      g.setAttribute("fill", glowPaint(full(r), full(gg), full(b)));
      g.setAttribute("opacity", (0.55 + 0.45 * k).toFixed(2));
      g.setAttribute("r", (unit.glow * (0.8 + 0.2 * k)).toFixed(3));
    }

    const present = new Set();
    for (const n in s.pieces) {
      const piece = s.pieces[n];
      present.add(piece.id);
      let g = disks.get(piece.id);
      if (!g || g.getAttribute("data-side") !== piece.side || g.getAttribute("data-kind") !== piece.kind) {
        if (g) g.remove();
        g = diskShape(diskLayer, piece, unit.disk);
        disks.set(piece.id, g);
      }
      g.setAttribute("transform", "translate(" + pos[n].x + " " + pos[n].y + ")");
      g.setAttribute("data-point", n);
      g.classList.toggle("lifting", !!(drag && drag.started && drag.piece.id === piece.id));
    }
    for (const [id, g] of disks) {
      if (!present.has(id)) {
        g.remove();
        disks.delete(id);
      }
    }

    for (const n of board.names) hits[n].classList.toggle("target", s.hand.length > 0 && !s.pieces[n]);

    const panels = JSON.stringify([s.hand, s.tray, selected]);
    if (panels !== drawnPanels) {
      drawnPanels = panels;
      renderPanels(s);
    }
    renderMarks(s);
    renderStatus(s);
    renderLabels(s);
    renderAnnouncements(s);
  }

  // Each point's name for a screen reader: its name, what stands on it, what its light says.
  function renderLabels(s) {
    for (const n of board.names) {
      const label = pointLabel(n);
      if (hits[n].getAttribute("aria-label") !== label) hits[n].setAttribute("aria-label", label);
    }
  }

  let drawnMarks = "";
  function renderMarks(s) {
    const last = s.play && s.play.last;
    const shown = s.play && s.play.shown;
    const key = (last ? last.text + "|" + (s.play.moves || []).length : "") + "|" + (shown ? shown.text : "");
    if (key === drawnMarks || !markLayer) return;
    drawnMarks = key;
    markLayer.textContent = "";
    if (shown && shown.path.length > 1) {
      // The move the board shows (the computer's), drawn steadily while its LEDs flash.
      const pts = shown.path.filter((n) => pos[n]).map((n) => pos[n].x + "," + pos[n].y).join(" ");
      el("polyline", { class: "shown-path", points: pts, "data-move": shown.text }, markLayer);
      const end = pos[shown.path[shown.path.length - 1]];
      if (end) el("circle", { class: "shown-end", cx: end.x, cy: end.y, r: unit.disk * 0.45 }, markLayer);
    }
    if (!last) return;
    const r = unit.disk * 1.45;
    for (const n of [last.from, last.to]) {
      if (!n || !pos[n]) continue;
      el("circle", { class: "last-ring", cx: pos[n].x, cy: pos[n].y, r: r, "data-point": n }, markLayer);
    }
    for (const n of new Set(last.took || [])) {
      if (!pos[n] || n === last.to) continue;
      const p = pos[n];
      const d = unit.disk * 0.7;
      el("path", { class: "last-took", d: "M" + (p.x - d) + " " + (p.y - d) + "L" + (p.x + d) + " " + (p.y + d) + "M" + (p.x + d) + " " + (p.y - d) + "L" + (p.x - d) + " " + (p.y + d), "data-point": n }, markLayer);
    }
  }

  // The game clocks (docs/clocks.md): the board reports each side's time left when its
  // state changes (a move, a phase, the computer's move shown); the page counts the
  // running clock down from the moment the report arrived.
  let clockBase = { key: "", at: 0 };

  function clockText(ms) {
    if (ms <= 0) return "0:00";
    if (ms < 20000) {
      const tenths = Math.floor(ms / 100);
      return "0:" + String(Math.floor(tenths / 10)).padStart(2, "0") + "." + (tenths % 10);
    }
    const sec = Math.floor(ms / 1000);
    const h = Math.floor(sec / 3600);
    const m = Math.floor((sec % 3600) / 60);
    const ss = String(sec % 60).padStart(2, "0");
    return h ? h + ":" + String(m).padStart(2, "0") + ":" + ss : m + ":" + ss;
  }

  function renderClocks(s) {
    const st = (s && s.board) || {};
    const box = $("clocks");
    if (!st.tc || !st.clock) {
      box.hidden = true;
      return;
    }
    const key = [st.game, st.moves, st.phase, st.clock, st.running].join("|");
    if (key !== clockBase.key) clockBase = { key: key, at: Date.now() };
    const names = ["south", "west", "north", "east"];
    const left = String(st.clock).split(",");
    let html = "";
    names.forEach((side, i) => {
      if (left[i] === undefined || left[i] === "-") return;
      let ms = parseInt(left[i], 10);
      const running = st.running === side;
      if (running) ms -= Date.now() - clockBase.at;
      const cls = "clock" + (running ? " running" : "") + (ms <= 10000 ? " low" : "");
      html += '<span class="' + cls + '" data-side="' + side + '"><span class="who">' + side[0].toUpperCase() + side.slice(1) +
        '</span> <span class="time">' + clockText(ms) + "</span></span>";
    });
    box.hidden = false;
    setHtml("clocks", html);
  }
  setInterval(() => state && renderClocks(state), 100);

  function renderPlay(s) {
    renderClocks(s);
    const play = s.play || {};
    const st = s.board || {};
    let now = "";
    if (!s.connected) now = "<b>The virtual board is not running</b> (restarting?): the page reconnects by itself.";
    else if (play.result) now = '<b class="result">' + esc(play.result) + ".</b> Press <b>OK</b> to start a new game.";
    else if (play.showing) now = '<b class="showing">' + esc(play.showing) + "</b><br>The board shows it: carry it out (or watch it carried out).";
    else if (st.phase === "setup" && st.setup) {
      // A position set up one side at a time: the reed switches cannot tell the sides
      // apart, so the board asks for one side's pieces, then the next.
      const side = String(st.setup).charAt(0).toUpperCase() + String(st.setup).slice(1);
      now = "<b>Set up " + esc(side) + "'s pieces</b> on the points the board lights" +
        (play.setup ? " (" + esc(play.setup) + ")" : "") +
        ", then press <b>OK</b> (or wait a moment): the board takes one side at a time, as it cannot tell " +
        "the sides apart, and lights the next side's points after. <b>Set up the position</b> below puts every side down for you.";
    }
    else if (st.phase === "setup" && play.setup) now = "<b>Set up the pieces</b>: " + esc(play.setup) + " (the blinking points).";
    else if (st.phase === "setup") now = "<b>Set up the pieces</b>: the board is ready once every disk is in place.";
    else if (play.turn) now = "<b>" + esc(play.turn) + "</b> to move.";
    else if (st.phase) now = "The board is in its <b>" + esc(st.phase) + "</b> phase.";
    setHtml("now", now || "Waiting for the board…");
    const setupButton = $("btn-setup");
    if (setupButton) {
      const ofGame = st.phase === "setup" && (st.position || Number(st.moves) > 0);
      setupButton.textContent = ofGame ? "Set up the position" : "Set up the start position";
      setupButton.title = ofGame
        ? "Put every side's disks where the board's game wants them (the board takes one side at a time; this goes on until all are down)"
        : "Put every disk on its start point (wrong ones beside the board)";
    }
    const refusal = $("refusal");
    const why = play.refusal || "";
    refusal.hidden = !why;
    refusal.textContent = why ? "Not a legal move: " + why : "";
    // The host's hint (zuni play in this process): the move, and in an ending the
    // endgame table's verdict, for as long as the position is the one it was for.
    const hint = s.hint;
    const hinted = !!hint && !play.result && st.phase === "play" && Number(st.moves) === hint.moves;
    const said = $("hint-said");
    said.hidden = !hinted;
    said.textContent = hinted
      ? "Hint for " + hint.side + ": " + hint.move + (hint.words ? " (" + hint.words + ")" : "") +
        (hint.verdict ? ". Endgame table: " + hint.verdict + "." : "")
      : "";
    const last = $("last-move");
    last.hidden = !(play.last && play.last.words);
    last.textContent = play.last ? "Last move: " + play.last.words : "";
    // The move list in rounds: "1." and each side's move of the round, the last marked.
    const list = play.moves || [];
    const per = play.per || 2;
    const moves = $("moves");
    moves.style.setProperty("--per", per);
    let html = "";
    list.forEach((m, i) => {
      if (i % per === 0) html += '<span class="num">' + (i / per + 1) + ".</span>";
      html += '<span class="mv' + (i === list.length - 1 ? " last" : "") + '">' + esc(m) + "</span>";
    });
    if (!list.length) html = '<span class="empty-note">none yet</span>';
    if (play.lost) html += '<span class="empty-note">(the page lost track of the moves: the board has ' + esc((s.board || {}).moves) + ")</span>";
    const before = moves.innerHTML;
    setHtml("moves", html);
    if (moves.innerHTML !== before) moves.scrollTop = moves.scrollHeight;
    renderReplay(s, per);
    renderLesson(s);
    renderLines(s, play);
    renderReview(play);
    renderRemote(s);
    renderLobby(s);
  }

  // "Play someone remotely" on the page of a plain `zuni play` (docs/remote.md, "From
  // the page"): a new remote game or one joined with its invite code. The lobby works
  // in the background; its progress (the code, who joined) or its error comes back in
  // the state as remote_lobby. Once every seat is taken the remote panel takes over.
  let lobbyFilled = false;
  let lobbyRefused = ""; // why the page's last lobby request was refused, until the next
  function renderLobby(s) {
    const l = s.remote_lobby;
    const panel = $("lobby-panel");
    panel.hidden = !l || !s.remote_start || !!s.remote;
    if (panel.hidden) return;
    if (!lobbyFilled) {
      lobbyFilled = true;
      $("lobby-name").value = l.name || "";
      $("lobby-ruleset").value = l.ruleset || "";
    }
    $("lobby-broker").textContent = l.broker || "";
    const busy = l.state === "asking" || l.state === "waiting" || l.state === "ready";
    for (const id of ["btn-lobby-new", "btn-lobby-join"]) $(id).disabled = busy;
    $("lobby-form").hidden = busy;
    $("lobby-wait").hidden = !l.code;
    $("btn-lobby-cancel").hidden = l.state !== "waiting";
    $("lobby-code-shown").textContent = l.code || "";
    $("lobby-invite").textContent = l.invite || "";
    setHtml("lobby-joined", (l.joined || []).map((j) => "<li>" + esc(j) + "</li>").join(""));
    $("lobby-said").textContent = l.said || "";
    // The lobby's own error, else this page's last request refused: that refusal
    // changed nothing on the server, so its state has no word of it, and each state
    // that came after it (the computer's move, a clock) wiped it before it was read.
    const text = l.error || lobbyRefused;
    const err = $("lobby-error");
    err.hidden = !text;
    err.textContent = text;
  }

  // A remote game (zuni play --remote, docs/remote.md): the invite code to pass on, the
  // seats and whether their players are connected, an offer to agree to or decline, a
  // seat gone too long (claim the win or a draw). The buttons type the same lines as
  // the terminal (yes, no, claim, draw) to the same game controller.
  const OFFER_WORDS = { draw: "a draw", count: "to end by counting", takeback: "to take back their last move" };
  function renderRemote(s) {
    const r = s.remote;
    $("remote-panel").hidden = !r;
    if (!r) return;
    $("remote-code").textContent = r.code;
    $("remote-invite").textContent = r.invite || "zuni play --remote " + r.code;
    const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);
    const who = (seat) => {
      const found = (r.seats || []).find((x) => x.seat === seat);
      return cap(seat) + (found && found.name ? " (" + found.name + ")" : "");
    };
    setHtml("remote-seats", (r.seats || []).map((x) => {
      const status = x.seat === r.seat ? "you" : !x.joined ? "not joined yet" : x.gone ? "gone" :
        x.here === false ? "connection lost: the game waits for them" : "connected";
      const cls = x.seat === r.seat ? "me" : x.gone || x.here === false ? "away" : "here";
      return '<li class="' + cls + '" data-seat="' + esc(x.seat) + '"><b>' + esc(who(x.seat)) + "</b>: " + esc(status) + "</li>";
    }).join(""));
    const offer = r.offer;
    const offerBox = $("remote-offer");
    offerBox.hidden = !offer || !!r.result;
    if (offer) {
      const words = OFFER_WORDS[offer.what] || offer.what;
      setHtml("remote-offer", offer.asked
        ? "<b>" + esc(who(offer.by)) + "</b> offers " + esc(words) + ': <button class="small" data-line="yes">Agree</button> ' +
          '<button class="small" data-line="no">Decline</button>'
        : offer.by === r.seat ? "You offered " + esc(offer.what === "takeback" ? "to take back your last move" : words) +
          ": waiting for the others' answer" : esc(who(offer.by)) + " offers " + esc(words) + ": waiting for the others");
    }
    const gone = (r.seats || []).filter((x) => x.gone && x.seat !== r.seat);
    const goneBox = $("remote-gone");
    goneBox.hidden = !gone.length || !!r.result;
    if (gone.length) {
      setHtml("remote-gone", esc(gone.map((x) => who(x.seat)).join(", ")) + " gone too long: " +
        '<button class="small" data-line="claim">Claim the win</button> <button class="small" data-line="draw">Claim a draw</button> or wait.');
    }
    $("remote-note").textContent = r.note ? "Referee: " + r.note : "";
  }

  // Lines typed on the page go to the game controller of `zuni play` (POST /api/line),
  // the same one the terminal's lines go to; what it answered is listed under them.
  function renderLines(s, play) {
    const panel = $("line-panel");
    panel.hidden = !s.lines;
    if (!s.lines) return;
    const legal = (play.legal || []).map((m) => '<option value="' + esc(m) + '">').join("");
    setHtml("legal", legal);
    // The example is a move of this game (Awithlaknakwe has no s3xm4-m5), its shortest:
    // a fixed long one was cut off in the narrow box on a phone and even on a desktop.
    const shortest = (play.legal || []).reduce((a, m) => (!a || m.length < a.length ? m : a), "");
    const example = shortest ? "e.g. " + shortest + ", hint" : "a move, or hint";
    const box = $("line");
    if (box.placeholder !== example) box.placeholder = example;
    const said = (play.said || []).slice(-4);
    setHtml("said", said.map(([tone, text]) => '<li class="' + esc(tone) + '">' + esc(text) + "</li>").join(""));
  }

  // Help per seat and the grades of the people's moves (zuni play --assist): during the
  // game the help levels, hints left and the mistakes so far; after it, the review:
  // each side's grades counted and every graded move, the mistakes first.
  function renderReview(play) {
    const review = play.review || { counts: {}, moves: [] };
    const help = play.help || {};
    const helped = Object.entries(help).filter(([, h]) => h.level !== "hints" || h.hints_left !== null);
    const over = !!play.result;
    const panel = $("review-panel");
    panel.hidden = !helped.length && !review.moves.length;
    if (panel.hidden) return;
    $("review-head").textContent = over ? "Review of the game" : "Help and grades";
    setHtml(
      "help-levels",
      helped
        .map(([side, h]) => esc(side) + ": help " + esc(h.level) + (h.hints_left === null ? "" : ", " + h.hints_left + " hints left"))
        .join(" · ")
    );
    setHtml(
      "review-counts",
      Object.entries(review.counts)
        .map(([side, c]) => esc(side) + ": " + Object.entries(c).filter(([, n]) => n).map(([g, n]) => n + " " + esc(g)).join(", "))
        .join(" · ")
    );
    const rank = (m) => (m.grade === "mistake" || m.grade === "blunder" ? 0 : 1); // mistakes first
    const shown = over ? review.moves.slice().sort((a, b) => rank(a) - rank(b) || a.index - b.index) : review.moves.filter((m) => rank(m) === 0);
    setHtml(
      "review-moves",
      shown
        .map((m) => '<li class="grade-' + esc(m.grade) + '">' + (m.index + 1) + ". " + esc(m.side) + " " + esc(m.move) + ": <b>" + esc(m.grade) + "</b>, " + esc(m.words) + "</li>")
        .join("")
    );
  }

  // A lesson (zuni learn) or a puzzle (zuni puzzle) in the same process: the step, its
  // rule and task, and what the lesson said last (a wrong attempt's explanation).
  function renderLesson(s) {
    const l = s.lesson;
    $("lesson-panel").hidden = !l;
    if (!l) return;
    setHtml("lesson-head", esc(l.course) + ": " + esc(l.title) + ' <span class="empty-note">(' + esc(l.step) + " of " + esc(l.of) + ")</span>");
    setHtml("lesson-rule", esc(l.rule));
    setHtml("lesson-task", "<b>Task:</b> " + esc(l.task));
    const said = (l.said || []).slice(-4);
    setHtml("lesson-said", said.map(([tone, text]) => '<li class="' + esc(tone) + '">' + esc(text) + "</li>").join(""));
  }

  // A replay (zuni log replay) in the same process: the game's moves, the current one
  // (the move OK shows next) marked, and the computer's view of it (docs/replay.md).
  function renderReplay(s, per) {
    const r = s.replay;
    $("replay-panel").hidden = !r;
    if (!r) return;
    setHtml("replay-head", "Game #" + esc(r.game_id) + " (" + esc(r.ruleset) + "): move " + esc(r.ply) + " of " + esc(r.moves.length) +
      (r.showing ? " &mdash; the board shows <b>" + esc(r.showing) + "</b>" : ""));
    let html = "";
    r.moves.forEach((m, i) => {
      if (i % per === 0) html += '<span class="num">' + (i / per + 1) + ".</span>";
      html += '<span class="mv' + (i === r.ply ? " last current" : "") + '"' + (i === r.ply ? ' aria-current="step"' : "") + ">" + esc(m) + "</span>";
    });
    setHtml("replay-moves", html || '<span class="empty-note">no moves</span>');
    const a = $("replay-analysis");
    a.hidden = !r.analysis;
    a.textContent = r.analysis ? "The computer's view: " + r.analysis : "";
  }

  function esc(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  }

  function renderPanels(s) {
    // The hand.
    const hand = $("hand");
    hand.textContent = "";
    if (!s.hand.some((p) => p.id === selected)) selected = s.hand.length ? s.hand[s.hand.length - 1].id : null;
    for (const piece of s.hand) {
      const c = chip(piece, "hand");
      if (piece.id === selected) c.classList.add("selected");
      hand.appendChild(c);
    }
    if (!s.hand.length) {
      const note = document.createElement("span");
      note.className = "empty-note";
      note.textContent = "empty";
      hand.appendChild(note);
    }
    $("btn-discard").disabled = !s.hand.length;

    // The tray, one row per side.
    const tray = $("tray");
    tray.textContent = "";
    const bySide = {};
    for (const piece of s.tray) (bySide[piece.side] = bySide[piece.side] || []).push(piece);
    const sides = SIDE_ORDER.filter((side) => bySide[side] || board.sides.includes(side));
    for (const side of sides) {
      const row = document.createElement("div");
      row.className = "tray-row";
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = side;
      row.appendChild(who);
      for (const piece of bySide[side] || []) row.appendChild(chip(piece, "tray"));
      if (!(bySide[side] || []).length) {
        const note = document.createElement("span");
        note.className = "empty-note";
        note.textContent = "none";
        row.appendChild(note);
      }
      tray.appendChild(row);
    }

  }

  // What each colour of the firmware's palette says (by name: /api/board gives the
  // palette of firmware/lib/zuni_board/leds.py), for the "lights now" line: the page
  // reads the lights to the player (docs/leds.md).
  const MEANING = {
    white: "a disk belongs here",
    "dim-white": "a disk in its place",
    blue: "the disk to move",
    green: "where the disk goes",
    "dim-green": "a point the chain passes",
    orange: "a captured disk",
    red: "a mistake: put it right",
    magenta: "where the bow priest may enter",
    "dim-yellow": "South's side to move: its disks that may move",
    "dim-cyan": "North's side to move: its disks that may move",
    yellow: "South's side",
    cyan: "North's side",
  };
  // A blinking point is dark between its flashes: its colour still counts while it is,
  // for at most BLINK_MEMORY_MS, and only as long as the board's state is the same. A
  // point lit in another colour, or any change of the state (a move, a phase, an error
  // shown or cleared), forgets the old colours at once, so the line lists the frame
  // shown now and nothing from before.
  const BLINK_MEMORY_MS = 1200;
  let pointSeen = {}; // point -> [colour, time it was last lit]
  let seenFor = "";

  function lightsNow(s) {
    const now = Date.now();
    const st = s.board || {};
    const key = [st.game, st.phase, st.turn, st.moves, st.error, st.hostmove, st.result].join("|");
    if (key !== seenFor) {
      seenFor = key;
      pointSeen = {};
    }
    const colours = new Set();
    for (const n of board.names) {
      const c = s.leds[n];
      if (c && c !== "#000000") {
        pointSeen[n] = [c, now];
        colours.add(c);
      } else if (pointSeen[n] && now - pointSeen[n][1] <= BLINK_MEMORY_MS) {
        colours.add(pointSeen[n][0]);
      } else {
        delete pointSeen[n];
      }
    }
    const out = [];
    const order = Object.keys(MEANING);
    const nameOf = (c) => (board.palette && board.palette[c]) || c;
    const rank = (c) => (order.indexOf(nameOf(c)) < 0 ? order.length : order.indexOf(nameOf(c)));
    for (const c of [...colours].sort((a, b) => rank(a) - rank(b))) {
      out.push('<span class="light"><i class="sw" style="--c:' + c + '"></i>' + (MEANING[nameOf(c)] || "a light " + nameOf(c)) + "</span>");
    }
    return out;
  }

  function renderStatus(s) {
    const onBoard = Object.keys(s.pieces).length;
    const lights = lightsNow(s);
    let text = lights.length ? '<div class="lights">' + lights.join("") + "</div>" : '<div class="lights">All lights off.</div>';
    text += '<div class="counts"><b>' + onBoard + "</b> disks on the board, <b>" + s.hand.length + "</b> in your hand, <b>" + s.tray.length + "</b> beside it.</div>";
    renderPlay(s);
    setHtml("status-text", text);
    const err = $("error-text");
    // The board's refusal is said in the rule's words above; here only what the page's
    // own actions were refused.
    // The LED supply's fault first: while it lasts the board's LEDs stay dark.
    const fault = s.board && s.board.fault === "led-supply" ? "The LED supply switched off: too much current (short on the LED line?)" : "";
    const msg = fault || (s.play && s.play.refusal ? "" : (s.board && s.board.error ? String(s.board.error).replace(/_/g, " ") : "") || s.last_error);
    err.hidden = !msg;
    err.textContent = msg || "";

    $("game-title").textContent = (s.title || board.title) + " · " + s.ruleset;
    let info = "Layout <code>" + s.layout + "</code> · rules <code>" + s.ruleset + "</code>";
    if (s.link) info += " · serial port <code>" + s.link + "</code>";
    setHtml("info", info);
  }

  function setHtml(id, html) {
    const node = $(id);
    if (node.innerHTML !== html) node.innerHTML = html;
  }

  // -- the hand: clicks and drags --------------------------------------------------------
  function pointDown(e, n) {
    if (e.button !== undefined && e.button !== 0) return;
    e.preventDefault();
    const piece = state && state.pieces[n];
    startPointer(e, piece ? { source: "board", point: n, piece: piece } : { source: "point", point: n, piece: null });
  }

  function chipDown(e, piece, source) {
    if (e.button !== undefined && e.button !== 0) return;
    e.preventDefault();
    startPointer(e, { source: source, piece: piece });
  }

  function startPointer(e, d) {
    d.x0 = e.clientX;
    d.y0 = e.clientY;
    d.started = false;
    d.pointerId = e.pointerId;
    drag = d;
    window.addEventListener("pointermove", pointerMove);
    window.addEventListener("pointerup", pointerUp);
    window.addEventListener("pointercancel", pointerCancel);
  }

  function stopListening() {
    window.removeEventListener("pointermove", pointerMove);
    window.removeEventListener("pointerup", pointerUp);
    window.removeEventListener("pointercancel", pointerCancel);
  }

  function pointerMove(e) {
    if (!drag || e.pointerId !== drag.pointerId) return;
    if (!drag.started) {
      if (!drag.piece || Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) < 7) return;
      drag.started = true;
      // The disk leaves the board (or the tray) the moment it is dragged, as on wood.
      if (drag.source === "board") {
        api("lift", { point: drag.point }).catch(() => {});
        const g = disks.get(drag.piece.id);
        if (g) g.classList.add("lifting");
      } else if (drag.source === "tray") {
        api("take", { piece: drag.piece.id }).catch(() => {});
      }
      drag.ghost = makeGhost(drag.piece);
    }
    moveGhost(drag.ghost, e.clientX, e.clientY);
    highlightZone(e.clientX, e.clientY);
  }

  function makeGhost(piece) {
    const s = document.createElementNS(SVGNS, "svg");
    s.setAttribute("viewBox", "-0.5 -0.5 1 1");
    s.setAttribute("class", "ghost");
    const rect = svg.getBoundingClientRect();
    const vb = svg.viewBox.baseVal;
    const px = Math.max(36, (2 * unit.disk * rect.width) / vb.width + 6);
    s.style.cssText = "position:fixed;left:0;top:0;width:" + px + "px;height:" + px + "px;z-index:10";
    diskShape(s, piece, 0.46);
    document.body.appendChild(s);
    return s;
  }

  function moveGhost(g, x, y) {
    const w = g.getBoundingClientRect().width;
    g.style.transform = "translate(" + (x - w / 2) + "px," + (y - w / 2) + "px)";
  }

  function zoneAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    if (!hit) return null;
    const p = hit.closest("[data-point]");
    if (p && p.classList.contains("hit")) return { point: p.getAttribute("data-point") };
    const z = hit.closest(".drop-zone");
    if (z) return { zone: z.getAttribute("data-zone") };
    return null;
  }

  function highlightZone(x, y) {
    const z = zoneAt(x, y);
    document.querySelectorAll(".drop-zone").forEach((d) => d.classList.toggle("over", !!(z && z.zone === d.getAttribute("data-zone"))));
  }

  function endDrag() {
    if (drag && drag.ghost) drag.ghost.remove();
    document.querySelectorAll(".drop-zone.over").forEach((d) => d.classList.remove("over"));
    drag = null;
    stopListening();
  }

  function pointerCancel(e) {
    if (drag && e.pointerId === drag.pointerId) endDrag();
  }

  function pointerUp(e) {
    if (!drag || e.pointerId !== drag.pointerId) return;
    const d = drag;
    const z = d.started ? zoneAt(e.clientX, e.clientY) : null;
    endDrag();
    if (!d.started) return click(d);
    if (z && z.point) {
      const free = !state.pieces[z.point] || z.point === d.point;
      if (free) api("place", { point: z.point, piece: d.piece.id }).catch(() => {});
      else toast(z.point + " is occupied: the disk stays in your hand");
    } else if (z && z.zone === "tray") {
      api("discard", { piece: d.piece.id }).catch(() => {});
    }
    // Dropped anywhere else: the disk stays in the hand.
  }

  function click(d) {
    if (d.source === "board") {
      api("lift", { point: d.point })
        .then(() => (liftedAt = Date.now()))
        .catch(() => {});
    } else if (d.source === "point") {
      // A lift still on its way counts: the disk will be in the hand when this arrives. So
      // does one answered in the last seconds whose state the page has not heard yet (the
      // server's push can come after its reply: fast hands lost the place).
      const lifting = inflight || Date.now() - liftedAt < LIFT_HEARD_MS;
      if ((state && state.hand.length) || lifting) api("place", { point: d.point, piece: selected }).catch(() => {});
      else toast("Your hand is empty: click a disk to lift it first");
    } else if (d.source === "hand") {
      selected = d.piece.id;
      if (state) render(state);
    } else if (d.source === "tray") {
      api("take", { piece: d.piece.id })
        .then(() => (selected = d.piece.id))
        .catch(() => {});
    }
  }

  // -- buttons ---------------------------------------------------------------------------
  document.querySelectorAll("[data-button]").forEach((b) =>
    b.addEventListener("click", () => api("press", { button: b.getAttribute("data-button") }).catch(() => {}))
  );
  $("btn-discard").addEventListener("click", () => api("discard", { piece: selected }).catch(() => {}));
  $("btn-setup").addEventListener("click", () => api("setup", {}).catch(() => {}));
  $("show-names").addEventListener("change", (e) => document.body.classList.toggle("no-names", !e.target.checked));
  // The page's own settings, kept in the browser for the next visit.
  function setting(id, apply) {
    const box = $(id);
    try {
      box.checked = localStorage.getItem("zuni-" + id) === "1" || box.checked;
    } catch (e) {}
    apply(box.checked);
    box.addEventListener("change", () => {
      try {
        localStorage.setItem("zuni-" + id, box.checked ? "1" : "0");
      } catch (e) {}
      apply(box.checked);
    });
  }
  setting("speak", (on) => {
    if (!on && window.speechSynthesis) window.speechSynthesis.cancel();
  });
  setting("contrast", (on) => {
    document.body.classList.toggle("contrast", on);
    for (const n in glows) glows[n].setAttribute("data-led", ""); // repaint every light
    if (board && state) render(state);
  });

  $("remote-panel").addEventListener("click", (e) => {
    const button = e.target.closest("button[data-line]");
    if (button) api("line", { text: button.dataset.line }).catch(() => {});
  });
  $("btn-copy-code").addEventListener("click", () => {
    const code = $("remote-code").textContent;
    const copied = () => toast("Invite code " + code + " copied");
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(code).then(copied, () => selectCode());
    } else selectCode();
  });
  function selectCode() {
    // No clipboard here (an old browser): the code is selected for Ctrl-C.
    const range = document.createRange();
    range.selectNodeContents($("remote-code"));
    const sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    toast("Press Ctrl-C (or Cmd-C) to copy the selected code");
  }

  function lobby(body) {
    body.name = $("lobby-name").value.trim();
    lobbyRefused = "";
    // A refusal shows as the page's toast and in the lobby's box (it changes nothing),
    // and stays there until the next request.
    api("remote", body).catch((e) => {
      lobbyRefused = e.message;
      const err = $("lobby-error");
      err.hidden = false;
      err.textContent = e.message;
    });
  }
  $("btn-lobby-new").addEventListener("click", () =>
    lobby({ do: "new", ruleset: $("lobby-ruleset").value.trim(), clock: $("lobby-clock").value.trim() }));
  $("btn-lobby-join").addEventListener("click", () => lobby({ do: "join", code: $("lobby-code").value.trim() }));
  $("btn-lobby-cancel").addEventListener("click", () => api("remote", { do: "cancel" }).catch(() => {}));
  $("lobby-form").addEventListener("submit", (e) => e.preventDefault());

  $("line-panel").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("line");
    const text = input.value.trim();
    if (!text) return;
    // Cleared once the board took it, unless the person has typed the next line meanwhile
    // (the reply can come after the move it caused is announced: fast hands lost a line).
    api("line", { text }).then(() => {
      if (input.value.trim() === text) input.value = "";
    }, () => {});
  });

  // -- start -----------------------------------------------------------------------------
  function connect() {
    const es = new EventSource("/api/events");
    es.addEventListener("state", (e) => render(JSON.parse(e.data)));
    es.onerror = () => {
      const pill = $("link-state");
      pill.dataset.state = "lost";
      pill.textContent = "page server gone: retrying…";
    };
  }

  let loading = null;
  function loadBoard() {
    if (loading) return loading;
    loading = fetch("/api/board")
      .then((r) => r.json())
      .then((b) => {
        board = b;
        $("game-title").textContent = b.title + " · " + b.ruleset;
        document.title = b.title + " · zuniboard virtual board";
        draw();
      })
      .catch((e) => toast("cannot load the board: " + e))
      .finally(() => (loading = null));
    return loading;
  }

  // A light that went out with nothing else changing leaves the "lights now" line too.
  setInterval(() => {
    if (!board || !state) return;
    renderStatus(state);
    renderLabels(state);
  }, 500);

  loadBoard().then(() => {
    window.addEventListener("resize", () => {
      if (!board) return;
      if (tooLongForPhone(bounds()) !== rotated) draw();
    });
    connect();
  });
})();
