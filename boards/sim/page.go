package sim

// PageHTML is the live page. It polls the screen with If-None-Match so an
// idle screen costs a 304, and measures how long a button is held so a
// press on the page is a real short or long press.
const PageHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Claude_Pi · sim board</title>
<style>
 body { font: 15px system-ui, sans-serif; background: #1b1b1f; color: #ddd; margin: 2em; }
 /* A 390 px phone shows the whole device: the screen shrinks, nothing scrolls sideways. */
 @media (max-width: 600px) { body { margin: 8px; } h1 { font-size: 22px; } }
 .device { display: block; width: fit-content; max-width: 100%; box-sizing: border-box; background: #333; padding: 18px; border-radius: 14px; }
 @media (max-width: 600px) { .device { padding: 10px; } }
 #screen { width: 480px; max-width: 100%; height: auto; aspect-ratio: auto 1; image-rendering: pixelated; display: block; background: #000; }
 .buttons { display: flex; gap: 12px; margin-top: 14px; }
 button { flex: 1; min-width: 0; font-size: 18px; padding: 10px; border-radius: 8px; border: 0; cursor: pointer; }
 #A { background: #2e7d32; color: #fff; } #B { background: #c62828; color: #fff; }
 #X, #Y { background: #555; color: #fff; }
 button:active { filter: brightness(0.8); }
 pre { background: #111; padding: 1em; max-width: 60em; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
 .hint { color: #999; }
 .asleep { color: #fc6; max-width: 480px; }
</style>
</head>
<body>
<h1>Claude_Pi <span class="hint">sim board</span></h1>
<div class="device">
 <img id="screen" src="/api/screen.png" alt="the appliance's display">
 <p id="asleep" class="asleep" hidden>asleep: the screen switched off after its timeout ([ui] screen_timeout). Press any button to wake it.</p>
 <div class="buttons">
  <button id="A" title="approve (hold for a long press; key a)">A</button>
  <button id="B" title="deny (hold for a long press; key b)">B</button>
  <button id="X" title="next page: of a prompt, or of the info pages (key x)">X</button>
  <button id="Y" title="previous page: of a prompt, or of the info pages, then home (key y)">Y</button>
 </div>
</div>
<p class="hint">Click for a short press; hold 0.5 s or longer for a long press. Keys a, b, x and y work too.</p>
<p id="last" class="hint"></p>
<p id="layout" hidden></p>
<h2>State</h2>
<pre id="state">loading…</pre>
<script>
// ?phone=390 shows the page in a 390 px wide frame, as a phone would, and
// copies what the framed page reports (its title, its last press, its
// layout) out here, where the headless-browser test reads them.
const params = new URLSearchParams(location.search);
if (params.has('phone')) phonePreview(); else run();

function phonePreview() {
  const inner = new URLSearchParams(params);
  const width = inner.get('phone');
  inner.delete('phone');
  document.body.innerHTML = '<p id="layout"></p><p id="last"></p>';
  const f = document.createElement('iframe');
  f.src = '/?' + inner.toString();
  f.style.cssText = 'width:' + width + 'px;height:844px;border:1px solid #555';
  document.body.appendChild(f);
  setInterval(() => {
    const d = f.contentDocument;
    if (!d || !d.getElementById('layout')) return;
    document.title = d.title;
    document.getElementById('layout').textContent = d.getElementById('layout').textContent;
    document.getElementById('last').textContent = d.getElementById('last').textContent;
  }, 100);
}

function run() {
const down = {};
function start(name) { if (!(name in down)) down[name] = performance.now(); }
async function release(name) {
  if (!(name in down)) return;
  const hold = Math.round(performance.now() - down[name]);
  delete down[name];
  const r = await fetch('/api/press/' + name + '?hold=' + hold, {method: 'POST'});
  const j = await r.json();
  document.getElementById('last').textContent = r.ok
    ? 'pressed ' + j.button + (j.long ? ' (long, ' : ' (short, ') + j.hold_ms + ' ms)'
    : 'error: ' + j.error;
}
const keys = ['a', 'b', 'x', 'y'];
for (const name of ['A', 'B', 'X', 'Y']) {
  const b = document.getElementById(name);
  b.addEventListener('pointerdown', () => start(name));
  b.addEventListener('pointerup', () => release(name));
  b.addEventListener('pointerleave', () => release(name));
}
document.addEventListener('keydown', e => { if (!e.repeat && keys.includes(e.key)) start(e.key.toUpperCase()); });
document.addEventListener('keyup', e => { if (keys.includes(e.key)) release(e.key.toUpperCase()); });

// ?autopress=A clicks A once, the way a user does (pointer down, pointer
// up on the button), as soon as a prompt waits for a decision: the
// headless-browser test drives the page through it.
const autopress = params.get('autopress');
let autopressed = false;
function maybeAutopress(st) {
  if (!autopress || autopressed || !st.prompt || st.prompt.decided) return;
  const b = document.getElementById(autopress);
  if (!b) return;
  autopressed = true;
  b.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
  b.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));
  document.title = 'autopressed ' + autopress;
}

// What the page measures of its own layout, for the headless-browser
// test: the document must not be wider than the window.
function measure() {
  const img = document.getElementById('screen');
  document.getElementById('layout').textContent = 'page ' + document.documentElement.scrollWidth +
    ' window ' + innerWidth + ' screen ' + Math.round(img.getBoundingClientRect().width) + 'x' + Math.round(img.getBoundingClientRect().height);
}

let etag = '';
async function poll() {
  try {
    const r = await fetch('/api/screen.png', {headers: etag ? {'If-None-Match': etag} : {}});
    if (r.status === 200) {
      etag = r.headers.get('ETag') || '';
      const img = document.getElementById('screen');
      const old = img.src;
      img.src = URL.createObjectURL(await r.blob());
      if (old.startsWith('blob:')) URL.revokeObjectURL(old);
    }
    const s = await fetch('/api/state');
    const st = await s.json();
    document.getElementById('state').textContent = JSON.stringify(st, null, 2);
    document.getElementById('asleep').hidden = st.screen !== 'asleep';
    maybeAutopress(st);
    measure();
  } catch (e) {
    document.getElementById('state').textContent = 'appliance not reachable: ' + e;
  }
  setTimeout(poll, autopress ? 100 : 500);
}
poll();
}
</script>
</body>
</html>
`
