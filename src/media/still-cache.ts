// Derived stills (a frame taken from a recording, a rotated JPEG) under a byte budget. Keys name
// the source file's identity (path, size, mtime) and the transform, so a changed file is a new
// key and stale entries simply age out.
export { ByteCache as StillCache } from './byte-cache.js';
