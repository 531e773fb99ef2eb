// The Monitors row ↔ v3 JSON mapping, one line per field: JSON name, column, storage kind
// (src/features/field-table.ts); MonitorResponse and MonitorSettings are generated from it.
// The kinds drive the conversions (flags stored as BOOLEAN are sent as 0/1 integers, decimals as
// numbers) and a test checks the request schema's bounds against them and the Prisma schema.
import type { Monitors, Prisma } from '../../generated/prisma/client.js';
import { INT_RANGES, fieldTable, type Field, type FieldSpec } from '../field-table.js';

export type MonitorField = Field<keyof Monitors & string>;

// kind with a trailing '?' = nullable column; 'str:N' = string of at most N characters.
// SaveJPEGs 0–3, VideoWriter 0–2 and RecordAudio 0–1 follow the spec's field rules.
const SPECS: FieldSpec<keyof Monitors & string>[] = [
  ['id', 'Id', 'u32', { readOnly: true }],
  ['name', 'Name', 'str:64'],
  ['notes', 'Notes', 'str:65535?'],
  ['deleted', 'Deleted', 'boolean'],
  ['server_id', 'ServerId', 'u32?'],
  ['storage_id', 'StorageId', 'u16?', { nullAs: 0 }],
  ['manufacturer_id', 'ManufacturerId', 'u32?'],
  ['model_id', 'ModelId', 'u32?'],
  [
    'type',
    'Type',
    'enum',
    {
      enumType: 'MonitorTypeInput',
      values: ['Local', 'Remote', 'File', 'Ffmpeg', 'Libvlc', 'cURL', 'WebSite', 'NVSocket', 'VNC'],
    },
  ],
  [
    'function',
    'Function',
    'enum',
    { enumType: 'MonitorFunction', values: ['None', 'Monitor', 'Modect', 'Record', 'Mocord', 'Nodect'] },
  ],
  ['capturing', 'Capturing', 'enum', { enumType: 'MonitorCapturing', values: ['None', 'Ondemand', 'Always'] }],
  ['analysing', 'Analysing', 'enum', { enumType: 'MonitorAnalysing', values: ['None', 'Always'] }],
  [
    'analysis_source',
    'AnalysisSource',
    'enum',
    { enumType: 'MonitorAnalysisSource', values: ['Primary', 'Secondary'] },
  ],
  ['analysis_image', 'AnalysisImage', 'enum', { enumType: 'MonitorAnalysisImage', values: ['FullColour', 'YChannel'] }],
  ['analysis_image_opacity', 'AnalysisImageOpacity', 'u8'],
  ['object_detection', 'ObjectDetection', 'str:16'],
  ['object_detection_model', 'ObjectDetectionModel', 'str:255'],
  ['object_detection_object_threshold', 'ObjectDetectionObjectThreshold', 'float', { range: [0, 1] }],
  ['object_detection_nms_threshold', 'ObjectDetectionNMSThreshold', 'float', { range: [0, 1] }],
  ['recording', 'Recording', 'enum', { enumType: 'MonitorRecording', values: ['None', 'OnMotion', 'Always'] }],
  ['enabled', 'Enabled', 'u8', { range: [0, 1], inputDoc: 'Monitor enabled.' }],
  ['decoding_enabled', 'DecodingEnabled', 'u8', { range: [0, 1], inputDoc: 'Decoding enabled.' }],
  [
    'decoding',
    'Decoding',
    'enum',
    { enumType: 'MonitorDecodingInput', values: ['None', 'Ondemand', 'KeyFrames', 'KeyFrames+Ondemand', 'Always'] },
  ],
  [
    'what_display',
    'WhatDisplay',
    'enum',
    { enumType: 'MonitorWhatDisplay', values: ['OnlyVideo', 'OnlyAudioVisualization', 'VideoAudioVisualization'] },
  ],
  ['rtsp2_web_enabled', 'RTSP2WebEnabled', 'flag'],
  [
    'rtsp2_web_type',
    'RTSP2WebType',
    'enum',
    { enumType: 'MonitorRtsp2WebTypeInput', values: ['HLS', 'MSE', 'WebRTC'] },
  ],
  ['default_player', 'DefaultPlayer', 'str:64?'],
  [
    'stream_channel',
    'StreamChannel',
    'enum',
    { enumType: 'MonitorStreamChannel', values: ['Restream', 'CameraDirectPrimary', 'CameraDirectSecondary'] },
  ],
  ['go2rtc_enabled', 'Go2RTCEnabled', 'flag'],
  ['janus_enabled', 'JanusEnabled', 'flag'],
  ['janus_audio_enabled', 'JanusAudioEnabled', 'flag'],
  ['janus_profile_override', 'Janus_Profile_Override', 'str:30', { responseNullable: true }],
  ['restream', 'Restream', 'flag'],
  ['rtsp_user', 'RTSP_User', 'i32?'],
  ['janus_rtsp_session_timeout', 'Janus_RTSP_Session_Timeout', 'i32', { responseNullable: true }],
  ['linked_monitors', 'LinkedMonitors', 'str:255?'],
  ['triggers', 'Triggers', 'str:3', { pattern: '^(X10)?$' }],
  ['event_start_command', 'EventStartCommand', 'str:255'],
  ['event_end_command', 'EventEndCommand', 'str:255'],
  ['onvif_url', 'ONVIF_URL', 'str:255'],
  ['onvif_events_path', 'ONVIF_Events_Path', 'str:20'],
  ['onvif_username', 'ONVIF_Username', 'str:64'],
  ['onvif_password', 'ONVIF_Password', 'str:64', { writeOnly: true }],
  ['onvif_options', 'ONVIF_Options', 'str:255'],
  ['onvif_event_listener', 'ONVIF_Event_Listener', 'flag'],
  ['onvif_alarm_text', 'ONVIF_Alarm_Text', 'str:30?'],
  ['use_amcrest_api', 'use_Amcrest_API', 'flag'],
  ['device', 'Device', 'str:255'],
  ['channel', 'Channel', 'u8'],
  ['format', 'Format', 'u32'],
  ['v4l_multi_buffer', 'V4LMultiBuffer', 'u8?', { range: [0, 1], inputDoc: 'V4L multi-buffer.' }],
  ['v4l_captures_per_frame', 'V4LCapturesPerFrame', 'u8?'],
  ['protocol', 'Protocol', 'str:16?'],
  ['method', 'Method', 'str:16?'],
  ['host', 'Host', 'str:64?'],
  ['port', 'Port', 'str:8'],
  ['sub_path', 'SubPath', 'str:64'],
  ['path', 'Path', 'str:255?'],
  ['second_path', 'SecondPath', 'str:255?'],
  ['options', 'Options', 'str:255?'],
  ['user', 'User', 'str:64?'],
  ['pass', 'Pass', 'str:64?', { writeOnly: true }],
  ['width', 'Width', 'u16'],
  ['height', 'Height', 'u16'],
  ['colours', 'Colours', 'u8'],
  ['palette', 'Palette', 'u32'],
  [
    'orientation',
    'Orientation',
    'enum',
    {
      enumType: 'MonitorOrientationInput',
      values: ['ROTATE_0', 'ROTATE_90', 'ROTATE_180', 'ROTATE_270', 'FLIP_HORI', 'FLIP_VERT'],
    },
  ],
  ['deinterlacing', 'Deinterlacing', 'u32'],
  ['decoder', 'Decoder', 'str:32?'],
  ['decoder_hw_accel_name', 'DecoderHWAccelName', 'str:64?'],
  ['decoder_hw_accel_device', 'DecoderHWAccelDevice', 'str:255?'],
  [
    'save_jpe_gs',
    'SaveJPEGs',
    'i8',
    { range: [0, 3], inputDoc: 'Two-bit mask: 1 = capture JPEGs, 2 = analysis JPEGs.' },
  ],
  ['video_writer', 'VideoWriter', 'i8', { range: [0, 2], inputDoc: '0 disabled, 1 encode, 2 camera passthrough.' }],
  ['output_codec', 'OutputCodec', 'u32', { responseNullable: true }],
  ['encoder', 'Encoder', 'str:32?'],
  ['encoder_hw_accel_name', 'EncoderHWAccelName', 'str:64?'],
  ['encoder_hw_accel_device', 'EncoderHWAccelDevice', 'str:255?'],
  [
    'output_container',
    'OutputContainer',
    'enum?',
    { enumType: 'MonitorOutputContainerInput', values: ['auto', 'mp4', 'mkv', 'webm'] },
  ],
  ['encoder_parameters', 'EncoderParameters', 'str:65535?'],
  ['wall_clock_timestamps', 'WallClockTimestamps', 'i8', { range: [0, 1], inputDoc: 'Use wall-clock timestamps.' }],
  ['record_audio', 'RecordAudio', 'i8', { range: [0, 1], inputDoc: 'Record the audio track.' }],
  [
    'recording_source',
    'RecordingSource',
    'enum',
    { enumType: 'MonitorRecordingSource', values: ['Primary', 'Secondary', 'Both'] },
  ],
  ['rtsp_describe', 'RTSPDescribe', 'u8?', { range: [0, 1], inputDoc: 'Use RTSP DESCRIBE.' }],
  ['brightness', 'Brightness', 'i24', { responseNullable: true }],
  ['contrast', 'Contrast', 'i24', { responseNullable: true }],
  ['hue', 'Hue', 'i24', { responseNullable: true }],
  ['colour', 'Colour', 'i24', { responseNullable: true }],
  ['event_prefix', 'EventPrefix', 'str:32'],
  ['label_format', 'LabelFormat', 'str:64?'],
  ['label_x', 'LabelX', 'u16'],
  ['label_y', 'LabelY', 'u16'],
  ['label_size', 'LabelSize', 'u16'],
  ['image_buffer_count', 'ImageBufferCount', 'u16'],
  ['max_image_buffer_count', 'MaxImageBufferCount', 'u16'],
  ['warmup_count', 'WarmupCount', 'u16'],
  ['pre_event_count', 'PreEventCount', 'u16'],
  ['post_event_count', 'PostEventCount', 'u16'],
  ['stream_replay_buffer', 'StreamReplayBuffer', 'u32'],
  ['alarm_frame_count', 'AlarmFrameCount', 'u16'],
  ['section_length', 'SectionLength', 'u32'],
  ['section_length_warn', 'SectionLengthWarn', 'flag'],
  [
    'event_close_mode',
    'EventCloseMode',
    'enum',
    { enumType: 'MonitorEventCloseModeInput', values: ['system', 'time', 'duration', 'idle', 'alarm'] },
  ],
  ['min_section_length', 'MinSectionLength', 'u32'],
  ['frame_skip', 'FrameSkip', 'u16'],
  ['motion_frame_skip', 'MotionFrameSkip', 'u16'],
  ['analysis_fps_limit', 'AnalysisFPSLimit', 'dec?', { range: [0, 999.99] }],
  ['analysis_update_delay', 'AnalysisUpdateDelay', 'u16'],
  ['max_fps', 'MaxFPS', 'dec?', { range: [0, 999.99] }],
  ['alarm_max_fps', 'AlarmMaxFPS', 'dec?', { range: [0, 999.99] }],
  ['fps_report_interval', 'FPSReportInterval', 'u16'],
  ['ref_blend_perc', 'RefBlendPerc', 'u8'],
  ['alarm_ref_blend_perc', 'AlarmRefBlendPerc', 'u8'],
  ['controllable', 'Controllable', 'u8', { range: [0, 1], inputDoc: 'PTZ controllable.' }],
  ['control_id', 'ControlId', 'u32?'],
  ['control_device', 'ControlDevice', 'str:255?'],
  ['control_address', 'ControlAddress', 'str:255?'],
  ['auto_stop_timeout', 'AutoStopTimeout', 'dec?', { range: [0, 999.99] }],
  ['track_motion', 'TrackMotion', 'u8', { range: [0, 1], inputDoc: 'Track motion with PTZ.' }],
  ['track_delay', 'TrackDelay', 'u16?'],
  ['return_location', 'ReturnLocation', 'i8'],
  ['return_delay', 'ReturnDelay', 'u16?'],
  ['modect_during_ptz', 'ModectDuringPTZ', 'u8', { range: [0, 1], inputDoc: 'Motion detection while PTZ moves.' }],
  ['default_rate', 'DefaultRate', 'u16'],
  ['default_scale', 'DefaultScale', 'str:16'],
  ['default_codec', 'DefaultCodec', 'enum', { enumType: 'MonitorDefaultCodecInput', values: ['auto', 'MP4', 'MJPEG'] }],
  ['signal_check_points', 'SignalCheckPoints', 'u32'],
  ['signal_check_colour', 'SignalCheckColour', 'str:32'],
  ['web_colour', 'WebColour', 'str:32'],
  ['exif', 'Exif', 'u8', { range: [0, 1], inputDoc: 'Write EXIF data.' }],
  ['sequence', 'Sequence', 'u16?'],
  // Maintained by the Zones insert/delete triggers; a written value would go stale at once.
  [
    'zone_count',
    'ZoneCount',
    'i8',
    { readOnly: true, inputDoc: 'Ignored: Monitors.ZoneCount is maintained by the Zones triggers.' },
  ],
  ['refresh', 'Refresh', 'u32?'],
  ['latitude', 'Latitude', 'dec?', { range: [-90, 90] }],
  ['longitude', 'Longitude', 'dec?', { range: [-180, 180] }],
  ['rtsp_server', 'RTSPServer', 'flag'],
  ['rtsp_stream_name', 'RTSPStreamName', 'str:255'],
  ['soap_wsa_compl', 'SOAP_wsa_compl', 'flag'],
  ['importance', 'Importance', 'enum', { enumType: 'MonitorImportance', values: ['Normal', 'Less', 'Not'] }],
  ['mqtt_enabled', 'MQTT_Enabled', 'flag'],
  ['mqtt_subscriptions', 'MQTT_Subscriptions', 'str:255?', { nullAs: '' }],
  ['startup_delay', 'StartupDelay', 'i32'],
];

// ---------------------------------------------------------------------------------------------
// Enums: emitted as stored; on input the stored spelling and the older variant are accepted.

/** Variant spellings v3 clients send (docs/contract/clients.md), mapped to the stored value. */
const VARIANTS: Record<string, Record<string, string>> = {
  Type: { Curl: 'cURL', Vnc: 'VNC' },
  Decoding: { KeyFramesOndemand: 'KeyFrames+Ondemand' },
  EventCloseMode: { System: 'system', Time: 'time', Duration: 'duration', Idle: 'idle', Alarm: 'alarm' },
  DefaultCodec: { Auto: 'auto', Mp4: 'MP4', Mjpeg: 'MJPEG' },
  OutputContainer: { Auto: 'auto', Mp4: 'mp4', Mkv: 'mkv', Webm: 'webm' },
  RTSP2WebType: { Hls: 'HLS', Mse: 'MSE', WebRtc: 'WebRTC' },
  Orientation: {
    Rotate0: 'ROTATE_0',
    Rotate90: 'ROTATE_90',
    Rotate180: 'ROTATE_180',
    Rotate270: 'ROTATE_270',
    FlipHori: 'FLIP_HORI',
    FlipVert: 'FLIP_VERT',
  },
};

export const MONITOR_FIELDS: readonly MonitorField[] = fieldTable(SPECS).map((f) =>
  VARIANTS[f.column] ? { ...f, variants: VARIANTS[f.column] } : f,
);

export { INT_RANGES };

/** Prisma names enum members that are not identifiers differently from the stored value. */
const PRISMA_MEMBER: Record<string, Record<string, string>> = {
  Decoding: { 'KeyFrames+Ondemand': 'KeyFrames_Ondemand' },
};

/** Input spelling → the value Prisma expects for the column. */
export function enumToPrisma(column: string, value: string): string {
  const stored = VARIANTS[column]?.[value] ?? value;
  return PRISMA_MEMBER[column]?.[stored] ?? stored;
}

/** Prisma's value → the stored spelling clients see. */
export function enumFromPrisma(column: string, value: string): string {
  const member = PRISMA_MEMBER[column];
  if (member) for (const [stored, name] of Object.entries(member)) if (name === value) return stored;
  return value;
}

// ---------------------------------------------------------------------------------------------
// Function ↔ Capturing/Analysing/Recording (docs/zoneminder/database.md).

export type FunctionValue = 'None' | 'Monitor' | 'Modect' | 'Record' | 'Mocord' | 'Nodect';
export interface Modes {
  Capturing: 'None' | 'Ondemand' | 'Always';
  Analysing: 'None' | 'Always';
  Recording: 'None' | 'OnMotion' | 'Always';
}

const FUNCTION_MODES: Record<FunctionValue, Partial<Modes>> = {
  None: { Capturing: 'None' },
  Monitor: { Analysing: 'None', Recording: 'None' },
  Modect: { Analysing: 'Always', Recording: 'OnMotion' },
  Record: { Analysing: 'None', Recording: 'Always' },
  Mocord: { Analysing: 'Always', Recording: 'Always' },
  Nodect: { Analysing: 'None', Recording: 'OnMotion' },
};

/** The modes a legacy Function means, applied over the current ones (zm_update-1.37.12). */
export function modesForFunction(fn: FunctionValue, current: Modes): Modes {
  const modes = { ...current, ...FUNCTION_MODES[fn] };
  // Any function but None captures: a monitor switched from None must not stay idle.
  if (fn !== 'None' && modes.Capturing === 'None') modes.Capturing = 'Always';
  return modes;
}

/**
 * The Function 1.36-era tools should see for the given modes. Analysis without recording has no
 * legacy name; it maps to Monitor, so that no tool starts recording that was not asked for.
 */
export function functionForModes(m: Modes): FunctionValue {
  if (m.Capturing === 'None') return 'None';
  if (m.Analysing === 'Always')
    return m.Recording === 'Always' ? 'Mocord' : m.Recording === 'OnMotion' ? 'Modect' : 'Monitor';
  return m.Recording === 'Always' ? 'Record' : m.Recording === 'OnMotion' ? 'Nodect' : 'Monitor';
}

export type MonitorWrite = Prisma.MonitorsUncheckedCreateInput;
