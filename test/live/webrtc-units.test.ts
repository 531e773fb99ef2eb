// Pure parts of the WebRTC endpoint: client message parsing, codec decisions and SDP reading,
// the media timeline (source pts carried over, breaks re-anchored on the wall clock), RTP
// timestamp arithmetic, and TURN URLs from the configuration.
import test from 'ava';
import { loadConfig } from '../../src/config/index.js';
import type { CodecInfo } from '../../src/native/index.js';
import {
  audioOffer,
  chooseVideoPayloadType,
  h264ProfileIdc,
  mediaSection,
  videoOffer,
} from '../../src/features/live/webrtc/codecs.js';
import { iceServersFrom, parseTurnUrl } from '../../src/features/live/webrtc/ice-servers.js';
import { MediaTimeline, rtpTimestamp } from '../../src/features/live/webrtc/media-timeline.js';
import { parseClientMessage } from '../../src/features/live/webrtc/messages.js';

const codec = (over: Partial<CodecInfo>): CodecInfo => ({
  codecId: 0,
  codec: 'unknown',
  codecString: '',
  width: 0,
  height: 0,
  fpsNum: 0,
  fpsDen: 0,
  sampleRate: 0,
  channels: 0,
  profile: -1,
  level: -1,
  bitDepth: 8,
  reorderDepth: -1,
  fromBitstream: false,
  extradata: Buffer.alloc(0),
  parameterSets: { vps: [], sps: [], pps: [] },
  ...over,
});

test('client messages: known types parsed, extra keys ignored, session_id optional', (t) => {
  t.deepEqual(parseClientMessage('{"type":"ping","extra":1}', false), { kind: 'message', message: { type: 'ping' } });
  t.deepEqual(parseClientMessage(JSON.stringify({ type: 'answer', session_id: 's', sdp: 'v=0', x: 1 }), false), {
    kind: 'message',
    message: { type: 'answer', session_id: 's', sdp: 'v=0' },
  });
  t.deepEqual(
    parseClientMessage(
      JSON.stringify({ type: 'icecandidate', candidate: 'candidate:1', sdpMid: '0', sdpMLineIndex: 0 }),
      false,
    ),
    {
      kind: 'message',
      message: { type: 'icecandidate', session_id: undefined, candidate: 'candidate:1', sdpMid: '0', sdpMLineIndex: 0 },
    },
  );
  const nulls = parseClientMessage(JSON.stringify({ type: 'icecandidate', candidate: '' }), false);
  t.like(nulls, { kind: 'message', message: { candidate: '', sdpMid: null, sdpMLineIndex: null } });
});

test('client candidates: flat, nested RTCIceCandidate.toJSON(), `candidate` alias, end-of-candidates as null/absent/""', (t) => {
  const json = {
    candidate: 'candidate:1 1 udp 2122260223 192.0.2.1 5000 typ host',
    sdpMid: '0',
    sdpMLineIndex: 0,
    usernameFragment: 'abcd',
  };
  const expected = { type: 'icecandidate', session_id: 's', candidate: json.candidate, sdpMid: '0', sdpMLineIndex: 0 };
  for (const m of [
    { type: 'icecandidate', session_id: 's', ...json },
    { type: 'icecandidate', session_id: 's', candidate: json },
    { type: 'candidate', session_id: 's', candidate: json },
    { type: 'candidate', session_id: 's', ...json },
    // The object without its mid: the outer fields complete it.
    { type: 'icecandidate', session_id: 's', candidate: { candidate: json.candidate }, sdpMid: '0', sdpMLineIndex: 0 },
    { type: 'icecandidate', session_id: 's', candidate: `a=${json.candidate}`, sdpMid: '0', sdpMLineIndex: 0 },
  ]) {
    t.deepEqual(
      parseClientMessage(JSON.stringify(m), false),
      { kind: 'message', message: expected },
      JSON.stringify(m),
    );
  }
  for (const m of [
    { type: 'icecandidate', session_id: 's', candidate: null },
    { type: 'icecandidate', session_id: 's' },
    { type: 'icecandidate', session_id: 's', candidate: { candidate: '', sdpMid: '0', sdpMLineIndex: 0 } },
    { type: 'icecandidate', session_id: 's', candidate: { candidate: null } },
  ]) {
    t.like(
      parseClientMessage(JSON.stringify(m), false),
      { kind: 'message', message: { type: 'icecandidate', candidate: '' } },
      JSON.stringify(m),
    );
  }
  t.like(parseClientMessage('{"type":"answer","sdp":"v=0","session_id":3}', false), { kind: 'invalid', answer: true });
  t.false('answer' in (parseClientMessage('{"type":"icecandidate","candidate":7}', false) as object));
});

test('client messages: ignored kinds and malformed input', (t) => {
  for (const type of ['offer', 'ready', 'error', 'pong', 'whatever'])
    t.is(parseClientMessage(JSON.stringify({ type }), false).kind, 'ignored', type);
  const invalid: Array<[string | Buffer, boolean]> = [
    ['{', false],
    ['null', false],
    ['"text"', false],
    ['{"type":5}', false],
    ['{"type":"answer"}', false],
    ['{"type":"answer","sdp":"  "}', false],
    ['{"type":"answer","sdp":"v=0","session_id":3}', false],
    ['{"type":"icecandidate","candidate":7}', false],
    ['{"type":"icecandidate","candidate":{"candidate":"c","sdpMid":0}}', false],
    ['{"type":"icecandidate","candidate":"c","sdpMid":1}', false],
    ['{"type":"icecandidate","candidate":"c","sdpMLineIndex":0.5}', false],
    [Buffer.from('{"type":"ping"}'), true],
  ];
  for (const [data, binary] of invalid) t.is(parseClientMessage(data, binary).kind, 'invalid', String(data));
});

test('codec decisions: H.265 alone, anything else H.264 (96 + 97); G.711 8 kHz mono and Opus pass through, AAC not', (t) => {
  t.deepEqual(
    videoOffer(codec({ codec: 'h265' })).formats.map((f) => f.payloadType),
    [96],
  );
  t.is(videoOffer(codec({ codec: 'h265' })).codec, 'h265');
  for (const c of [undefined, codec({ codec: 'h264' }), codec({ codec: 'unknown' })])
    t.deepEqual(
      videoOffer(c).formats.map((f) => f.payloadType),
      [96, 97],
    );
  t.like(audioOffer(codec({ codec: 'pcmu', sampleRate: 8000, channels: 1 })), {
    payloadType: 0,
    clockRate: 8000,
    rtpmap: 'PCMU/8000',
  });
  t.like(audioOffer(codec({ codec: 'pcma', sampleRate: 0, channels: 0 })), {
    payloadType: 8,
    clockRate: 8000,
    rtpmap: 'PCMA/8000',
  });
  t.is(audioOffer(codec({ codec: 'pcmu', sampleRate: 16000, channels: 1 })), null);
  t.is(audioOffer(codec({ codec: 'pcma', sampleRate: 8000, channels: 2 })), null);
  t.like(audioOffer(codec({ codec: 'opus', sampleRate: 16000, channels: 1 })), {
    payloadType: 111,
    clockRate: 48000,
    rtpmap: 'opus/48000/2',
  });
  t.is(audioOffer(codec({ codec: 'aac', sampleRate: 48000, channels: 2 })), null);
  t.is(audioOffer(undefined), null);
});

test('answer reading: sections by mid, payload type choice', (t) => {
  const sdp = [
    'v=0',
    'm=video 9 UDP/TLS/RTP/SAVPF 97 96',
    'a=mid:0',
    'm=audio 0 UDP/TLS/RTP/SAVPF 0',
    'a=mid:1',
    '',
  ].join('\r\n');
  t.deepEqual(mediaSection(sdp, '0'), { port: 9, payloadTypes: [97, 96] });
  t.deepEqual(mediaSection(sdp, '1'), { port: 0, payloadTypes: [0] });
  t.is(mediaSection(sdp, '2'), null);
  const h264 = videoOffer(codec({ codec: 'h264' }));
  t.is(chooseVideoPayloadType(h264, [96, 97], 66), 96);
  t.is(chooseVideoPayloadType(h264, [96, 97], 100), 97);
  t.is(chooseVideoPayloadType(h264, [96], 100), 96);
  t.is(chooseVideoPayloadType(h264, [97], 66), 97);
  t.is(chooseVideoPayloadType(h264, [100, 101]), null);
  t.is(h264ProfileIdc(Buffer.from([0, 0, 0, 1, 0x09, 0xf0, 0, 0, 1, 0x67, 100, 0, 31])), 100);
  t.is(h264ProfileIdc(Buffer.from([0, 0, 1, 0x65, 1, 2, 3])), -1);
});

test('media timeline: source spacing kept; breaks, generation changes and clock jumps continue by the wall clock', (t) => {
  let now = 1000;
  const tl = new MediaTimeline(() => now);
  t.is(tl.place(5_000_000, 1), 0);
  now += 33;
  t.is(tl.place(5_033_333, 1), 33_333);
  t.is(tl.place(5_020_000, 1), 20_000, 'audio slightly behind video stays on the source clock');
  // The clock rewinds (a restarted zmc on the same generation number): wall time decides.
  now += 500;
  t.is(tl.place(1_000, 1), 33_333 + 500_000);
  now += 40;
  t.is(tl.place(41_000, 1), 33_333 + 500_000 + 40_000);
  // New generation: re-anchored although the pts would continue.
  now += 100;
  t.is(tl.place(141_000, 2), 573_333 + 100_000);
  // An explicit break (reconnect) re-anchors too; a forward jump of more than 10 s as well.
  now += 10;
  tl.markBreak();
  t.is(tl.place(200_000, 2), 673_333 + 10_000);
  now += 20;
  t.is(tl.place(60_000_000, 2), 683_333 + 20_000);
});

test('RTP timestamps: start + ticks modulo 2^32', (t) => {
  t.is(rtpTimestamp(1000, 1_000_000, 90000), 91_000);
  t.is(rtpTimestamp(2 ** 32 - 10, 1000, 90000), 80);
  t.is(rtpTimestamp(0, 125_000, 8000), 1000);
  t.is(rtpTimestamp(5, 20_000, 48000), 965);
  t.is(
    rtpTimestamp(0, 86_400_000_000 * 30, 90000),
    (86_400 * 30 * 90000) % 2 ** 32,
    'a month-long session stays exact',
  );
});

test('TURN from streaming.webrtc.turn.*: URL forms, defaults, disabled → no ICE servers', (t) => {
  t.deepEqual(parseTurnUrl('turn:turn.example.com'), {
    hostname: 'turn.example.com',
    port: 3478,
    relayType: 'TurnUdp',
  });
  t.deepEqual(parseTurnUrl('turn:10.0.0.1:3479?transport=tcp'), {
    hostname: '10.0.0.1',
    port: 3479,
    relayType: 'TurnTcp',
  });
  t.deepEqual(parseTurnUrl('turns:turn.example.com'), {
    hostname: 'turn.example.com',
    port: 5349,
    relayType: 'TurnTls',
  });
  t.deepEqual(parseTurnUrl('turn:[2001:db8::1]:3478'), { hostname: '2001:db8::1', port: 3478, relayType: 'TurnUdp' });
  for (const bad of ['stun:x', 'http://x', 'turn:', 'turn:host:0', 'turn:host:99999'])
    t.throws(() => parseTurnUrl(bad), undefined, bad);
  const turn = { enabled: true, server: 'turn:relay.lan:3478', username: 'u', password: 'p' };
  t.deepEqual(iceServersFrom({ streaming: { webrtc: { stun_servers: [], turn } } } as never), [
    { hostname: 'relay.lan', port: 3478, relayType: 'TurnUdp', username: 'u', password: 'p' },
  ]);
  t.deepEqual(
    iceServersFrom({ streaming: { webrtc: { stun_servers: [], turn: { ...turn, enabled: false } } } } as never),
    [],
  );
});

test('STUN from streaming.webrtc.stun_servers: listed first, before the TURN relay; bad URLs refused at load', (t) => {
  const stun = ['stun:stun.lan:3478', 'stun:[2001:db8::2]'];
  const turn = { enabled: true, server: 'turn:relay.lan', username: 'u', password: 'p' };
  t.deepEqual(
    iceServersFrom({ streaming: { webrtc: { stun_servers: stun, turn: { ...turn, enabled: false } } } } as never),
    stun,
  );
  t.deepEqual(iceServersFrom({ streaming: { webrtc: { stun_servers: stun, turn } } } as never), [
    ...stun,
    { hostname: 'relay.lan', port: 3478, relayType: 'TurnUdp', username: 'u', password: 'p' },
  ]);
  const load = (v: string) =>
    loadConfig({
      env: {
        APP_PROFILE: 'test',
        APP_ZONEMINDER__CONFIG_PATH: '/nonexistent/zm.conf',
        APP_STREAMING__WEBRTC__STUN_SERVERS: v,
      },
      defaultOperatorFile: '/nonexistent/prod.toml',
    });
  t.deepEqual(load('stun:a.lan, stun:b.lan:19302').config.streaming.webrtc.stun_servers, [
    'stun:a.lan',
    'stun:b.lan:19302',
  ]);
  for (const bad of ['http://a.lan', 'stun:', 'turn:a.lan']) {
    t.throws(() => load(bad), { message: /streaming\.webrtc\.stun_servers/ }, bad);
  }
});
