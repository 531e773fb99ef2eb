// Live HLS URI names. The packager names its files init-<n>.mp4, seg-<msn>.m4s and
// part-<msn>.<i>.m4s; v3 clients know the reference names (docs/contract/clients.md): segments
// `segment_%05d.m4s` from 0, parts `segment_NNNNN.P.m4s`, the current init `init.mp4`. Playlists
// are rewritten to those names, and requests are mapped back. Init segments keep their numbered
// names (`init-<n>.mp4`): after a zmc restart both inits are in the window at once.

export type RequestedName =
  { kind: 'current-init' } | { kind: 'packager'; name: string; msn?: number } | { kind: 'invalid' };

const pad = (msn: string) => msn.padStart(5, '0');

/** Playlist text with the packager's segment and part URIs renamed (URIs start a line or follow `URI="`). */
export function renameUris(playlist: string): string {
  return playlist
    .replace(/(^|URI=")seg-(\d+)\.m4s/gm, (_m, lead: string, msn: string) => `${lead}segment_${pad(msn)}.m4s`)
    .replace(
      /(^|URI=")part-(\d+)\.(\d+)\.m4s/gm,
      (_m, lead: string, msn: string, part: string) => `${lead}segment_${pad(msn)}.${part}.m4s`,
    );
}

// `segment_` + a u64 (any number of digits, as the reference), then an optional part index
// (`.P`) or a tolerated `_anything` suffix, then `.m4s`.
const SEGMENT = /^segment_(\d{1,20})(?:\.(\d{1,6})|_[A-Za-z0-9]*)?\.m4s$/;
const INIT = /^init-(\d{1,10})\.mp4$/;

/** Maps a requested file name to the packager's name. */
export function parseRequestedName(name: string): RequestedName {
  if (name === 'init.mp4') return { kind: 'current-init' };
  if (INIT.test(name)) return { kind: 'packager', name };
  const m = SEGMENT.exec(name);
  if (!m) return { kind: 'invalid' };
  const msn = Number(m[1]);
  // Beyond 2^53 no segment can exist: a valid name that is simply unknown.
  if (!Number.isSafeInteger(msn)) return { kind: 'packager', name: 'seg-unknown' };
  return { kind: 'packager', name: m[2] === undefined ? `seg-${msn}.m4s` : `part-${msn}.${Number(m[2])}.m4s`, msn };
}
