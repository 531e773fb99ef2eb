// Monitors: the Monitors table, filtered by the row-level ACL. Field mapping in monitor-fields.ts.
//
// Decisions:
// - Enums are emitted as stored (ROTATE_90, cURL, KeyFrames+Ondemand, …); on input the stored
//   spelling and the older variant (Rotate90, Curl, KeyFramesOndemand, Mp4, …) are accepted.
// - Function vs Capturing/Analysing/Recording: when any of the three modes is written they are
//   authoritative and Function is re-derived from them, so 1.36-era tools reading Function see
//   the same behaviour; when only Function is written, the modes are derived from it as
//   zm_update-1.37.12 does. A create with neither gets the column defaults and the matching
//   Function (Mocord), never the inconsistent pair the bare defaults would give.
// - Create needs `name` only; every other column takes its database default. The reference
//   marks ~100 fields required, which the clients send anyway; requiring fewer is compatible.
// - Creating a monitor needs an unrestricted row scope (a restricted user could not see it).
// - Alarm control writes TriggerData in the monitor's shared memory (docs/zoneminder/shared-memory.md), as zmu -a/-c/-n
//   do: on = force (score default 100, cause default "API", the client's values), off = suppress,
//   cancel = end; status reads it. All four answer the Monitor, and 503 when zmc is not capturing
//   (no file, valid 0, Capturing None, stale heartbeat) — a 2xx to `status` is what makes the
//   browser client offer Force Alarm. Start/stop needs daemon supervision: validated, then 503.
import type { AuthUser } from '../../auth/auth-service.js';
import {
  isUnrestricted,
  monitorNotFound,
  requireEditableMonitor,
  requireVisibleMonitor,
  type MonitorAcl,
} from '../../auth/monitor-acl.js';
import type { PrismaClient } from '../../db/prisma.js';
import { InvalidInputError, PermissionDeniedError, ServiceUnavailableError } from '../../errors.js';
import type { Monitors, Prisma } from '../../generated/prisma/client.js';
import { pageOf, pageRequest, type Page, type PageRequest, listPage } from '../../api/pagination.js';
import { controlAlarm } from '../live/alarm-control.js';
import { notCapturing } from '../live/live-images.js';
import { MonitorRows } from './monitor-rows.js';
import { MAX_SNAPSHOT_PAGES, ReadCaches } from '../read-cache/read-caches.js';
import { withJsonText } from '../read-cache/json-text.js';
import { Daemons } from '../daemons/daemon-manager.js';
import { DaemonsService } from '../daemons/daemons-service.js';
import {
  MONITOR_FIELDS,
  enumFromPrisma,
  enumToPrisma,
  functionForModes,
  modesForFunction,
  type FunctionValue,
  type Modes,
} from './monitor-fields.js';
import type { Services } from '../../registry.js';

/** Stored values plus the older variant spellings clients send. */
export type MonitorTypeInput =
  'Local' | 'Remote' | 'File' | 'Ffmpeg' | 'Libvlc' | 'cURL' | 'WebSite' | 'NVSocket' | 'VNC' | 'Curl' | 'Vnc';
export type MonitorFunction = 'None' | 'Monitor' | 'Modect' | 'Record' | 'Mocord' | 'Nodect';
export type MonitorCapturing = 'None' | 'Ondemand' | 'Always';
export type MonitorAnalysing = 'None' | 'Always';
export type MonitorRecording = 'None' | 'OnMotion' | 'Always';
export type MonitorAnalysisSource = 'Primary' | 'Secondary';
export type MonitorAnalysisImage = 'FullColour' | 'YChannel';
export type MonitorDecodingInput =
  'None' | 'Ondemand' | 'KeyFrames' | 'KeyFrames+Ondemand' | 'KeyFramesOndemand' | 'Always';
export type MonitorWhatDisplay = 'OnlyVideo' | 'OnlyAudioVisualization' | 'VideoAudioVisualization';
export type MonitorRtsp2WebTypeInput = 'HLS' | 'MSE' | 'WebRTC' | 'Hls' | 'Mse' | 'WebRtc';
export type MonitorStreamChannel = 'Restream' | 'CameraDirectPrimary' | 'CameraDirectSecondary';
export type MonitorOrientationInput =
  | 'ROTATE_0'
  | 'ROTATE_90'
  | 'ROTATE_180'
  | 'ROTATE_270'
  | 'FLIP_HORI'
  | 'FLIP_VERT'
  | 'Rotate0'
  | 'Rotate90'
  | 'Rotate180'
  | 'Rotate270'
  | 'FlipHori'
  | 'FlipVert';
export type MonitorOutputContainerInput = 'auto' | 'mp4' | 'mkv' | 'webm' | 'Auto' | 'Mp4' | 'Mkv' | 'Webm';
export type MonitorRecordingSource = 'Primary' | 'Secondary' | 'Both';
export type MonitorEventCloseModeInput =
  'system' | 'time' | 'duration' | 'idle' | 'alarm' | 'System' | 'Time' | 'Duration' | 'Idle' | 'Alarm';
export type MonitorDefaultCodecInput = 'auto' | 'MP4' | 'MJPEG' | 'Auto' | 'Mp4' | 'Mjpeg';
export type MonitorImportance = 'Normal' | 'Less' | 'Not';

/** A monitor as clients see it: every column but the two passwords, enums as stored. */
export interface MonitorResponse {
  /** Monitors.Id. @isInt @minimum 0 */
  id: number;
  /** Monitors.Name. */
  name: string;
  /** Monitors.Notes. */
  notes: string | null;
  /** Monitors.Deleted. */
  deleted: boolean;
  /** Monitors.ServerId. @isInt @minimum 0 */
  server_id: number | null;
  /** Monitors.StorageId. @isInt @minimum 0 */
  storage_id: number;
  /** Monitors.ManufacturerId. @isInt @minimum 0 */
  manufacturer_id: number | null;
  /** Monitors.ModelId. @isInt @minimum 0 */
  model_id: number | null;
  /** Monitors.Type. */
  type: string;
  /** Monitors.Function. */
  function: string;
  /** Monitors.Capturing. */
  capturing: string;
  /** Monitors.Analysing. */
  analysing: string;
  /** Monitors.AnalysisSource. */
  analysis_source: string;
  /** Monitors.AnalysisImage. */
  analysis_image: string;
  /** Monitors.AnalysisImageOpacity. @isInt @minimum 0 */
  analysis_image_opacity: number;
  /** Monitors.ObjectDetection. */
  object_detection: string;
  /** Monitors.ObjectDetectionModel. */
  object_detection_model: string;
  /** Monitors.ObjectDetectionObjectThreshold. @isFloat */
  object_detection_object_threshold: number;
  /** Monitors.ObjectDetectionNMSThreshold. @isFloat */
  object_detection_nms_threshold: number;
  /** Monitors.Recording. */
  recording: string;
  /** Monitors.Enabled. @isInt @minimum 0 */
  enabled: number;
  /** Monitors.DecodingEnabled. @isInt @minimum 0 */
  decoding_enabled: number;
  /** Monitors.Decoding. */
  decoding: string;
  /** Monitors.WhatDisplay. */
  what_display: string;
  /** Monitors.RTSP2WebEnabled. @isInt */
  rtsp2_web_enabled: number;
  /** Monitors.RTSP2WebType. */
  rtsp2_web_type: string;
  /** Monitors.DefaultPlayer. */
  default_player: string | null;
  /** Monitors.StreamChannel. */
  stream_channel: string;
  /** Monitors.Go2RTCEnabled. @isInt */
  go2rtc_enabled: number;
  /** Monitors.JanusEnabled. @isInt */
  janus_enabled: number;
  /** Monitors.JanusAudioEnabled. @isInt */
  janus_audio_enabled: number;
  /** Monitors.Janus_Profile_Override. */
  janus_profile_override: string | null;
  /** Monitors.Restream. @isInt */
  restream: number;
  /** Monitors.RTSP_User. @isInt */
  rtsp_user: number | null;
  /** Monitors.Janus_RTSP_Session_Timeout. @isInt */
  janus_rtsp_session_timeout: number | null;
  /** Monitors.LinkedMonitors. */
  linked_monitors: string | null;
  /** Monitors.Triggers. */
  triggers: string;
  /** Monitors.EventStartCommand. */
  event_start_command: string;
  /** Monitors.EventEndCommand. */
  event_end_command: string;
  /** Monitors.ONVIF_URL. */
  onvif_url: string;
  /** Monitors.ONVIF_Events_Path. */
  onvif_events_path: string;
  /** Monitors.ONVIF_Username. */
  onvif_username: string;
  /** Monitors.ONVIF_Options. */
  onvif_options: string;
  /** Monitors.ONVIF_Event_Listener. @isInt */
  onvif_event_listener: number;
  /** Monitors.ONVIF_Alarm_Text. */
  onvif_alarm_text: string | null;
  /** Monitors.use_Amcrest_API. @isInt */
  use_amcrest_api: number;
  /** Monitors.Device. */
  device: string;
  /** Monitors.Channel. @isInt @minimum 0 */
  channel: number;
  /** Monitors.Format. @isInt @minimum 0 */
  format: number;
  /** Monitors.V4LMultiBuffer. @isInt @minimum 0 */
  v4l_multi_buffer: number | null;
  /** Monitors.V4LCapturesPerFrame. @isInt @minimum 0 */
  v4l_captures_per_frame: number | null;
  /** Monitors.Protocol. */
  protocol: string | null;
  /** Monitors.Method. */
  method: string | null;
  /** Monitors.Host. */
  host: string | null;
  /** Monitors.Port. */
  port: string;
  /** Monitors.SubPath. */
  sub_path: string;
  /** Monitors.Path. */
  path: string | null;
  /** Monitors.SecondPath. */
  second_path: string | null;
  /** Monitors.Options. */
  options: string | null;
  /** Monitors.User. */
  user: string | null;
  /** Monitors.Width. @isInt @minimum 0 */
  width: number;
  /** Monitors.Height. @isInt @minimum 0 */
  height: number;
  /** Monitors.Colours. @isInt @minimum 0 */
  colours: number;
  /** Monitors.Palette. @isInt @minimum 0 */
  palette: number;
  /** Monitors.Orientation. */
  orientation: string;
  /** Monitors.Deinterlacing. @isInt @minimum 0 */
  deinterlacing: number;
  /** Monitors.Decoder. */
  decoder: string | null;
  /** Monitors.DecoderHWAccelName. */
  decoder_hw_accel_name: string | null;
  /** Monitors.DecoderHWAccelDevice. */
  decoder_hw_accel_device: string | null;
  /** Monitors.SaveJPEGs. @isInt */
  save_jpe_gs: number;
  /** Monitors.VideoWriter. @isInt */
  video_writer: number;
  /** Monitors.OutputCodec. @isInt @minimum 0 */
  output_codec: number | null;
  /** Monitors.Encoder. */
  encoder: string | null;
  /** Monitors.EncoderHWAccelName. */
  encoder_hw_accel_name: string | null;
  /** Monitors.EncoderHWAccelDevice. */
  encoder_hw_accel_device: string | null;
  /** Monitors.OutputContainer. */
  output_container: string | null;
  /** Monitors.EncoderParameters. */
  encoder_parameters: string | null;
  /** Monitors.WallClockTimestamps. @isInt */
  wall_clock_timestamps: number;
  /** Monitors.RecordAudio. @isInt */
  record_audio: number;
  /** Monitors.RecordingSource. */
  recording_source: string;
  /** Monitors.RTSPDescribe. @isInt @minimum 0 */
  rtsp_describe: number | null;
  /** Monitors.Brightness. @isInt */
  brightness: number | null;
  /** Monitors.Contrast. @isInt */
  contrast: number | null;
  /** Monitors.Hue. @isInt */
  hue: number | null;
  /** Monitors.Colour. @isInt */
  colour: number | null;
  /** Monitors.EventPrefix. */
  event_prefix: string;
  /** Monitors.LabelFormat. */
  label_format: string | null;
  /** Monitors.LabelX. @isInt @minimum 0 */
  label_x: number;
  /** Monitors.LabelY. @isInt @minimum 0 */
  label_y: number;
  /** Monitors.LabelSize. @isInt @minimum 0 */
  label_size: number;
  /** Monitors.ImageBufferCount. @isInt @minimum 0 */
  image_buffer_count: number;
  /** Monitors.MaxImageBufferCount. @isInt @minimum 0 */
  max_image_buffer_count: number;
  /** Monitors.WarmupCount. @isInt @minimum 0 */
  warmup_count: number;
  /** Monitors.PreEventCount. @isInt @minimum 0 */
  pre_event_count: number;
  /** Monitors.PostEventCount. @isInt @minimum 0 */
  post_event_count: number;
  /** Monitors.StreamReplayBuffer. @isInt @minimum 0 */
  stream_replay_buffer: number;
  /** Monitors.AlarmFrameCount. @isInt @minimum 0 */
  alarm_frame_count: number;
  /** Monitors.SectionLength. @isInt @minimum 0 */
  section_length: number;
  /** Monitors.SectionLengthWarn. @isInt */
  section_length_warn: number;
  /** Monitors.EventCloseMode. */
  event_close_mode: string;
  /** Monitors.MinSectionLength. @isInt @minimum 0 */
  min_section_length: number;
  /** Monitors.FrameSkip. @isInt @minimum 0 */
  frame_skip: number;
  /** Monitors.MotionFrameSkip. @isInt @minimum 0 */
  motion_frame_skip: number;
  /** Monitors.AnalysisFPSLimit. */
  analysis_fps_limit: number | null;
  /** Monitors.AnalysisUpdateDelay. @isInt @minimum 0 */
  analysis_update_delay: number;
  /** Monitors.MaxFPS. */
  max_fps: number | null;
  /** Monitors.AlarmMaxFPS. */
  alarm_max_fps: number | null;
  /** Monitors.FPSReportInterval. @isInt @minimum 0 */
  fps_report_interval: number;
  /** Monitors.RefBlendPerc. @isInt @minimum 0 */
  ref_blend_perc: number;
  /** Monitors.AlarmRefBlendPerc. @isInt @minimum 0 */
  alarm_ref_blend_perc: number;
  /** Monitors.Controllable. @isInt @minimum 0 */
  controllable: number;
  /** Monitors.ControlId. @isInt @minimum 0 */
  control_id: number | null;
  /** Monitors.ControlDevice. */
  control_device: string | null;
  /** Monitors.ControlAddress. */
  control_address: string | null;
  /** Monitors.AutoStopTimeout. */
  auto_stop_timeout: number | null;
  /** Monitors.TrackMotion. @isInt @minimum 0 */
  track_motion: number;
  /** Monitors.TrackDelay. @isInt @minimum 0 */
  track_delay: number | null;
  /** Monitors.ReturnLocation. @isInt */
  return_location: number;
  /** Monitors.ReturnDelay. @isInt @minimum 0 */
  return_delay: number | null;
  /** Monitors.ModectDuringPTZ. @isInt @minimum 0 */
  modect_during_ptz: number;
  /** Monitors.DefaultRate. @isInt @minimum 0 */
  default_rate: number;
  /** Monitors.DefaultScale. */
  default_scale: string;
  /** Monitors.DefaultCodec. */
  default_codec: string;
  /** Monitors.SignalCheckPoints. @isInt @minimum 0 */
  signal_check_points: number;
  /** Monitors.SignalCheckColour. */
  signal_check_colour: string;
  /** Monitors.WebColour. */
  web_colour: string;
  /** Monitors.Exif. @isInt @minimum 0 */
  exif: number;
  /** Monitors.Sequence. @isInt @minimum 0 */
  sequence: number | null;
  /** Monitors.ZoneCount. @isInt */
  zone_count: number;
  /** Monitors.Refresh. @isInt @minimum 0 */
  refresh: number | null;
  /** Monitors.Latitude. */
  latitude: number | null;
  /** Monitors.Longitude. */
  longitude: number | null;
  /** Monitors.RTSPServer. @isInt */
  rtsp_server: number;
  /** Monitors.RTSPStreamName. */
  rtsp_stream_name: string;
  /** Monitors.SOAP_wsa_compl. @isInt */
  soap_wsa_compl: number;
  /** Monitors.Importance. */
  importance: string;
  /** Monitors.MQTT_Enabled. @isInt */
  mqtt_enabled: number;
  /** Monitors.MQTT_Subscriptions. */
  mqtt_subscriptions: string;
  /** Monitors.StartupDelay. @isInt */
  startup_delay: number;
}

/** Every writable column; all optional (unset columns keep their value or database default). */
export interface MonitorSettings {
  /** Ignored: Monitors.ZoneCount is maintained by the Zones triggers. @isInt */
  zone_count?: number | null;
  /** Monitors.Notes. @maxLength 65535 */
  notes?: string | null;
  /** Monitors.Deleted. */
  deleted?: boolean | null;
  /** Monitors.ServerId. @isInt @minimum 0 @maximum 4294967295 */
  server_id?: number | null;
  /** Monitors.StorageId. @isInt @minimum 0 @maximum 65535 */
  storage_id?: number | null;
  /** Monitors.ManufacturerId. @isInt @minimum 0 @maximum 4294967295 */
  manufacturer_id?: number | null;
  /** Monitors.ModelId. @isInt @minimum 0 @maximum 4294967295 */
  model_id?: number | null;
  /** Monitors.Type. */
  type?: MonitorTypeInput | null;
  /** Monitors.Function. */
  function?: MonitorFunction | null;
  /** Monitors.Capturing. */
  capturing?: MonitorCapturing | null;
  /** Monitors.Analysing. */
  analysing?: MonitorAnalysing | null;
  /** Monitors.AnalysisSource. */
  analysis_source?: MonitorAnalysisSource | null;
  /** Monitors.AnalysisImage. */
  analysis_image?: MonitorAnalysisImage | null;
  /** Monitors.AnalysisImageOpacity. @isInt @minimum 0 @maximum 255 */
  analysis_image_opacity?: number | null;
  /** Monitors.ObjectDetection. @maxLength 16 */
  object_detection?: string | null;
  /** Monitors.ObjectDetectionModel. @maxLength 255 */
  object_detection_model?: string | null;
  /** Monitors.ObjectDetectionObjectThreshold. @isFloat @minimum 0 @maximum 1 */
  object_detection_object_threshold?: number | null;
  /** Monitors.ObjectDetectionNMSThreshold. @isFloat @minimum 0 @maximum 1 */
  object_detection_nms_threshold?: number | null;
  /** Monitors.Recording. */
  recording?: MonitorRecording | null;
  /** Monitor enabled. @isInt @minimum 0 @maximum 1 */
  enabled?: number | null;
  /** Decoding enabled. @isInt @minimum 0 @maximum 1 */
  decoding_enabled?: number | null;
  /** Monitors.Decoding. */
  decoding?: MonitorDecodingInput | null;
  /** Monitors.WhatDisplay. */
  what_display?: MonitorWhatDisplay | null;
  /** Monitors.RTSP2WebEnabled. @isInt @minimum 0 @maximum 1 */
  rtsp2_web_enabled?: number | null;
  /** Monitors.RTSP2WebType. */
  rtsp2_web_type?: MonitorRtsp2WebTypeInput | null;
  /** Monitors.DefaultPlayer. @maxLength 64 */
  default_player?: string | null;
  /** Monitors.StreamChannel. */
  stream_channel?: MonitorStreamChannel | null;
  /** Monitors.Go2RTCEnabled. @isInt @minimum 0 @maximum 1 */
  go2rtc_enabled?: number | null;
  /** Monitors.JanusEnabled. @isInt @minimum 0 @maximum 1 */
  janus_enabled?: number | null;
  /** Monitors.JanusAudioEnabled. @isInt @minimum 0 @maximum 1 */
  janus_audio_enabled?: number | null;
  /** Monitors.Janus_Profile_Override. @maxLength 30 */
  janus_profile_override?: string | null;
  /** Monitors.Restream. @isInt @minimum 0 @maximum 1 */
  restream?: number | null;
  /** Monitors.RTSP_User. @isInt @minimum -2147483648 @maximum 2147483647 */
  rtsp_user?: number | null;
  /** Monitors.Janus_RTSP_Session_Timeout. @isInt @minimum -2147483648 @maximum 2147483647 */
  janus_rtsp_session_timeout?: number | null;
  /** Monitors.LinkedMonitors. @maxLength 255 */
  linked_monitors?: string | null;
  /** Monitors.Triggers. @maxLength 3 @pattern ^(X10)?$ */
  triggers?: string | null;
  /** Monitors.EventStartCommand. @maxLength 255 */
  event_start_command?: string | null;
  /** Monitors.EventEndCommand. @maxLength 255 */
  event_end_command?: string | null;
  /** Monitors.ONVIF_URL. @maxLength 255 */
  onvif_url?: string | null;
  /** Monitors.ONVIF_Events_Path. @maxLength 20 */
  onvif_events_path?: string | null;
  /** Monitors.ONVIF_Username. @maxLength 64 */
  onvif_username?: string | null;
  /** Monitors.ONVIF_Password. @maxLength 64 */
  onvif_password?: string | null;
  /** Monitors.ONVIF_Options. @maxLength 255 */
  onvif_options?: string | null;
  /** Monitors.ONVIF_Event_Listener. @isInt @minimum 0 @maximum 1 */
  onvif_event_listener?: number | null;
  /** Monitors.ONVIF_Alarm_Text. @maxLength 30 */
  onvif_alarm_text?: string | null;
  /** Monitors.use_Amcrest_API. @isInt @minimum 0 @maximum 1 */
  use_amcrest_api?: number | null;
  /** Monitors.Device. @maxLength 255 */
  device?: string | null;
  /** Monitors.Channel. @isInt @minimum 0 @maximum 255 */
  channel?: number | null;
  /** Monitors.Format. @isInt @minimum 0 @maximum 4294967295 */
  format?: number | null;
  /** V4L multi-buffer. @isInt @minimum 0 @maximum 1 */
  v4l_multi_buffer?: number | null;
  /** Monitors.V4LCapturesPerFrame. @isInt @minimum 0 @maximum 255 */
  v4l_captures_per_frame?: number | null;
  /** Monitors.Protocol. @maxLength 16 */
  protocol?: string | null;
  /** Monitors.Method. @maxLength 16 */
  method?: string | null;
  /** Monitors.Host. @maxLength 64 */
  host?: string | null;
  /** Monitors.Port. @maxLength 8 */
  port?: string | null;
  /** Monitors.SubPath. @maxLength 64 */
  sub_path?: string | null;
  /** Monitors.Path. @maxLength 255 */
  path?: string | null;
  /** Monitors.SecondPath. @maxLength 255 */
  second_path?: string | null;
  /** Monitors.Options. @maxLength 255 */
  options?: string | null;
  /** Monitors.User. @maxLength 64 */
  user?: string | null;
  /** Monitors.Pass. @maxLength 64 */
  pass?: string | null;
  /** Monitors.Width. @isInt @minimum 0 @maximum 65535 */
  width?: number | null;
  /** Monitors.Height. @isInt @minimum 0 @maximum 65535 */
  height?: number | null;
  /** Monitors.Colours. @isInt @minimum 0 @maximum 255 */
  colours?: number | null;
  /** Monitors.Palette. @isInt @minimum 0 @maximum 4294967295 */
  palette?: number | null;
  /** Monitors.Orientation. */
  orientation?: MonitorOrientationInput | null;
  /** Monitors.Deinterlacing. @isInt @minimum 0 @maximum 4294967295 */
  deinterlacing?: number | null;
  /** Monitors.Decoder. @maxLength 32 */
  decoder?: string | null;
  /** Monitors.DecoderHWAccelName. @maxLength 64 */
  decoder_hw_accel_name?: string | null;
  /** Monitors.DecoderHWAccelDevice. @maxLength 255 */
  decoder_hw_accel_device?: string | null;
  /** Two-bit mask: 1 = capture JPEGs, 2 = analysis JPEGs. @isInt @minimum 0 @maximum 3 */
  save_jpe_gs?: number | null;
  /** 0 disabled, 1 encode, 2 camera passthrough. @isInt @minimum 0 @maximum 2 */
  video_writer?: number | null;
  /** Monitors.OutputCodec. @isInt @minimum 0 @maximum 4294967295 */
  output_codec?: number | null;
  /** Monitors.Encoder. @maxLength 32 */
  encoder?: string | null;
  /** Monitors.EncoderHWAccelName. @maxLength 64 */
  encoder_hw_accel_name?: string | null;
  /** Monitors.EncoderHWAccelDevice. @maxLength 255 */
  encoder_hw_accel_device?: string | null;
  /** Monitors.OutputContainer. */
  output_container?: MonitorOutputContainerInput | null;
  /** Monitors.EncoderParameters. @maxLength 65535 */
  encoder_parameters?: string | null;
  /** Use wall-clock timestamps. @isInt @minimum 0 @maximum 1 */
  wall_clock_timestamps?: number | null;
  /** Record the audio track. @isInt @minimum 0 @maximum 1 */
  record_audio?: number | null;
  /** Monitors.RecordingSource. */
  recording_source?: MonitorRecordingSource | null;
  /** Use RTSP DESCRIBE. @isInt @minimum 0 @maximum 1 */
  rtsp_describe?: number | null;
  /** Monitors.Brightness. @isInt @minimum -8388608 @maximum 8388607 */
  brightness?: number | null;
  /** Monitors.Contrast. @isInt @minimum -8388608 @maximum 8388607 */
  contrast?: number | null;
  /** Monitors.Hue. @isInt @minimum -8388608 @maximum 8388607 */
  hue?: number | null;
  /** Monitors.Colour. @isInt @minimum -8388608 @maximum 8388607 */
  colour?: number | null;
  /** Monitors.EventPrefix. @maxLength 32 */
  event_prefix?: string | null;
  /** Monitors.LabelFormat. @maxLength 64 */
  label_format?: string | null;
  /** Monitors.LabelX. @isInt @minimum 0 @maximum 65535 */
  label_x?: number | null;
  /** Monitors.LabelY. @isInt @minimum 0 @maximum 65535 */
  label_y?: number | null;
  /** Monitors.LabelSize. @isInt @minimum 0 @maximum 65535 */
  label_size?: number | null;
  /** Monitors.ImageBufferCount. @isInt @minimum 0 @maximum 65535 */
  image_buffer_count?: number | null;
  /** Monitors.MaxImageBufferCount. @isInt @minimum 0 @maximum 65535 */
  max_image_buffer_count?: number | null;
  /** Monitors.WarmupCount. @isInt @minimum 0 @maximum 65535 */
  warmup_count?: number | null;
  /** Monitors.PreEventCount. @isInt @minimum 0 @maximum 65535 */
  pre_event_count?: number | null;
  /** Monitors.PostEventCount. @isInt @minimum 0 @maximum 65535 */
  post_event_count?: number | null;
  /** Monitors.StreamReplayBuffer. @isInt @minimum 0 @maximum 4294967295 */
  stream_replay_buffer?: number | null;
  /** Monitors.AlarmFrameCount. @isInt @minimum 0 @maximum 65535 */
  alarm_frame_count?: number | null;
  /** Monitors.SectionLength. @isInt @minimum 0 @maximum 4294967295 */
  section_length?: number | null;
  /** Monitors.SectionLengthWarn. @isInt @minimum 0 @maximum 1 */
  section_length_warn?: number | null;
  /** Monitors.EventCloseMode. */
  event_close_mode?: MonitorEventCloseModeInput | null;
  /** Monitors.MinSectionLength. @isInt @minimum 0 @maximum 4294967295 */
  min_section_length?: number | null;
  /** Monitors.FrameSkip. @isInt @minimum 0 @maximum 65535 */
  frame_skip?: number | null;
  /** Monitors.MotionFrameSkip. @isInt @minimum 0 @maximum 65535 */
  motion_frame_skip?: number | null;
  /** Monitors.AnalysisFPSLimit. @minimum 0 @maximum 999.99 */
  analysis_fps_limit?: number | null;
  /** Monitors.AnalysisUpdateDelay. @isInt @minimum 0 @maximum 65535 */
  analysis_update_delay?: number | null;
  /** Monitors.MaxFPS. @minimum 0 @maximum 999.99 */
  max_fps?: number | null;
  /** Monitors.AlarmMaxFPS. @minimum 0 @maximum 999.99 */
  alarm_max_fps?: number | null;
  /** Monitors.FPSReportInterval. @isInt @minimum 0 @maximum 65535 */
  fps_report_interval?: number | null;
  /** Monitors.RefBlendPerc. @isInt @minimum 0 @maximum 255 */
  ref_blend_perc?: number | null;
  /** Monitors.AlarmRefBlendPerc. @isInt @minimum 0 @maximum 255 */
  alarm_ref_blend_perc?: number | null;
  /** PTZ controllable. @isInt @minimum 0 @maximum 1 */
  controllable?: number | null;
  /** Monitors.ControlId. @isInt @minimum 0 @maximum 4294967295 */
  control_id?: number | null;
  /** Monitors.ControlDevice. @maxLength 255 */
  control_device?: string | null;
  /** Monitors.ControlAddress. @maxLength 255 */
  control_address?: string | null;
  /** Monitors.AutoStopTimeout. @minimum 0 @maximum 999.99 */
  auto_stop_timeout?: number | null;
  /** Track motion with PTZ. @isInt @minimum 0 @maximum 1 */
  track_motion?: number | null;
  /** Monitors.TrackDelay. @isInt @minimum 0 @maximum 65535 */
  track_delay?: number | null;
  /** Monitors.ReturnLocation. @isInt @minimum -128 @maximum 127 */
  return_location?: number | null;
  /** Monitors.ReturnDelay. @isInt @minimum 0 @maximum 65535 */
  return_delay?: number | null;
  /** Motion detection while PTZ moves. @isInt @minimum 0 @maximum 1 */
  modect_during_ptz?: number | null;
  /** Monitors.DefaultRate. @isInt @minimum 0 @maximum 65535 */
  default_rate?: number | null;
  /** Monitors.DefaultScale. @maxLength 16 */
  default_scale?: string | null;
  /** Monitors.DefaultCodec. */
  default_codec?: MonitorDefaultCodecInput | null;
  /** Monitors.SignalCheckPoints. @isInt @minimum 0 @maximum 4294967295 */
  signal_check_points?: number | null;
  /** Monitors.SignalCheckColour. @maxLength 32 */
  signal_check_colour?: string | null;
  /** Monitors.WebColour. @maxLength 32 */
  web_colour?: string | null;
  /** Write EXIF data. @isInt @minimum 0 @maximum 1 */
  exif?: number | null;
  /** Monitors.Sequence. @isInt @minimum 0 @maximum 65535 */
  sequence?: number | null;
  /** Monitors.Refresh. @isInt @minimum 0 @maximum 4294967295 */
  refresh?: number | null;
  /** Monitors.Latitude. @minimum -90 @maximum 90 */
  latitude?: number | null;
  /** Monitors.Longitude. @minimum -180 @maximum 180 */
  longitude?: number | null;
  /** Monitors.RTSPServer. @isInt @minimum 0 @maximum 1 */
  rtsp_server?: number | null;
  /** Monitors.RTSPStreamName. @maxLength 255 */
  rtsp_stream_name?: string | null;
  /** Monitors.SOAP_wsa_compl. @isInt @minimum 0 @maximum 1 */
  soap_wsa_compl?: number | null;
  /** Monitors.Importance. */
  importance?: MonitorImportance | null;
  /** Monitors.MQTT_Enabled. @isInt @minimum 0 @maximum 1 */
  mqtt_enabled?: number | null;
  /** Monitors.MQTT_Subscriptions. @maxLength 255 */
  mqtt_subscriptions?: string | null;
  /** Monitors.StartupDelay. @isInt @minimum -2147483648 @maximum 2147483647 */
  startup_delay?: number | null;
}

export interface CreateMonitorRequest extends MonitorSettings {
  /** Display name. @minLength 1 @maxLength 64 */
  name: string;
}

export interface UpdateMonitorRequest extends MonitorSettings {
  /** Display name. @minLength 1 @maxLength 64 */
  name?: string | null;
}

export type AlarmAction = 'on' | 'off' | 'cancel' | 'status';

export interface AlarmControlRequest {
  /** on = force an alarm, off/cancel = end it, status = read the alarm state. */
  action: AlarmAction;
  /** Event cause for a forced alarm. @maxLength 31 */
  cause?: string | null;
  /** Score of a forced alarm. @isInt @minimum 0 @maximum 65535 */
  score?: number | null;
  /** Event text for a forced alarm. @maxLength 255 */
  text?: string | null;
}

export type MonitorStateAction = 'start' | 'stop' | 'restart';

/** Takeover mode's control of a monitor's capture daemon, or undefined in passive mode. */
function daemonControl(s: Services): MonitorDaemonControl | undefined {
  return s.get(Daemons) ? s.get(DaemonsService) : undefined;
}

/** What PATCH /monitors/{id}/state needs from the daemon supervisor. */
export interface MonitorDaemonControl {
  monitorAction(monitor: { id: number; type: string; device: string }, action: MonitorStateAction): void;
}

/** `PATCH /monitors/{id}/state`: `{state}` (or `{action}`) = start | stop | restart. */
export interface UpdateMonitorStateRequest {
  /** The daemon action. */
  state?: MonitorStateAction | null;
  /** Alias of `state`. */
  action?: MonitorStateAction | null;
}

// ---------------------------------------------------------------------------------------------

const DEFAULT_MODES: Modes = { Capturing: 'Always', Analysing: 'Always', Recording: 'Always' };

function toResponse(row: Monitors): MonitorResponse {
  const out: Record<string, unknown> = {};
  for (const f of MONITOR_FIELDS) {
    if (f.writeOnly) continue;
    const v = row[f.column] as unknown;
    if (v === null || v === undefined) {
      out[f.json] = f.nullAs ?? null;
      continue;
    }
    switch (f.kind) {
      case 'flag':
        out[f.json] = v ? 1 : 0;
        break;
      case 'boolean':
        out[f.json] = Boolean(v);
        break;
      case 'dec':
        out[f.json] = Number(String(v));
        break;
      case 'float':
        // FLOAT columns read back as the nearest double of a single (0.4 → 0.4000000059604645).
        out[f.json] = Number((v as number).toPrecision(7));
        break;
      case 'enum':
        out[f.json] = enumFromPrisma(f.column, String(v));
        break;
      default:
        out[f.json] = v;
    }
  }
  return out as unknown as MonitorResponse;
}

/** Request body → column values. null clears a nullable column and is ignored otherwise. */
function toData(body: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const f of MONITOR_FIELDS) {
    if (f.readOnly) continue;
    const v = body[f.json];
    if (v === undefined) continue;
    if (v === null) {
      if (f.nullable) data[f.column] = null;
      continue;
    }
    if (f.kind === 'flag') data[f.column] = v === 1 || v === true;
    else if (f.kind === 'enum') data[f.column] = enumToPrisma(f.column, String(v));
    else data[f.column] = v;
  }
  return data;
}

/** Keeps Function and Capturing/Analysing/Recording consistent (see the header). */
function reconcileModes(data: Record<string, unknown>, current: Modes | null): void {
  const base = current ?? DEFAULT_MODES;
  const given = (['Capturing', 'Analysing', 'Recording'] as const).filter((k) => data[k] !== undefined);
  if (given.length > 0) {
    data.Function = functionForModes({ ...base, ...(data as Partial<Modes>) });
  } else if (data.Function !== undefined) {
    Object.assign(data, modesForFunction(data.Function as FunctionValue, base));
  } else if (current === null) {
    data.Function = functionForModes(base);
  }
}

export class MonitorsService {
  /** Built once per app by the registry (Services.get). */
  static from(s: Services): MonitorsService {
    return new MonitorsService(
      s.prisma,
      s.acl,
      s.config.zoneminder.path_map,
      new MonitorRows(s.pool),
      daemonControl(s),
      s.get(ReadCaches),
    );
  }

  constructor(
    private readonly prisma: PrismaClient,
    private readonly acl: MonitorAcl,
    /** ZM_PATH_MAP, where zm.mmap.<id> lives; alarm control needs it. */
    private readonly mapDir?: string,
    /** The driver read path for list/get (monitor-rows.ts); without it they go through Prisma. */
    private readonly reader?: MonitorRows,
    /** Takeover mode's control of the monitor's capture daemon; absent in passive mode (503). */
    private readonly daemons?: MonitorDaemonControl,
    private readonly caches: ReadCaches = new ReadCaches(),
  ) {}

  async list(user: AuthUser, page?: number, pageSize?: number): Promise<Page<MonitorResponse>> {
    const req = pageRequest(page, pageSize);
    const scope = await this.acl.scope(user);
    if (this.reader) return this.cachedPage(this.reader, scope.visible, req);
    const where: Prisma.MonitorsWhereInput = scope.visible ? { Id: { in: [...scope.visible] } } : {};
    return listPage(
      req,
      this.prisma.monitors.findMany({ where, orderBy: { Id: 'asc' }, skip: req.skip, take: req.take }),
      this.prisma.monitors.count({ where }),
      toResponse,
    );
  }

  /**
   * The list from the shared snapshot of every monitor (at most MONITORS_MAX_AGE_MS old, emptied
   * by API writes), filtered by this caller's scope on every request; a page is serialized once
   * per snapshot and scope (the list is ~3 KB of JSON per monitor).
   */
  private async cachedPage(
    reader: MonitorRows,
    visible: ReadonlySet<number> | null,
    req: PageRequest,
  ): Promise<Page<MonitorResponse>> {
    const snapshot = await this.caches.monitors.get('all', async () => ({
      rows: (await reader.all()).map(toResponse),
      pages: new Map<string, object>(),
    }));
    const key = `${visible === null ? '*' : [...visible].sort((a, b) => a - b).join(',')}|${req.page}|${req.pageSize}`;
    let page = snapshot.pages.get(key) as Page<MonitorResponse> | undefined;
    if (!page) {
      const rows = snapshot.rows as MonitorResponse[];
      const mine = visible === null ? rows : rows.filter((r) => visible.has(r.id));
      page = withJsonText(pageOf(mine.slice(req.skip, req.skip + req.take), mine.length, req));
      if (snapshot.pages.size >= MAX_SNAPSHOT_PAGES) snapshot.pages.clear();
      snapshot.pages.set(key, page);
    }
    return page;
  }

  private async row(user: AuthUser, id: number, edit: boolean): Promise<Monitors> {
    const scope = await this.acl.scope(user);
    if (edit) requireEditableMonitor(scope, id);
    else requireVisibleMonitor(scope, id);
    const row = await this.prisma.monitors.findUnique({ where: { Id: id } });
    if (!row) throw monitorNotFound(id);
    return row;
  }

  async get(user: AuthUser, id: number): Promise<MonitorResponse> {
    if (!this.reader) return toResponse(await this.row(user, id, false));
    requireVisibleMonitor(await this.acl.scope(user), id);
    const row = await this.reader.byId(id);
    if (!row) throw monitorNotFound(id);
    return toResponse(row);
  }

  /** Unknown lookups are a 400 naming the field, not a foreign-key 409. */
  private async checkReferences(data: Record<string, unknown>): Promise<void> {
    const problems: Array<[string, string]> = [];
    if (
      typeof data.ManufacturerId === 'number' &&
      !(await this.prisma.manufacturers.findUnique({ where: { Id: data.ManufacturerId } }))
    ) {
      problems.push(['manufacturer_id', 'unknown manufacturer']);
    }
    if (typeof data.ModelId === 'number' && !(await this.prisma.models.findUnique({ where: { Id: data.ModelId } }))) {
      problems.push(['model_id', 'unknown model']);
    }
    if (problems.length) throw new InvalidInputError('Invalid input', problems);
  }

  async create(user: AuthUser, body: CreateMonitorRequest): Promise<MonitorResponse> {
    if (!isUnrestricted(await this.acl.scope(user))) {
      throw new PermissionDeniedError('Creating a monitor needs access to every monitor (no row-level restrictions)');
    }
    const data = toData(body as unknown as Record<string, unknown>);
    reconcileModes(data, null);
    await this.checkReferences(data);
    const row = await this.prisma.monitors.create({ data: data as Prisma.MonitorsUncheckedCreateInput });
    this.acl.invalidate(); // restricted users' visible sets are computed over the monitor list
    return toResponse(row);
  }

  async update(user: AuthUser, id: number, body: UpdateMonitorRequest): Promise<MonitorResponse> {
    const current = await this.row(user, id, true);
    const data = toData(body as unknown as Record<string, unknown>);
    reconcileModes(data, { Capturing: current.Capturing, Analysing: current.Analysing, Recording: current.Recording });
    await this.checkReferences(data);
    const row = await this.prisma.monitors.update({
      where: { Id: id },
      data: data as Prisma.MonitorsUncheckedUpdateInput,
    });
    return toResponse(row);
  }

  /** Zones, group memberships and permission rows go by foreign-key cascade; events stay. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.row(user, id, true);
    await this.prisma.$transaction([
      this.prisma.monitor_Status.deleteMany({ where: { MonitorId: id } }),
      this.prisma.monitors.delete({ where: { Id: id } }),
    ]);
    this.acl.invalidate();
  }

  async alarm(user: AuthUser, id: number, body: AlarmControlRequest): Promise<MonitorResponse> {
    const row = await this.row(user, id, body.action !== 'status');
    if (!this.mapDir) throw notCapturing(id, 'shared memory location not configured');
    controlAlarm(this.mapDir, id, body);
    return toResponse(row);
  }

  async changeState(user: AuthUser, id: number, body: UpdateMonitorStateRequest): Promise<MonitorResponse> {
    const action = body.state ?? body.action;
    if (!action) throw new InvalidInputError('Invalid input', [['state', 'one of start, stop, restart is required']]);
    const row = await this.row(user, id, true);
    if (!this.daemons) {
      throw new ServiceUnavailableError(
        'Daemon manager not available: starting and stopping monitors needs takeover mode',
        [
          ['monitor_id', String(id)],
          ['state', action],
        ],
      );
    }
    // Throws with the reason when the daemon cannot be started.
    this.daemons.monitorAction({ id, type: String(row.Type), device: row.Device ?? '' }, action);
    return toResponse(row);
  }
}
