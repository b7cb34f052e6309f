// The firmware's heap on a 32-bit MicroPython: the WebAssembly port from npm
// (@micropython/micropython-webassembly-pyscript, installed by tools/ensure_wasm.sh) under
// Node. Plays one scripted game through tools/bench_firmware_runner.py's Bench, the
// firmware imported from .mpy as on the board, and prints one line
// "WASM {json}" of live-heap figures in bytes (after gc.collect):
//
//   node tools/bench_firmware_wasm.mjs LIBDIR LAYOUT.json RULESET MOVES.txt [HINT_EVERY]
//
// With HINT_EVERY the player presses HINT before every HINT_EVERY-th move and waits for
// the board's own hint (zuni_board.hint), each scan while it thinks a call of its own,
// so that the heap the search holds is measured too (hint_peak).
//
// This port's garbage collector cannot see garbage while a Python call is still running
// (its conservative scan of the WebAssembly stack keeps it), so every step of the game is
// its own top-level call and the heap is measured between them. Its heap also grows by
// itself, so there is no smallest heap to bisect: these are the heap in use.
import fs from "fs";
import path from "path";
import { createRequire } from "module";

const [libDir, layoutPath, ruleset, movesPath, hintArg] = process.argv.slice(2);
const hintEvery = parseInt(hintArg || "0");
const here = path.dirname(new URL(import.meta.url).pathname);
const pkg = process.env.ZUNI_WASM_MICROPYTHON ||
  path.join(here, ".wasm", "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs");
const { loadMicroPython } = await import(pkg);

let captured = "";
const mp = await loadMicroPython({
  heapsize: 512 * 1024,
  stdout: (t) => { captured += t + "\n"; },
  stderr: (t) => process.stderr.write(t + "\n"),
  linebuffer: true,
});

function copyTree(src, dst) {
  try { mp.FS.mkdir(dst); } catch (e) { /* exists */ }
  for (const name of fs.readdirSync(src)) {
    const s = path.join(src, name);
    const d = dst + "/" + name;
    if (fs.statSync(s).isDirectory()) copyTree(s, d);
    else mp.FS.writeFile(d, fs.readFileSync(s));
  }
}
copyTree(libDir, "/lib");
mp.FS.mkdir("/data");
mp.FS.mkdir("/data/journal");
mp.FS.writeFile("/data/layout.json", fs.readFileSync(layoutPath));
const spec = { layout: "/data/layout.json", ruleset: ruleset, moves: "", journal: "/data/journal" };
// ZUNI_WASM_CLOCK: the game as a host starts it ("new"), on that time control ("": none),
// for the clocks' heap (docs/clocks.md).
if (process.env.ZUNI_WASM_CLOCK !== undefined) spec.clock = process.env.ZUNI_WASM_CLOCK;
const moves = fs.readFileSync(movesPath, "utf8").split("\n").map((l) => l.trim()).filter((l) => l);

function run(code) {
  captured = "";
  mp.runPython(code);
  return captured;
}
function heap() {
  const out = run("gc.collect()\nprint(gc.mem_alloc())");
  return parseInt(out.trim().split("\n").pop());
}

run("import gc, sys, json\nsys.path.insert(0, '/lib')");
const start = heap();
run("import bench_firmware_runner as R");
// Counted from before the runner, as the unix port's figures are (its _BASE is taken as
// the runner starts loading), so that both include the runner's own few KB alike.
const base = start;
run("layout = R.load_board('/data/layout.json')");
const layout = heap() - base;
run("import zuni");
const engine = heap() - base;
run("from zuni_board.app import BoardApp\nR.load_code()");
const code = heap() - base;
run("B = R.Bench(json.loads(" + JSON.stringify(JSON.stringify(spec)) + "), layout)\ndel layout");
const app = heap() - base;
run("B.setup()");
let peak = heap() - base;
let hintPeak = 0;
for (let i = 0; i < moves.length; i++) {
  if (hintEvery && i % hintEvery === 0 &&
      run("print(len(B.app.game.move_stack) == " + i + " and B.hint_begin())").trim() === "True") {
    for (;;) {
      const used = heap() - base;
      if (used > hintPeak) hintPeak = used;
      if (run("print(B.hint_cycle())").trim() !== "True") break;
    }
    run("B.hint_end()");
  }
  run("B.play(" + i + ", " + JSON.stringify(moves[i]) + ")");
  const used = heap() - base;
  if (used > peak) peak = used;
}
const committed = parseInt(run("print(len(B.app.game.move_stack))").trim());
const info = run("import sys\nprint(sys.maxsize, sys.implementation._machine)").trim();
console.log("WASM " + JSON.stringify({
  moves: committed, layout: layout, engine_code: engine, app_code: code, app: app,
  peak: Math.max(peak, hintPeak), hint_peak: hintPeak,
  port: info,
}));
