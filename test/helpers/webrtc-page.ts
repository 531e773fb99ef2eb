// The browser side of a WebRTC live view, as the reference client does it (docs/contract/clients.md):
// the server offers over the WebSocket, the page answers, candidates trickle both ways (server
// candidates buffered until the remote description is set), `ready` marks connected, ping every
// few seconds. Plain JS in a string: tsx would add helpers to functions the page does not have.
// `zmRtc(url, REAL_CLIENT)` configures the page as the reference client (docs/contract/clients.md, "Client
// structure"): the two Google STUN servers (unreachable offline), candidates trickled as
// `{type, session_id, ...candidate.toJSON()}` and the browser's end-of-candidates (null) passed on.

/** The reference client's settings, for `window.zmRtc(url, options)`. */
export const REAL_CLIENT = {
  iceServers: [{ urls: 'stun:stun.l.google.com:19302' }, { urls: 'stun:stun1.l.google.com:19302' }],
  toJSON: true,
};

export const WEBRTC_CLIENT_JS = `
window.zmRtc = function (url, options) {
  const o = Object.assign({ iceServers: [], toJSON: false }, options || {});
  const s = { messages: [], ready: null, errors: [], streamIds: [], trackKinds: [], pongs: 0, closed: null, sentCandidates: [], localTypes: [] };
  const pc = new RTCPeerConnection({ iceServers: o.iceServers });
  const ws = new WebSocket(url);
  let sessionId = null;
  let remoteSet = false;
  const pending = [];
  const video = document.createElement('video');
  video.muted = true; video.autoplay = true; video.playsInline = true;
  document.body.appendChild(video);
  pc.ontrack = (e) => {
    s.trackKinds.push(e.track.kind);
    if (e.streams[0]) s.streamIds.push(e.streams[0].id);
    video.srcObject = e.streams[0] || new MediaStream([e.track]);
  };
  const sendCandidate = (m) => { s.sentCandidates.push(m.candidate); ws.send(JSON.stringify(m)); };
  pc.onicecandidate = (e) => {
    if (!sessionId) return;
    if (o.toJSON) {
      if (e.candidate) s.localTypes.push(e.candidate.type + ':' + e.candidate.address);
      sendCandidate(Object.assign({ type: 'icecandidate', session_id: sessionId }, e.candidate ? e.candidate.toJSON() : { candidate: null }));
    } else if (e.candidate) sendCandidate({ type: 'icecandidate', session_id: sessionId, candidate: e.candidate.candidate, sdpMid: e.candidate.sdpMid, sdpMLineIndex: e.candidate.sdpMLineIndex });
  };
  ws.onmessage = async (ev) => {
    const m = JSON.parse(ev.data);
    s.messages.push(m.type);
    if (m.type === 'offer') {
      sessionId = m.session_id;
      await pc.setRemoteDescription({ type: 'offer', sdp: m.sdp });
      remoteSet = true;
      for (const c of pending.splice(0)) await pc.addIceCandidate(c).catch((e) => s.errors.push(String(e)));
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      ws.send(JSON.stringify({ type: 'answer', session_id: sessionId, sdp: answer.sdp }));
    } else if (m.type === 'icecandidate') {
      const c = { candidate: m.candidate, sdpMid: m.sdpMid, sdpMLineIndex: m.sdpMLineIndex };
      if (remoteSet) await pc.addIceCandidate(c).catch((e) => s.errors.push(String(e)));
      else pending.push(c);
    } else if (m.type === 'ready') s.ready = m;
    else if (m.type === 'error') s.errors.push(m.message);
    else if (m.type === 'pong') s.pongs++;
  };
  ws.onclose = (e) => { s.closed = e.code; };
  const ping = setInterval(() => ws.readyState === 1 && ws.send(JSON.stringify({ type: 'ping' })), 2000);
  s.stats = async () => {
    const out = { state: pc.connectionState, framesDecoded: 0, videoPackets: 0, audioPackets: 0, width: 0, codec: '', fmtp: '' };
    const report = await pc.getStats();
    report.forEach((r) => {
      if (r.type !== 'inbound-rtp') return;
      if (r.kind === 'video') { out.framesDecoded = r.framesDecoded || 0; out.videoPackets = r.packetsReceived || 0; out.width = r.frameWidth || 0;
        const c = report.get(r.codecId); out.codec = c ? c.mimeType : ''; out.fmtp = c ? c.sdpFmtpLine || '' : ''; }
      if (r.kind === 'audio') out.audioPackets = r.packetsReceived || 0;
    });
    return out;
  };
  s.close = () => { clearInterval(ping); ws.close(); pc.close(); };
  return s;
};
`;
