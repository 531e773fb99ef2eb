// The demo page's logic: sign in, list the monitors, and show each one live. Plain browser
// JavaScript, no build step. The access token is renewed before its 10 minutes run out; media
// URLs carry it as ?token= (an <img> cannot send a header), hls.js sends it as a Bearer header.
// Alarms and events arrive over the push socket (/api/v3/socket.io/, docs/push.md) as they happen.
'use strict';

const API = '/api/v3';
let token = null;

async function signIn() {
  const res = await fetch(`${API}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'admin' }),
  });
  if (!res.ok) throw new Error(`login failed: HTTP ${res.status}`);
  token = (await res.json()).access_token;
}

async function getJson(path) {
  const res = await fetch(`${API}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

function element(tag, props = {}, children = []) {
  const el = Object.assign(document.createElement(tag), props);
  for (const c of children) el.append(c);
  return el;
}

/** LL-HLS when the server has it for this monitor, else MJPEG. */
async function startLive(m, slot, note) {
  const master = `${API}/live/${m.id}/hls/master.m3u8`;
  const probe = await fetch(master, { headers: { authorization: `Bearer ${token}` } }).catch(() => null);
  if (probe && probe.ok && window.Hls && window.Hls.isSupported()) {
    const video = element('video', { muted: true, autoplay: true, playsInline: true, controls: true });
    slot.replaceChildren(video);
    const hls = new window.Hls({ lowLatencyMode: true, enableWorker: false, xhrSetup: (xhr) => xhr.setRequestHeader('Authorization', `Bearer ${token}`) });
    hls.on(window.Hls.Events.ERROR, (_event, data) => {
      if (!data.fatal) return;
      hls.destroy();
      note.textContent = `HLS failed (${data.details}); using MJPEG`;
      startMjpeg(m, slot);
    });
    hls.loadSource(master);
    hls.attachMedia(video);
    note.textContent = 'live: LL-HLS';
    return;
  }
  note.textContent = 'live: MJPEG from shared memory';
  startMjpeg(m, slot);
}

function startMjpeg(m, slot) {
  const img = element('img', { className: 'live', alt: `${m.name} live` });
  img.addEventListener('error', () => {
    slot.replaceChildren(element('p', { className: 'err', textContent: 'not capturing (no live image)' }));
  });
  img.src = `${API}/live/${m.id}/mjpeg?token=${encodeURIComponent(token)}`;
  slot.replaceChildren(img);
}

/** A line in the alarm and event log, newest first (at most 50). */
function logLine(text) {
  const list = document.getElementById('alarms');
  list.prepend(element('li', { textContent: `${new Date().toLocaleTimeString()}  ${text}` }));
  while (list.children.length > 50) list.lastChild.remove();
}

/** The push socket: alarms outline the camera in red, events go to the log. */
function startPush() {
  if (!window.io) return;
  const pushNote = document.getElementById('push');
  const socket = window.io({ path: `${API}/socket.io`, auth: (cb) => cb({ token }) });
  socket.on('connect', () => {
    pushNote.textContent = 'push: connected';
    socket.emit('subscribe', { monitors: 'all' });
  });
  socket.on('connect_error', (err) => (pushNote.textContent = `push: ${err.message}`));
  socket.on('disconnect', (reason) => (pushNote.textContent = `push: disconnected (${reason})`));
  socket.on('alarm', (m) => {
    const figure = document.querySelector(`figure[data-monitor-id="${m.monitor_id}"]`);
    if (figure) {
      figure.classList.toggle('alarm', m.phase === 'start');
      figure.querySelector('.alarm-state').textContent = m.phase === 'start' ? `ALARM: ${m.cause} (score ${m.score})` : '';
    }
    logLine(`monitor ${m.monitor_id}: alarm ${m.phase}${m.phase === 'start' ? ` (${m.cause}, score ${m.score})` : ''}`);
  });
  socket.on('event_start', (m) => logLine(`monitor ${m.event.monitor_id}: event ${m.event.id} started (${m.event.cause ?? ''})`));
  socket.on('event_end', (m) => logLine(`monitor ${m.event.monitor_id}: event ${m.event.id} ended, ${m.event.length} s`));
  socket.on('monitor_status', (m) => {
    const figure = document.querySelector(`figure[data-monitor-id="${m.monitor_id}"]`);
    if (figure) figure.querySelector('.capture').textContent = m.capturing ? `capturing${m.capture_fps === null ? '' : ` at ${m.capture_fps} fps`}` : 'not capturing';
  });
  // The page signs in again before the token runs out; hand the new one to the socket.
  socket.on('token_expiring', () => signIn().then(() => socket.emit('refresh_token', { token })).catch(() => undefined));
}

async function forceAlarm(m, action) {
  const res = await fetch(`${API}/monitors/${m.id}/alarm`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(action === 'on' ? { action, cause: 'Demo button', score: 50 } : { action }),
  });
  if (!res.ok) logLine(`monitor ${m.id}: alarm ${action} failed (HTTP ${res.status})`);
}

function addCamera(m, grid) {
  const slot = element('div');
  const note = element('span');
  const snap = element('img', { className: 'snap', alt: `${m.name} snapshot` });
  const snapNote = element('span');
  snap.addEventListener('load', () => (snapNote.textContent = `snapshot ${new Date().toLocaleTimeString()}`));
  snap.addEventListener('error', () => (snapNote.textContent = 'snapshot: not capturing'));
  const refresh = () => (snap.src = `${API}/monitors/${m.id}/snapshot?token=${encodeURIComponent(token)}&t=${Date.now()}`);
  refresh();
  setInterval(refresh, 4000);
  const figure = element('figure');
  figure.dataset.monitorId = String(m.id);
  const on = element('button', { textContent: 'Force alarm', type: 'button' });
  const off = element('button', { textContent: 'Cancel alarm', type: 'button' });
  on.addEventListener('click', () => forceAlarm(m, 'on'));
  off.addEventListener('click', () => forceAlarm(m, 'cancel'));
  figure.append(
    element('figcaption', { textContent: `${m.id}: ${m.name} (${m.width}×${m.height})` }, [element('span', { className: 'alarm-state' })]),
    slot,
    element('div', { className: 'row' }, [
      snap,
      element('div', {}, [note, element('br'), snapNote, element('br'), element('span', { className: 'capture' }), element('br'), on, off]),
    ]),
  );
  grid.append(figure);
  startLive(m, slot, note).catch((err) => (note.textContent = String(err)));
}

async function main() {
  const status = document.getElementById('status');
  try {
    await signIn();
    setInterval(() => signIn().catch(() => undefined), 8 * 60 * 1000);
    const monitors = (await getJson('/monitors?page_size=100')).items;
    status.textContent = `${monitors.length} monitors`;
    const grid = document.getElementById('cams');
    for (const m of monitors) addCamera(m, grid);
    startPush();
  } catch (err) {
    status.textContent = String(err);
    status.className = 'err';
  }
}

main();
