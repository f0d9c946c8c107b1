// Periphery live page: speaks the Foxglove WebSocket protocol (v1) to `periphery run --serve` and
// draws the newest frame: the camera picture with each track's 3-D box projected through the
// camera's K and mount (/camera/calibration, /tf), a 2.5D bird's-eye view drawn here from the
// tracks and the ego path, the track list, the run's statistics and a banner while a safety event is
// on. No dependencies, no build step.
'use strict';

(function () {
  // ---------------------------------------------------------------- constants

  // Class colours as in the MCAP (Sources/PeripheryIO/Foxglove/FoxgloveEncoder.swift).
  const CLASSES = [
    { name: 'light vehicle', short: 'light', rgb: [51, 153, 255] },
    { name: 'large vehicle', short: 'large', rgb: [255, 153, 25] },
    { name: 'two-wheeler', short: 'two-wheeler', rgb: [77, 230, 102] },
    { name: 'pedestrian', short: 'pedestrian', rgb: [230, 77, 217] },
  ];
  const UNKNOWN_CLASS = { name: 'unknown', short: '?', rgb: [200, 200, 200] };
  const classOf = (label) => CLASSES[label] || UNKNOWN_CLASS;
  const rgba = (rgb, a) => `rgba(${rgb[0]},${rgb[1]},${rgb[2]},${a})`;

  // Palette.swift
  const C = {
    ground: '#0f1317', panel2: '#1f262e', line: '#2c353e', ink2: '#94a2b0', ink3: '#6b7885',
    radar: '#45b3c4', radarSoft: 'rgba(69,179,196,0.16)', parkedSoft: 'rgba(148,162,176,0.12)',
    vision: '#e8a33d', halo: 'rgba(15,19,23,0.85)',
  };

  const WANTED = ['/camera/image', '/camera/calibration', '/tf', '/ego/path', '/perception/result', '/perception/stats'];
  const WEIGHT_BANNERS = {
    synthetic: 'trained on synthetic scenes only — boxes are not real vehicles',
    untrained: 'untrained test weights',
  };
  // Safety events (docs/guides/events.md), by the sidecar's type names; other names are not shown.
  const EVENT_NAMES = { forward_collision: 'forward collision', close_following: 'close following', cut_in: 'cut-in' };
  const BACKOFF_MIN_MS = 500, BACKOFF_MAX_MS = 2000;
  const KEEP_RESULTS = 16;
  const NETWORK_WIDTH = 512, DEFAULT_NETWORK_FOCAL = 565.6; // Safety40 contract
  // Track tuple fields (docs/reference/contract.md §13).
  const T = { id: 0, x: 1, y: 2, z: 3, l: 4, w: 5, h: 6, yaw: 7, modelYaw: 8, label: 9, score: 10, hits: 11,
    observed: 12, state: 13, velocity: 14, trail: 15, heading: 16 };
  // Raw detection row: [score, label, x, y, z, length, width, height, yaw].

  // ---------------------------------------------------------------- state

  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const el = {
    bar: $('bar'), connText: $('conn-text'), banner: $('banner'), eventBanner: $('event-banner'), notice: $('notice'),
    fps: $('stat-fps'), latency: $('stat-latency'), dropped: $('stat-dropped'), frame: $('stat-frame'),
    views: $('views'), cameraPane: $('camera-pane'), bevPane: $('bev-pane'), hud: $('hud'),
    camera: $('camera'), bev: $('bev'), tbody: document.querySelector('#tracks tbody'),
    noTracks: $('no-tracks'), offline: $('offline'), egoSpeed: $('ego-speed'), counts: $('counts'),
  };

  const st = {
    ws: null,
    connected: false,
    connects: 0,
    failures: 0,
    backoff: BACKOFF_MIN_MS,
    retryTimer: 0,
    channels: new Map(), // channel id -> channel
    subs: new Map(), // topic -> { subId, channelId }
    bySub: new Map(), // subscription id -> topic
    nextSub: 1,
    // Per-frame data, keyed by the timestamp's decimal string.
    results: new Map(),
    paths: new Map(),
    newestResult: null, // { key, ts }
    calibration: null,
    transform: null,
    stats: null,
    // Images: one waiting, one decoding, one shown; never a queue.
    pendingImage: null, // { key, ts, bytes }
    decoding: false,
    bitmap: null, // { key, ts, image }
    waitingSince: 0,
    drawnKey: null,
    countedKey: null,
    frames: 0,
    viewTimes: [],
    raf: 0,
    layoutDirty: true,
    layout: null,
    noticeTimer: 0,
    cameraAspect: 16 / 9,
  };

  // ---------------------------------------------------------------- connection

  function socketURL() {
    const token = new URLSearchParams(location.search).get('token');
    return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/' +
      (token ? '?token=' + encodeURIComponent(token) : '');
  }

  function connect() {
    st.retryTimer = 0;
    let ws;
    try {
      ws = new WebSocket(socketURL(), ['foxglove.websocket.v1']);
    } catch (e) {
      scheduleReconnect();
      return;
    }
    ws.binaryType = 'arraybuffer';
    st.ws = ws;
    ws.onopen = () => {
      if (st.ws !== ws) return;
      st.connects += 1;
      st.backoff = BACKOFF_MIN_MS;
      resetSession();
      setConnected(true);
    };
    ws.onmessage = (event) => {
      if (st.ws !== ws) return;
      if (typeof event.data === 'string') onText(ws, event.data);
      else onBinary(event.data);
    };
    ws.onclose = () => {
      if (st.ws !== ws) return;
      st.ws = null;
      st.failures += 1;
      setConnected(false);
      scheduleReconnect();
    };
    ws.onerror = () => { /* a close event follows */ };
  }

  function scheduleReconnect() {
    if (st.retryTimer) return;
    const delay = st.backoff;
    st.backoff = Math.min(BACKOFF_MAX_MS, st.backoff * 2);
    st.retryTimer = setTimeout(connect, delay);
  }

  function setConnected(up) {
    st.connected = up;
    body.dataset.connected = up ? 'true' : 'false';
    body.dataset.connects = String(st.connects);
    const tried = st.connects + st.failures > 0;
    el.connText.textContent = up ? 'connected' : (tried ? 'disconnected — reconnecting' : 'connecting…');
    el.offline.hidden = up || !tried;
  }

  // A new connection is a new session: channel and subscription ids and timestamps start afresh.
  function resetSession() {
    st.channels.clear();
    st.subs.clear();
    st.bySub.clear();
    st.results.clear();
    st.paths.clear();
    st.newestResult = null;
    st.pendingImage = null;
    st.waitingSince = 0;
  }

  function send(ws, message) {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message));
  }

  function onText(ws, text) {
    let m;
    try { m = JSON.parse(text); } catch (e) { return; }
    switch (m.op) {
      case 'serverInfo': onServerInfo(m); break;
      case 'advertise': onAdvertise(ws, m.channels || []); break;
      case 'unadvertise': onUnadvertise(m.channelIds || []); break;
      case 'status': onStatus(m); break;
      default: break; // unknown ops are ignored
    }
  }

  function onServerInfo(m) {
    const weights = (m.metadata && m.metadata.weights) || '';
    body.dataset.weights = weights;
    const text = WEIGHT_BANNERS[weights];
    el.banner.hidden = !text;
    el.banner.textContent = text || '';
  }

  function onAdvertise(ws, channels) {
    for (const c of channels) if (c && typeof c.id === 'number') st.channels.set(c.id, c);
    const subscribe = [], unsubscribe = [];
    for (const topic of WANTED) {
      let channel = null;
      for (const c of st.channels.values()) if (c.topic === topic) channel = c;
      const current = st.subs.get(topic);
      if (!channel || (current && current.channelId === channel.id)) continue;
      if (current) {
        unsubscribe.push(current.subId);
        st.bySub.delete(current.subId);
      }
      const subId = st.nextSub++;
      st.subs.set(topic, { subId, channelId: channel.id });
      st.bySub.set(subId, topic);
      subscribe.push({ id: subId, channelId: channel.id });
    }
    if (unsubscribe.length) send(ws, { op: 'unsubscribe', subscriptionIds: unsubscribe });
    if (subscribe.length) send(ws, { op: 'subscribe', subscriptions: subscribe });
  }

  function onUnadvertise(ids) {
    for (const id of ids) {
      st.channels.delete(id);
      for (const [topic, s] of st.subs) {
        if (s.channelId === id) {
          st.subs.delete(topic);
          st.bySub.delete(s.subId);
        }
      }
    }
  }

  function onStatus(m) {
    if (!(m.level >= 1) || typeof m.message !== 'string') return;
    el.notice.textContent = m.message;
    el.notice.title = m.message;
    el.notice.classList.toggle('error', m.level >= 2);
    el.notice.hidden = false;
    clearTimeout(st.noticeTimer);
    st.noticeTimer = setTimeout(() => { el.notice.hidden = true; }, m.level >= 2 ? 10000 : 6000);
  }

  const decoder = new TextDecoder();

  function onBinary(buffer) {
    if (!(buffer instanceof ArrayBuffer) || buffer.byteLength < 13) return;
    const view = new DataView(buffer);
    if (view.getUint8(0) !== 0x01) return; // only message data
    const topic = st.bySub.get(view.getUint32(1, true));
    if (!topic) return;
    const ts = view.getBigUint64(5, true);
    const key = ts.toString();
    let m;
    try { m = JSON.parse(decoder.decode(new Uint8Array(buffer, 13))); } catch (e) { return; }
    switch (topic) {
      case '/camera/image': onImage(key, ts, m); break;
      case '/camera/calibration': st.calibration = m; break;
      case '/tf': st.transform = m; break;
      case '/ego/path': keep(st.paths, key, m); break;
      case '/perception/result':
        keep(st.results, key, m);
        if (!st.newestResult || ts > st.newestResult.ts) st.newestResult = { key, ts };
        requestDraw();
        break;
      case '/perception/stats': st.stats = m; showStats(); break;
      default: break;
    }
  }

  function keep(map, key, value) {
    map.set(key, value);
    while (map.size > KEEP_RESULTS) map.delete(map.keys().next().value);
  }

  function onImage(key, ts, m) {
    if (typeof m.data !== 'string') return;
    st.pendingImage = { key, ts, data: m.data, type: m.format === 'png' ? 'image/png' : 'image/jpeg', session: st.connects };
    decodeNext();
  }

  // Decodes the newest waiting picture; a picture that arrives meanwhile replaces the waiting one.
  // Nothing is decoded while the page is hidden.
  function decodeNext() {
    if (st.decoding || !st.pendingImage || document.hidden) return;
    const next = st.pendingImage;
    st.pendingImage = null;
    let bytes;
    try {
      const text = atob(next.data);
      bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    } catch (e) { return; }
    st.decoding = true;
    createImageBitmap(new Blob([bytes], { type: next.type })).then((image) => {
      if (st.bitmap && st.bitmap.image.close) st.bitmap.image.close();
      st.bitmap = { key: next.key, ts: next.ts, image, session: next.session };
      st.waitingSince = performance.now();
      const aspect = image.width / image.height;
      if (Math.abs(aspect - st.cameraAspect) > 1e-3) {
        st.cameraAspect = aspect;
        st.layoutDirty = true;
      }
      requestDraw();
    }, () => { /* a damaged picture is skipped */ }).finally(() => {
      st.decoding = false;
      decodeNext();
    });
  }

  // ---------------------------------------------------------------- statistics

  function showStats() {
    const s = st.stats || {};
    const r = st.newestResult ? st.results.get(st.newestResult.key) : null;
    const fps = typeof s.fps === 'number' ? s.fps : null;
    const latency = typeof s.latency_ms === 'number' ? s.latency_ms : (r && typeof r.latency_ms === 'number' ? r.latency_ms : null);
    el.fps.textContent = fps === null ? '— fps' : `${fps.toFixed(1)} fps`;
    el.latency.textContent = latency === null ? 'latency —' : `latency ${Math.round(latency)} ms`;
    let dropped = 'dropped —';
    if (typeof s.dropped === 'number') {
      dropped = `dropped ${s.dropped}`;
      if (typeof s.processed === 'number' && s.processed + s.dropped > 0) {
        dropped += ` (${Math.round(100 * s.dropped / (s.processed + s.dropped))} %)`;
      }
      if (s.corrupt) dropped += ` · corrupt ${s.corrupt}`;
    }
    el.dropped.textContent = dropped;
    const index = typeof s.index === 'number' ? s.index : (r ? r.index : null);
    const now = performance.now();
    const times = st.viewTimes.filter((t) => now - t < 2000);
    const view = times.length > 1 && times[times.length - 1] - times[0] > 1000 ? (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000) : null;
    el.frame.textContent = (index === null || index === undefined ? 'frame —' : `frame ${index}`) +
      (view ? ` · view ${view.toFixed(1)} fps` : '');
    el.fps.title = 'frames the engine processed per second';
    el.frame.title = 'frames drawn on this page per second';
  }

  // ---------------------------------------------------------------- layout

  // Two layouts, and the one whose smaller view is larger wins: side by side (the camera at full
  // height, at most 62 % of the width, the track list under it when there is room; the BEV on the
  // right at full height) or stacked (the camera on top at full width, at most 55 % of the height,
  // the track list beside it when there is room; the BEV below at full width). Where the track list
  // has no room it floats in the BEV's top right corner.
  function layout() {
    st.layoutDirty = false;
    el.views.style.top = el.bar.offsetHeight + 'px';
    const W = el.views.clientWidth, H = el.views.clientHeight;
    const a = st.cameraAspect > 0.2 && st.cameraAspect < 6 ? st.cameraAspect : 16 / 9;
    const side = (() => {
      const camW = Math.round(Math.min(a * H, 0.62 * W)), camH = Math.round(camW / a);
      return { name: 'side-by-side', cam: [0, 0, camW, camH], bev: [camW, 0, W - camW, H],
        hud: H - camH >= 90 ? [0, camH, camW, H - camH] : null };
    })();
    const stacked = (() => {
      const camH = Math.round(Math.min(W / a, 0.55 * H)), camW = Math.min(W, Math.round(camH * a));
      const beside = W - camW >= 200;
      return { name: 'stacked', cam: [beside ? 0 : Math.round((W - camW) / 2), 0, camW, camH], bev: [0, camH, W, H - camH],
        hud: beside ? [camW, 0, W - camW, camH] : null };
    })();
    const score = (l) => Math.min(l.cam[2] * l.cam[3], l.bev[2] * l.bev[3]);
    const chosen = score(side) >= score(stacked) ? side : stacked;
    const { cam, bev, hud } = chosen;
    place(el.cameraPane, cam);
    place(el.bevPane, bev);
    el.hud.classList.toggle('floating', !hud);
    el.hud.classList.toggle('beside', chosen.name === 'stacked' && !!hud);
    el.hud.classList.toggle('compact', !hud || hud[2] < 400);
    if (!hud) {
      // Top right of the BEV, as wide as its content needs up to 60 % of the pane.
      const s = el.hud.style;
      s.left = 'auto';
      s.right = (W - bev[0] - bev[2] + 6) + 'px';
      s.top = (bev[1] + 6) + 'px';
      s.width = 'auto';
      s.height = 'auto';
      s.maxWidth = Math.round(bev[2] * 0.6) + 'px';
      s.maxHeight = Math.round(bev[3] * 0.42) + 'px';
    } else {
      place(el.hud, hud);
      el.hud.style.right = 'auto';
      el.hud.style.maxWidth = '';
      el.hud.style.maxHeight = '';
    }
    st.layout = { cam, bev };
    fitCanvas(el.camera, cam[2], cam[3]);
    fitCanvas(el.bev, bev[2], bev[3]);
    bevCamera = null;
    body.dataset.layout = chosen.name;
  }

  function place(node, r) {
    node.style.left = r[0] + 'px';
    node.style.top = r[1] + 'px';
    node.style.width = r[2] + 'px';
    node.style.height = r[3] === null ? 'auto' : r[3] + 'px';
  }

  function fitCanvas(canvas, w, h) {
    const dpr = window.devicePixelRatio || 1;
    const cw = Math.max(1, Math.round(w * dpr)), ch = Math.max(1, Math.round(h * dpr));
    if (canvas.width !== cw) canvas.width = cw;
    if (canvas.height !== ch) canvas.height = ch;
    canvas.cssW = w;
    canvas.cssH = h;
    canvas.dpr = dpr;
  }

  function context(canvas) {
    const ctx = canvas.getContext('2d');
    ctx.setTransform(canvas.dpr, 0, 0, canvas.dpr, 0, 0);
    return ctx;
  }

  // ---------------------------------------------------------------- drawing

  function requestDraw() {
    if (!st.raf) st.raf = requestAnimationFrame(draw);
  }

  // Draws the newest complete frame once: the newest decoded picture with the result of the same
  // timestamp (waiting up to 0.5 s for that result), or the newest result when no picture comes.
  function draw() {
    st.raf = 0;
    if (st.layoutDirty) {
      layout();
      st.drawnKey = null;
    }
    let key = null;
    // A picture from before the last reconnection is not matched with this session's results.
    const bm = st.bitmap && st.bitmap.session === st.connects ? st.bitmap : null;
    if (!bm && st.subs.has('/camera/image') && (st.decoding || st.pendingImage)) {
      setTimeout(requestDraw, 50); // this session's first picture is on its way
      return;
    }
    if (bm && st.subs.has('/camera/image')) {
      if (st.results.has(bm.key) || !st.subs.has('/perception/result')) key = bm.key;
      else if (st.newestResult && st.newestResult.ts > bm.ts) key = st.newestResult.key;
      else if (performance.now() - st.waitingSince > 500) key = st.newestResult ? st.newestResult.key : bm.key;
      else {
        setTimeout(requestDraw, 100);
        return;
      }
    } else if (st.newestResult) {
      key = st.newestResult.key;
    }
    const frameKey = st.connects + ':' + (bm ? bm.key : '') + '|' + (key || '');
    if (frameKey === st.drawnKey) return;
    const result = key ? st.results.get(key) || null : null;
    const path = key ? st.paths.get(key) || null : null;
    const tracks = result && Array.isArray(result.tracks) ? result.tracks : [];
    drawCamera(bm ? bm.image : null, result, tracks);
    drawBEV(result, tracks, path);
    fillTable(tracks);
    fillSummary(result, tracks);
    showEvents(result);
    const countKey = st.connects + ':' + key;
    if (key !== null && countKey !== st.countedKey) {
      st.countedKey = countKey;
      st.frames += 1;
      st.viewTimes.push(performance.now());
      if (st.viewTimes.length > 60) st.viewTimes.shift();
      body.dataset.frames = String(st.frames);
      body.dataset.index = result && typeof result.index === 'number' ? String(result.index) : '';
    }
    st.drawnKey = frameKey;
    showStats();
  }

  // --- camera pane

  function quaternionMatrix(q) {
    const { x, y, z, w } = q;
    return [
      1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
      2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
      2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
    ];
  }

  // A projector from the vehicle frame to picture pixels (of the picture K is for), or null.
  function cameraProjector() {
    const cal = st.calibration, tf = st.transform;
    if (!cal || !tf || !Array.isArray(cal.K) || cal.K.length !== 9 || !tf.rotation || !tf.translation) return null;
    const R = quaternionMatrix(tf.rotation);
    const t = tf.translation;
    const K = cal.K;
    const toCamera = (p) => {
      const dx = p[0] - t.x, dy = p[1] - t.y, dz = p[2] - t.z;
      // c = Rᵀ (p − t)
      return [R[0] * dx + R[3] * dy + R[6] * dz, R[1] * dx + R[4] * dy + R[7] * dz, R[2] * dx + R[5] * dy + R[8] * dz];
    };
    const pixel = (c) => [K[0] * c[0] / c[2] + K[1] * c[1] / c[2] + K[2], K[4] * c[1] / c[2] + K[5]];
    return { toCamera, pixel, width: cal.width, height: cal.height };
  }

  // The 8 corners of a box: the bottom ring then the top ring (front-left, front-right, rear-right, rear-left).
  function boxCorners(x, y, z, l, w, h, yaw) {
    const c = Math.cos(yaw), s = Math.sin(yaw);
    const ring = [[0.5, 0.5], [0.5, -0.5], [-0.5, -0.5], [-0.5, 0.5]].map(([f, g]) => {
      const dx = f * l, dy = g * w;
      return [x + dx * c - dy * s, y + dx * s + dy * c];
    });
    return [z - h / 2, z + h / 2].flatMap((zz) => ring.map((p) => [p[0], p[1], zz]));
  }
  const BOX_EDGES = [[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4], [0, 4], [1, 5], [2, 6], [3, 7]];
  const NEAR = 0.1;

  // Projects a segment in camera coordinates, cut at the near plane; null when wholly behind.
  function clipSegment(a, b, pixel) {
    if (a[2] < NEAR && b[2] < NEAR) return null;
    const cut = (p, q) => {
      const f = (NEAR - p[2]) / (q[2] - p[2]);
      return [p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f, NEAR];
    };
    const p = a[2] < NEAR ? cut(a, b) : a;
    const q = b[2] < NEAR ? cut(b, a) : b;
    return [pixel(p), pixel(q)];
  }

  function drawCamera(image, result, tracks) {
    const canvas = el.camera;
    const ctx = context(canvas);
    const W = canvas.cssW, H = canvas.cssH;
    ctx.fillStyle = '#050607';
    ctx.fillRect(0, 0, W, H);
    if (!image) {
      ctx.fillStyle = C.ink3;
      ctx.font = '13px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillText(st.connected ? 'waiting for frames…' : 'no connection', W / 2, H / 2);
      return;
    }
    const scale = Math.min(W / image.width, H / image.height);
    const dw = image.width * scale, dh = image.height * scale;
    const ox = (W - dw) / 2, oy = (H - dh) / 2;
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(image, ox, oy, dw, dh);
    const proj = cameraProjector();
    if (!proj) return;
    // K is for the calibration's picture size; scale it to the decoded picture, then to the pane.
    const kx = proj.width ? image.width / proj.width : 1, ky = proj.height ? image.height / proj.height : 1;
    const toPane = (p) => [ox + p[0] * kx * scale, oy + p[1] * ky * scale];
    ctx.save();
    ctx.beginPath();
    ctx.rect(ox, oy, dw, dh);
    ctx.clip();
    ctx.lineJoin = 'round';
    ctx.lineCap = 'round';
    // Raw detections: faint dashed footprints.
    const raw = result && Array.isArray(result.raw) ? result.raw : [];
    ctx.setLineDash([4, 4]);
    ctx.lineWidth = 1;
    for (const d of raw) {
      if (!Array.isArray(d) || d.length < 9) continue;
      const corners = boxCorners(d[2], d[3], d[4], d[5], d[6], d[7], d[8]).slice(0, 4).map(proj.toCamera);
      ctx.strokeStyle = rgba(classOf(d[1]).rgb, 0.45);
      ctx.beginPath();
      for (let i = 0; i < 4; i++) {
        const seg = clipSegment(corners[i], corners[(i + 1) % 4], proj.pixel);
        if (!seg) continue;
        const a = toPane(seg[0]), b = toPane(seg[1]);
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0], b[1]);
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    // Tracks: far to near, so that near boxes and labels stay on top.
    const sorted = tracks.filter((t) => Array.isArray(t) && t.length > T.label)
      .sort((a, b) => Math.hypot(b[T.x], b[T.y]) - Math.hypot(a[T.x], a[T.y]));
    const labels = [];
    const lw = Math.max(1.5, Math.min(3, W / 500));
    for (const t of sorted) {
      const cls = classOf(t[T.label]);
      const corners = boxCorners(t[T.x], t[T.y], t[T.z], t[T.l], t[T.w], t[T.h], t[T.yaw]).map(proj.toCamera);
      if (!corners.some((c) => c[2] >= NEAR)) continue;
      const observed = t[T.observed] !== false;
      ctx.strokeStyle = rgba(cls.rgb, observed ? 1 : 0.6);
      ctx.lineWidth = lw;
      ctx.setLineDash(observed ? [] : [6, 4]);
      ctx.beginPath();
      let top = null;
      for (const [i, j] of BOX_EDGES) {
        const seg = clipSegment(corners[i], corners[j], proj.pixel);
        if (!seg) continue;
        const a = toPane(seg[0]), b = toPane(seg[1]);
        ctx.moveTo(a[0], a[1]);
        ctx.lineTo(b[0], b[1]);
        for (const p of [a, b]) if (!top || p[1] < top[1]) top = p;
      }
      ctx.stroke();
      // Front face marker: a faint fill of the front face of the box.
      const front = [0, 1, 5, 4].map((i) => corners[i]);
      if (front.every((c) => c[2] >= NEAR)) {
        ctx.fillStyle = rgba(cls.rgb, 0.14);
        ctx.beginPath();
        front.forEach((c, k) => { const p = toPane(proj.pixel(c)); if (k) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]); });
        ctx.closePath();
        ctx.fill();
      }
      if (top) labels.push({ at: top, text: `#${t[T.id]} ${cls.short} ${Math.hypot(t[T.x], t[T.y]).toFixed(0)} m`, rgb: cls.rgb });
    }
    ctx.setLineDash([]);
    const size = Math.max(11, Math.min(15, Math.round(W / 70)));
    ctx.font = `600 ${size}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    const placed = [];
    for (const label of labels.reverse()) {
      const w = ctx.measureText(label.text).width + 8;
      const x = Math.min(Math.max(label.at[0], ox + w / 2), ox + dw - w / 2);
      const y = Math.max(placeLabel(placed, x, Math.max(label.at[1] - 3, oy + size + 4), w, size + 5), oy + size + 4);
      ctx.fillStyle = 'rgba(9,11,13,0.72)';
      ctx.fillRect(x - w / 2, y - size - 3, w, size + 4);
      ctx.fillStyle = rgba(label.rgb, 1);
      ctx.fillText(label.text, x, y);
    }
    ctx.restore();
  }

  // --- bird's-eye view: a port of WorldCamera / WorldView (Sources/PeripheryRendering)

  const VFOV = 26 * Math.PI / 180, TARGET_HEIGHT = 0.9, MIN_DEPTH = 0.5;
  let bevCamera = null;

  function makeWorldCamera(width, height, tilt, aim, distance) {
    const f = height / (2 * Math.tan(VFOV / 2));
    const ct = Math.cos(tilt), stl = Math.sin(tilt);
    const cx = aim - distance * ct, cz = TARGET_HEIGHT + distance * stl;
    const depth = (p) => (p[0] - cx) * ct - (p[2] - cz) * stl;
    const project = (p) => {
      const d = depth(p);
      if (!(d > MIN_DEPTH)) return null;
      const k = f / d;
      const up = (p[0] - cx) * stl + (p[2] - cz) * ct;
      return [width / 2 - p[1] * k, height / 2 - up * k];
    };
    return { width, height, tilt, aim, distance, depth, project };
  }

  // The reference's framing solver (WorldCamera+Framing.swift) at one tilt.
  function framedCamera(width, height, hfov, tilt) {
    const patch = framingPatch(hfov);
    const margin = Math.min(10, 0.04 * Math.min(width, height));
    const lo = [margin, margin + 22], hi = [width - margin, height - margin];
    const fits = (aim, distance) => {
      const cam = makeWorldCamera(width, height, tilt, aim, distance);
      return patch.every((p) => {
        const q = cam.project(p);
        return q && q[0] >= lo[0] && q[0] <= hi[0] && q[1] >= lo[1] && q[1] <= hi[1];
      });
    };
    const solutions = [];
    for (let aim = 6; aim <= 24.0001; aim += 0.5) {
      let a = 12, b = 520;
      if (fits(aim, a)) { solutions.push([aim, a]); continue; }
      if (!fits(aim, b)) continue;
      for (let i = 0; i < 26 && b - a > 0.02; i++) {
        const mid = (a + b) / 2;
        if (fits(aim, mid)) b = mid; else a = mid;
      }
      solutions.push([aim, b]);
    }
    if (!solutions.length) return makeWorldCamera(width, height, tilt, 21, 120);
    const nearest = Math.min(...solutions.map((s) => s[1]));
    const best = solutions.filter((s) => s[1] <= 1.01 * nearest).pop();
    return makeWorldCamera(width, height, tilt, best[0], best[1]);
  }

  // The points the framing keeps on screen: the ego's rear corners and the sensor's field of view
  // on an arc of 42 m, on the ground and 2.6 m up.
  function framingPatch(hfov) {
    const patch = [[-2.6, 1.1, 0], [-2.6, -1.1, 0]];
    for (let i = 0; i < 9; i++) {
      const a = -hfov / 2 + hfov * i / 8;
      for (const z of [0, 2.6]) patch.push([42 * Math.cos(a), 42 * Math.sin(a), z]);
    }
    return patch;
  }

  // The framed camera at the reference's 20° tilt, unless the pane is so tall that the view would
  // leave much of it empty: then the shallowest tilt up to 60° whose view fills 80 % of its height.
  function bestCamera(width, height, hfov) {
    const patch = framingPatch(hfov);
    let best = null;
    for (let deg = 20; deg <= 60; deg += 4) {
      const cam = framedCamera(width, height, hfov, deg * Math.PI / 180);
      const ys = patch.map(cam.project).filter(Boolean).map((p) => p[1]);
      const fill = ys.length ? (Math.max(...ys) - Math.min(...ys)) / height : 0;
      if (!best || fill > best.fill + 0.01) best = { cam, fill };
      if (fill >= 0.8) return cam;
    }
    return best.cam;
  }

  // A world polygon cut at the near depth (Sutherland–Hodgman), projected.
  function projectPolygon(cam, polygon) {
    const near = MIN_DEPTH + 1e-6, kept = [];
    for (let i = 0; i < polygon.length; i++) {
      const a = polygon[i], b = polygon[(i + 1) % polygon.length];
      const da = cam.depth(a), db = cam.depth(b);
      if (da >= near) kept.push(a);
      if ((da >= near) !== (db >= near)) {
        const f = (near - da) / (db - da);
        kept.push([a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f]);
      }
    }
    return kept.map(cam.project).filter(Boolean);
  }

  // A world polyline cut where it passes the near depth, projected into unbroken runs.
  function projectPolyline(cam, points) {
    const near = MIN_DEPTH + 1e-6, paths = [];
    let current = [];
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i], b = points[i + 1];
      const da = cam.depth(a), db = cam.depth(b);
      if (da < near && db < near) {
        if (current.length > 1) paths.push(current);
        current = [];
        continue;
      }
      const lerp = (f) => [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
      const p = da >= near ? a : lerp((near - da) / (db - da));
      const q = db >= near ? b : lerp((near - da) / (db - da));
      const s = cam.project(p), e = cam.project(q);
      if (!s || !e) continue;
      if (da < near || current.length === 0) {
        if (current.length > 1) paths.push(current);
        current = [s];
      }
      current.push(e);
      if (db < near) {
        paths.push(current);
        current = [];
      }
    }
    if (current.length > 1) paths.push(current);
    return paths;
  }

  function fillPolygon(ctx, cam, polygon, fill, stroke, width) {
    const p = projectPolygon(cam, polygon);
    if (p.length < 3) return;
    ctx.beginPath();
    p.forEach((q, i) => (i ? ctx.lineTo(q[0], q[1]) : ctx.moveTo(q[0], q[1])));
    ctx.closePath();
    if (fill) {
      ctx.fillStyle = fill;
      ctx.fill();
    }
    if (stroke) {
      ctx.strokeStyle = stroke;
      ctx.lineWidth = width || 1;
      ctx.stroke();
    }
  }

  function strokeLine(ctx, cam, points, colour, width, dash) {
    const paths = projectPolyline(cam, points);
    if (!paths.length) return;
    ctx.strokeStyle = colour;
    ctx.lineWidth = width;
    ctx.setLineDash(dash || []);
    ctx.beginPath();
    for (const path of paths) path.forEach((q, i) => (i ? ctx.lineTo(q[0], q[1]) : ctx.moveTo(q[0], q[1])));
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // Moves a label (centred on x, its bottom at y) up past the labels already placed, at most 4
  // times; returns its bottom.
  function placeLabel(placed, x, y, w, h) {
    for (let i = 0; i < 4; i++) {
      const hit = placed.find((r) => x - w / 2 < r[0] + r[2] && x + w / 2 > r[0] && y - h < r[1] + r[3] && y > r[1]);
      if (!hit) break;
      y = hit[1] - 1;
    }
    placed.push([x - w / 2, y - h, w, h]);
    return y;
  }

  function haloText(ctx, text, x, y, colour) {
    ctx.lineWidth = 3;
    ctx.strokeStyle = C.halo;
    ctx.strokeText(text, x, y);
    ctx.fillStyle = colour;
    ctx.fillText(text, x, y);
  }

  // An extruded box: the side faces far to near, then the roof.
  function drawBody(ctx, cam, corners, fill, roof, stroke, dashed) {
    const faces = [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]].map((f) => {
      const pts = f.map((i) => corners[i]);
      const c = pts.reduce((s, p) => [s[0] + p[0] / 4, s[1] + p[1] / 4, s[2] + p[2] / 4], [0, 0, 0]);
      return { pts, depth: cam.depth(c) };
    }).sort((a, b) => b.depth - a.depth);
    ctx.setLineDash(dashed ? [5, 4] : []);
    ctx.lineJoin = 'round';
    fillPolygon(ctx, cam, corners.slice(0, 4), fill, null);
    for (const f of faces) fillPolygon(ctx, cam, f.pts, fill, stroke, 1.2);
    fillPolygon(ctx, cam, corners.slice(4, 8), roof, stroke, 1.5);
    ctx.setLineDash([]);
  }

  function drawBEV(result, tracks, path) {
    const canvas = el.bev;
    const ctx = context(canvas);
    const W = canvas.cssW, H = canvas.cssH;
    const focal = result && result.calibration && result.calibration.focal > 0 ? result.calibration.focal : DEFAULT_NETWORK_FOCAL;
    const hfov = 2 * Math.atan(NETWORK_WIDTH / (2 * focal));
    if (!bevCamera || bevCamera.width !== W || bevCamera.height !== H || Math.abs(bevCamera.hfov - hfov) > 1e-4) {
      bevCamera = bestCamera(W, H, hfov);
      bevCamera.hfov = hfov;
    }
    const cam = bevCamera;
    ctx.fillStyle = C.ground;
    ctx.fillRect(0, 0, W, H);

    // Road plane and the sensor's field of view out to 40 m.
    fillPolygon(ctx, cam, [[-60, -2000, 0], [4000, -2000, 0], [4000, 2000, 0], [-60, 2000, 0]], C.panel2, C.line, 1);
    const wedge = [[0, 0, 0.03]];
    for (let i = 0; i <= 24; i++) {
      const a = -hfov / 2 + hfov * i / 24;
      wedge.push([40 * Math.cos(a), 40 * Math.sin(a), 0.03]);
    }
    fillPolygon(ctx, cam, wedge, C.radarSoft, C.radar, 1);

    // Range rings with their distances, lane lines.
    const scale = Math.max(1, Math.round(Math.min(W, H) / 300));
    ctx.font = `${10 + scale}px system-ui, sans-serif`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const r of [10, 20, 30, 40]) {
      const ring = [];
      for (let i = 0; i <= 40; i++) {
        const a = -1.25 + 2.5 * i / 40;
        ring.push([r * Math.cos(a), r * Math.sin(a), 0.05]);
      }
      strokeLine(ctx, cam, ring, 'rgba(107,120,133,0.55)', 1);
      const e = -hfov / 2 - 0.02;
      const at = cam.project([r * Math.cos(e), r * Math.sin(e), 0.05]);
      if (at && at[0] < W - 34 && at[1] > 0 && at[1] < H) haloText(ctx, `${r} m`, at[0] + 4, at[1], C.ink3);
    }
    for (const y of [1.85, -1.85]) strokeLine(ctx, cam, [[0, y, 0.06], [40, y, 0.06]], 'rgba(107,120,133,0.8)', 1, [4, 5]);

    // The ego's path (oldest first, ending at the origin).
    if (path && Array.isArray(path.poses) && path.poses.length > 1) {
      const pts = path.poses.filter((p) => p && p.position).map((p) => [p.position.x, p.position.y, 0.08]);
      strokeLine(ctx, cam, pts, 'rgba(232,163,61,0.75)', 2);
    }

    // The ego's speed as an arrow of one second's travel.
    const egoSpeed = egoSpeedOf(result) || 0;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    if (egoSpeed > 0.3 && isFinite(egoSpeed)) {
      strokeLine(ctx, cam, [[0, 0, 0.1], [egoSpeed, 0, 0.1]], C.ink2, 1.5, [5, 4]);
      const head = cam.project([egoSpeed, 0, 0.1]), back = cam.project([egoSpeed - 1, 0, 0.1]);
      if (head && back) {
        const dx = head[0] - back[0], dy = head[1] - back[1], n = Math.hypot(dx, dy);
        if (n > 1e-6) {
          const ux = dx / n, uy = dy / n;
          ctx.fillStyle = C.ink2;
          ctx.beginPath();
          ctx.moveTo(head[0], head[1]);
          ctx.lineTo(head[0] - 9 * ux - 4.5 * uy, head[1] - 9 * uy + 4.5 * ux);
          ctx.lineTo(head[0] - 9 * ux + 4.5 * uy, head[1] - 9 * uy - 4.5 * ux);
          ctx.closePath();
          ctx.fill();
        }
        haloText(ctx, `ego ${(egoSpeed * 3.6).toFixed(0)} km/h`, head[0], head[1] - 6, C.ink2);
      }
    }

    // Vehicles far to near: trails, then bodies, then labels.
    const sorted = tracks.filter((t) => Array.isArray(t) && t.length > T.label)
      .sort((a, b) => cam.depth([b[T.x], b[T.y], 0]) - cam.depth([a[T.x], a[T.y], 0]));
    for (const t of sorted) {
      const trail = Array.isArray(t[T.trail]) ? t[T.trail] : [];
      // Trail points are [t, x, y] (docs/reference/contract.md §13).
      const pts = trail.filter((p) => Array.isArray(p) && p.length >= 3)
        .map((p) => [p[1], p[2], 0.07]);
      if (pts.length > 1) strokeLine(ctx, cam, pts, rgba(classOf(t[T.label]).rgb, 0.6), 1.5);
    }
    for (const t of sorted) {
      const cls = classOf(t[T.label]);
      const observed = t[T.observed] !== false;
      const h = t[T.h] > 0 ? t[T.h] : 1.5;
      const corners = boxCorners(t[T.x], t[T.y], h / 2, t[T.l], t[T.w], h, t[T.yaw]);
      drawBody(ctx, cam, corners, rgba(cls.rgb, observed ? 0.16 : 0.07), rgba(cls.rgb, observed ? 0.34 : 0.12),
        rgba(cls.rgb, observed ? 1 : 0.7), !observed);
    }
    ctx.font = `600 ${10 + scale}px system-ui, sans-serif`;
    const placed = [];
    for (const t of sorted.slice().reverse()) {
      const cls = classOf(t[T.label]);
      const h = t[T.h] > 0 ? t[T.h] : 1.5;
      const at = cam.project([t[T.x], t[T.y], Math.max(h, 1) + 0.5]);
      if (!at || !isFinite(at[0]) || !isFinite(at[1])) continue;
      const v = Array.isArray(t[T.velocity]) ? Math.hypot(t[T.velocity][0], t[T.velocity][1]) : null;
      const text = `#${t[T.id]} ${Math.hypot(t[T.x], t[T.y]).toFixed(0)} m` + (v === null ? '' : ` ${(v * 3.6).toFixed(0)} km/h`);
      const y = placeLabel(placed, at[0], at[1], ctx.measureText(text).width + 4, 12 + scale);
      haloText(ctx, text, at[0], y, rgba(cls.rgb, 1));
    }

    // The ego car.
    drawBody(ctx, cam, boxCorners(0, 0, 0.75, 4.6, 1.9, 1.5, 0), C.parkedSoft, 'rgba(148,162,176,0.22)', C.ink2, false);

    // Caption.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    ctx.font = `${10 + scale}px system-ui, sans-serif`;
    haloText(ctx, "bird's-eye view", 8, 6, C.ink3);
  }

  // --- safety events

  // The banner of the drawn frame's events that are on (start or update; an end takes it away):
  // type, track, TTC, headway and range. Set as text only, never as HTML: the names shown are the
  // page's own and the figures numbers it formats.
  function showEvents(result) {
    const events = result && Array.isArray(result.events) ? result.events : [];
    const figure = (value, unit) => (typeof value === 'number' && isFinite(value) ? `${value.toFixed(1)} ${unit}` : null);
    const on = events.filter((e) => e && EVENT_NAMES[e.type] && (e.phase === 'start' || e.phase === 'update'));
    const text = on.map((e) => {
      const parts = [EVENT_NAMES[e.type], Number.isInteger(e.track) ? `#${e.track}` : null];
      const ttc = figure(e.ttc_s, 's'), headway = figure(e.headway_s, 's'), range = figure(e.range_m, 'm');
      if (ttc) parts.push(`TTC ${ttc}`);
      if (headway) parts.push(`headway ${headway}`);
      if (range) parts.push(range);
      return parts.filter(Boolean).join(' · ');
    }).join(' | ');
    el.eventBanner.textContent = text;
    el.eventBanner.hidden = text === '';
    body.dataset.events = on.map((e) => e.type).join(' ');
  }

  // --- track list

  function egoSpeedOf(result) {
    const ego = result && Array.isArray(result.ego) ? result.ego : null;
    const v = ego && ego[3] > 0 ? Math.hypot(ego[0], ego[1]) / ego[3] : null;
    return v !== null && isFinite(v) ? v : null;
  }

  function fillSummary(result, tracks) {
    const v = egoSpeedOf(result);
    el.egoSpeed.textContent = v === null ? 'ego —' : `ego ${(v * 3.6).toFixed(0)} km/h`;
    if (!result) {
      el.counts.textContent = '';
      return;
    }
    const observed = tracks.filter((t) => Array.isArray(t) && t[T.observed] !== false).length;
    const raw = Array.isArray(result.raw) ? result.raw.length : (result.raw_count || 0);
    el.counts.textContent = `${tracks.length} tracks (${observed} observed) · ${raw} detections`;
  }

  function fillTable(tracks) {
    const rows = tracks.filter((t) => Array.isArray(t) && t.length > T.label)
      .map((t) => ({ t, range: Math.hypot(t[T.x], t[T.y]) }))
      .sort((a, b) => a.range - b.range);
    const frag = document.createDocumentFragment();
    for (const { t, range } of rows) {
      const tr = document.createElement('tr');
      const cls = classOf(t[T.label]);
      const v = Array.isArray(t[T.velocity]) ? Math.hypot(t[T.velocity][0], t[T.velocity][1]) : null;
      const observed = t[T.observed] !== false;
      if (!observed) tr.className = 'coasting';
      tr.dataset.id = String(t[T.id]);
      const cells = [
        ['num', '#' + t[T.id]],
        ['', cls.name],
        ['num', range.toFixed(1) + ' m'],
        ['num', v === null ? '—' : (v * 3.6).toFixed(0) + ' km/h'],
        ['state', String(t[T.state] || '') + (observed ? '' : ' · coasting')],
      ];
      cells.forEach(([kind, text], i) => {
        const td = document.createElement('td');
        if (kind) td.className = kind;
        if (i === 1) {
          const sw = document.createElement('span');
          sw.className = 'swatch c' + (CLASSES[t[T.label]] ? t[T.label] : 0);
          td.appendChild(sw);
          for (const [name, kind] of [[cls.name, 'long'], [cls.short, 'short']]) {
            const span = document.createElement('span');
            span.className = kind;
            span.textContent = name;
            td.appendChild(span);
          }
        } else {
          td.appendChild(document.createTextNode(text));
        }
        tr.appendChild(td);
      });
      frag.appendChild(tr);
    }
    el.tbody.replaceChildren(frag);
    el.noTracks.hidden = rows.length > 0;
    body.dataset.tracks = String(rows.length);
  }

  // ---------------------------------------------------------------- start

  document.addEventListener('visibilitychange', decodeNext);
  window.addEventListener('resize', () => {
    st.layoutDirty = true;
    st.drawnKey = null;
    requestDraw();
  });
  if (window.ResizeObserver) {
    new ResizeObserver(() => {
      if (el.views.style.top !== el.bar.offsetHeight + 'px') {
        st.layoutDirty = true;
        st.drawnKey = null;
        requestDraw();
      }
    }).observe(el.bar);
  }
  document.querySelectorAll('#tracks th').forEach((th, i) => { if (i === 0 || i === 2 || i === 3) th.classList.add('num'); });
  body.dataset.frames = '0';
  body.dataset.connects = '0';
  setConnected(false);
  requestDraw();
  setInterval(showStats, 1000);
  connect();
})();
